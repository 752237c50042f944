"""The Upload page takes every common file type, and text files of any name (issue 13)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.office_files import make_mixed_folder
from test_app_pages import app_env, button, empty_ws, finish_jobs, open_page  # noqa: F401


@pytest.mark.slow  # ~18 s: an ingest job of seven files in a real app script run
def test_upload_accepts_any_file_and_reports_each_result(empty_ws, tmp_path: Path):  # noqa: F811
    files = make_mixed_folder(tmp_path / "mixed")
    blob = tmp_path / "mixed" / "photo.jpg"
    blob.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(range(256)) * 8)
    at = open_page("upload")
    at.text_input[0].set_value("mixed")
    upload = [(path.name, path.read_bytes(), "application/octet-stream") for path in files]
    at.file_uploader[0].set_value([*upload, (blob.name, blob.read_bytes(), "image/jpeg")]).run()
    button(at, f"Index {len(files) + 1} files").click().run()
    finish_jobs(at, empty_ws)
    assert not at.exception
    results = at.dataframe[0].value.set_index("file")["result"]
    for path in files:
        assert results[path.name].startswith("indexed: "), (path.name, results[path.name])
    assert "binary content" in results["photo.jpg"]
