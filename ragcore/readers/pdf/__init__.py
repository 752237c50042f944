"""PDF files: one document per page, scanned pages read by OCR.

    reader.py        .pdf with pypdfium2: one part per page, labelled with its printed label;
                     pages without text sent to OCR (and counted ahead: ``pages_to_ocr``)
    page.py          one page as a picture with its text layer: characters and their boxes
    ocr.py           OCR of page images with the Tesseract program, one process per page
    split_words.py   words a PDF's layout split in two ("e xtension") rejoined, told from
                     real words by ``search.english_words``
"""
