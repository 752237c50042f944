"""Office documents and e-books: zip-based formats, checked before they are parsed.

    word.py        .docx paragraphs and tables, in document order (python-docx)
    pptx.py        .pptx, one part per slide: title, text, tables, notes (python-pptx)
    xlsx.py        .xlsx .xlsm, one part per sheet, rows as "column: value" lines (openpyxl)
    epub.py        .epub, one part per chapter in reading (spine) order (ebooklib)
    zip_limits.py  zip-bomb and element-count limits, checked before any of them parses
"""
