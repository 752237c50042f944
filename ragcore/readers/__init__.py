"""Readers: files, folders and SQL query results to ``Document``s.

The first stage of the pipeline. ``SimpleDirectoryReader`` reads a folder (or a list of files)
and reports each file it cannot read in ``.failures`` while the others load; ``load_file`` reads
one file and raises ``ReaderError(path, problem, hint)``; ``DatabaseReader`` turns SQL rows into
documents. One module per format, each returning ``Part``s that ``files.load_file`` turns into
documents with file metadata and stable ids:

    directory.py   SimpleDirectoryReader: folder scan, filters, per-file failure report
    files.py       load_file, the extension -> reader table, file metadata, MIME types
    sniff.py       files of unknown type: text, PDF, Office or EPUB by content; binary refused
    database.py    DatabaseReader: SQL rows (sqlite3, or SQLAlchemy when installed)
    text.py        .txt .text .log .rst, and RFC-style paginated text (running headers removed)
    markdown/      .md .markdown (source kept as written, first heading as ``title``), and
                   passages read without its HTML (``read_as``: the answer prompt, the views)
    pdf/           .pdf, one document per page with ``page`` and ``page_label`` (pypdfium2),
                   OCR of pages without text when Tesseract is installed, split words rejoined
    office/        .docx .pptx .xlsx .epub (python-docx, python-pptx, openpyxl, ebooklib),
                   the zip-bomb limits they share checked before parsing
    rtf.py         .rtf text (striprtf)
    email_message.py  .eml headers, body (HTML via html_text) and attachment names
    mime_scan.py   an .eml cut down as read: attachment bodies read past, never held
    html_text.py   .html .htm .xhtml visible text, ``title`` kept (BeautifulSoup)
    tables.py      .csv .tsv rows as "column: value" lines
    json_text.py   .json as indented text; .jsonl one document per line
    notebook.py    .ipynb markdown and code cells, no outputs
    decoding.py    bytes to text: encoding detection (charset-normalizer), binary refusal
    part.py        Part: the text, metadata and id suffix a format reader returns

Heavy parsers (pypdfium2, python-docx, python-pptx, openpyxl, ebooklib, bs4, charset-normalizer)
are imported on first use only. Unlike LlamaIndex, ids are stable by default: the resolved file
path (or ``doc_id_base``), plus ``#page=N`` for the N-th part of a file read in parts (PDF page,
slide, sheet, chapter) and ``#line=N`` for JSON Lines records. Any file is accepted
(``ACCEPTS_ANY_EXTENSION``): ``SUPPORTED_EXTENSIONS`` names the formats read by extension, and
files of other types are read when their content is text.
"""

from ragcore.errors import ReaderError
from ragcore.readers.database import DatabaseReader
from ragcore.readers.directory import SimpleDirectoryReader
from ragcore.readers.files import (
    ACCEPTS_ANY_EXTENSION,
    MIME_TYPES,
    READERS,
    SUPPORTED_EXTENSIONS,
    file_metadata,
    load_file,
)

__all__ = [
    "ACCEPTS_ANY_EXTENSION",
    "MIME_TYPES",
    "READERS",
    "SUPPORTED_EXTENSIONS",
    "DatabaseReader",
    "ReaderError",
    "SimpleDirectoryReader",
    "file_metadata",
    "load_file",
]
