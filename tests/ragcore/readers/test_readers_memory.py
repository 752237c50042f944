"""Readers hold no whole copy of a big input beyond what they return (issue 20): a text with a
character above U+00FF is four bytes per character, so one extra copy is a lot. Bounds are
generous and inputs small; the big figures are in benchmarks/ingest/bench_memory.py."""

from __future__ import annotations

import sys
import tracemalloc

from ragcore.readers import load_file

LINE = "Owls hunt at night and sleep by day, said the guide to the visitors 🦉"


def peak_while(read, *args):
    """What ``read(*args)`` returns and the peak of Python allocations while it ran."""
    tracemalloc.start()
    try:
        result = read(*args)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_wide_text_with_crlf_and_blank_edges_is_read_without_a_second_copy(tmp_path):
    path = tmp_path / "wide.txt"
    body = "\r\n".join(f"{i} {LINE}" for i in range(25_000))
    path.write_bytes(f"\r\n\r\n  {body}\r\n\r\n".encode())  # 2 MB of bytes, 7 MB as str
    [doc], peak = peak_while(load_file, path)
    text_size = sys.getsizeof(doc.text)
    assert "\r" not in doc.text and doc.text.count("\n") == 25_000 + 3
    # the text and the file's bytes at once, never two texts (a strip() or replace() copy)
    assert peak < 1.6 * text_size, (peak, text_size)


def test_a_wide_paginated_text_is_depaginated_without_a_third_copy(tmp_path):
    path = tmp_path / "pages.txt"
    page = "\n".join(f"{i} {LINE}" for i in range(50))
    path.write_text("\f".join(f"Report\n{page}\nPage {n}" for n in range(500)))  # 7 MB as str
    [doc], peak = peak_while(load_file, path)
    assert "Page 7" not in doc.text and doc.text.count("Report") == 0
    # the text and its depaginated copy at once, not also the pages joined in between
    assert peak < 2.5 * sys.getsizeof(doc.text), (peak, sys.getsizeof(doc.text))
