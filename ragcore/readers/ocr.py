"""OCR of page images with Tesseract (the ``tesseract`` program and the pytesseract package).

Used by the PDF reader for pages without a text layer (scans, photographed pages, "print to
image" PDFs). Optional: ``ocr_available()`` says whether Tesseract and pytesseract are installed
(``apt-get install tesseract-ocr``, ``pip install "ragcore[ocr]"``); without them such pages are
reported as needing OCR, as before. Tesseract runs as a separate process per page, with a time
limit, so a hostile image cannot hang or crash the reader.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
from typing import Any

# A scanned page at 300 dpi OCRs in a few seconds; a minute means something is wrong with it.
OCR_TIMEOUT_SECONDS = 120
# Tesseract's language codes, joined with "+", e.g. "eng+deu"; installed as tesseract-ocr-<code>.
OCR_LANGUAGES_ENV = "RAGCORE_OCR_LANGUAGES"


@functools.cache
def ocr_available() -> bool:
    """True when the tesseract program and the pytesseract package are both installed."""
    program = shutil.which("tesseract")
    return program is not None and importlib.util.find_spec("pytesseract") is not None


def ocr_languages() -> str:
    """The Tesseract languages to recognise: $RAGCORE_OCR_LANGUAGES, else English."""
    return os.environ.get(OCR_LANGUAGES_ENV, "").strip() or "eng"


def ocr_image(image: Any) -> str:
    """The text Tesseract reads in a PIL image (raises RuntimeError on its failure or timeout)."""
    import pytesseract

    try:
        return pytesseract.image_to_string(image, lang=ocr_languages(),
                                           timeout=OCR_TIMEOUT_SECONDS)
    except pytesseract.TesseractError as exc:
        raise RuntimeError(f"Tesseract failed ({exc.message.strip() or exc.status})") from exc
