"""OCR of page images with the Tesseract program, one process per page.

Used by the PDF reader for pages without a text layer (scans, photographed pages, "print to
image" PDFs). Optional: ``ocr_available()`` says whether ``tesseract`` and the languages asked
for are installed (Debian: ``apt-get install tesseract-ocr``, plus ``tesseract-ocr-deu``... for
other languages); without it such pages are reported as needing OCR. Tesseract runs as a
separate process with a time limit, so a hostile image cannot hang or crash the reader, and with
one thread each (``OMP_THREAD_LIMIT=1``): on a small machine its own threads only contend, and
pages run in parallel instead (``ocr_images``), one per core.
"""

from __future__ import annotations

import functools
import io
import os
import shutil
import subprocess
from collections.abc import Sequence
from typing import Any

# A scanned page OCRs in seconds; two minutes means something is wrong with it.
OCR_TIMEOUT_SECONDS = 120
# Tesseract language codes joined with "+", e.g. "eng+deu"; each installed as tesseract-ocr-<code>.
OCR_LANGUAGES_ENV = "RAGCORE_OCR_LANGUAGES"


def ocr_languages() -> str:
    """The Tesseract languages to recognise: $RAGCORE_OCR_LANGUAGES, else English."""
    return os.environ.get(OCR_LANGUAGES_ENV, "").strip() or "eng"


def ocr_available() -> bool:
    """True when the tesseract program and every language of ``ocr_languages()`` are installed."""
    return _installed(ocr_languages())


@functools.cache
def _installed(languages: str) -> bool:
    program = shutil.which("tesseract")
    if program is None:
        return False
    try:
        listed = subprocess.run([program, "--list-langs"], capture_output=True, text=True,
                                timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return False
    known = set(listed.stdout.split())
    return all(code in known for code in languages.split("+"))


def ocr_image(image: Any) -> str:
    """The text Tesseract reads in a PIL image (RuntimeError when it fails or times out)."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    command = [shutil.which("tesseract") or "tesseract", "stdin", "stdout", "-l", ocr_languages()]
    try:
        done = subprocess.run(command, input=buffer.getvalue(), capture_output=True,
                              timeout=OCR_TIMEOUT_SECONDS, check=False,
                              env={**os.environ, "OMP_THREAD_LIMIT": "1"})
    except subprocess.TimeoutExpired as exc:
        raise RuntimeError(f"Tesseract took over {OCR_TIMEOUT_SECONDS} s") from exc
    except OSError as exc:
        raise RuntimeError(f"Tesseract could not be started ({exc})") from exc
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(f"Tesseract failed ({message[-1] if message else done.returncode})")
    return done.stdout.decode("utf-8", "replace")


def ocr_images(images: Sequence[Any]) -> list[str | RuntimeError]:
    """``ocr_image`` of each image, one per core at a time; a failure is returned, not raised."""
    from concurrent.futures import ThreadPoolExecutor

    def one(image: Any) -> str | RuntimeError:
        try:
            return ocr_image(image)
        except RuntimeError as exc:
            return exc

    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        return list(pool.map(one, images))
