"""E-mail messages read through ``mime_scan``: the same text as parsing the whole message,
attachment bodies never held, and nesting too deep refused with a clear reason."""

from __future__ import annotations

import base64
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ragcore.readers.mime_scan as mime_scan
from ragcore.errors import ReaderError
from ragcore.readers import load_file
from ragcore.readers.email_message import read_email

TOP = "From: Ann <ann@example.org>\nTo: bob@example.org\nSubject: The owls\n"


def whole(path: Path, source) -> bytes:
    return source.read()  # the message as it was parsed before mime_scan


def read_whole(path: Path, monkeypatch) -> list:
    with monkeypatch.context() as patch:
        patch.setattr(mime_scan, "reduce_message", whole)
        return read_email(path)


def render(tree, names: list[int]) -> str:
    """A MIME part from a tree: ("multipart", subtype, children, closed) or a leaf (kind,
    words); a multipart not ``closed`` lacks its closing boundary (as in damaged mail)."""
    names.append(len(names))
    n = names[-1]
    if tree[0] == "multipart":
        children = "".join(f"--b{n}\n{render(child, names)}\n" for child in tree[2])
        end = f"--b{n}--\nAn epilogue.\n" if tree[3] else ""
        return (f'Content-Type: multipart/{tree[1]}; boundary="b{n}"\n\nA preamble.\n'
                f"{children}{end}")
    kind, words = tree
    if kind == "pdf":
        data = base64.encodebytes(words.encode() * 20).decode()
        return ("Content-Type: application/pdf\nContent-Transfer-Encoding: base64\n"
                f'Content-Disposition: attachment; filename="f{n}.pdf"\n\n{data}')
    disposition = 'Content-Disposition: attachment; filename="notes.txt"\n' if kind == "txt" else ""
    body = f"<p>{words}</p>" if kind == "html" else words
    subtype = "html" if kind == "html" else "plain"
    return f"Content-Type: text/{subtype}; charset=utf-8\n{disposition}\n{body}\n"


LEAVES = st.tuples(st.sampled_from(["plain", "html", "txt", "pdf"]),
                   st.text("owls bat night \n--é🦉", min_size=1, max_size=60))
TREES = st.recursive(LEAVES, lambda inner: st.tuples(
    st.just("multipart"), st.sampled_from(["mixed", "alternative", "related"]),
    st.lists(inner, min_size=1, max_size=3), st.booleans()), max_leaves=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(tree=TREES, crlf=st.booleans())
def test_a_message_reads_as_when_it_was_parsed_whole(tmp_path, monkeypatch, tree, crlf):
    text = TOP + render(tree, [])
    path = tmp_path / "m.eml"
    path.write_bytes((text.replace("\n", "\r\n") if crlf else text).encode())
    assert read_email(path) == read_whole(path, monkeypatch)


def test_an_attachment_is_read_past_not_held(tmp_path):
    attachment = base64.encodebytes(bytes(range(256)) * 16_000).decode()  # 5.5 MB as base64
    path = tmp_path / "big.eml"
    path.write_text(TOP + 'Content-Type: multipart/mixed; boundary="X"\n\n--X\n'
                    "Content-Type: text/plain\n\nSee the photo.\n--X\n"
                    "Content-Type: image/jpeg\nContent-Transfer-Encoding: base64\n"
                    f'Content-Disposition: attachment; filename="owl.jpg"\n\n{attachment}--X--\n')
    tracemalloc.start()
    try:
        [part] = read_email(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "See the photo." in part.text and "owl.jpg (image/jpeg)" in part.text
    assert peak < len(attachment) / 4, peak


def test_a_message_nested_too_deep_is_refused_with_the_reason(tmp_path):
    depth = 2000
    opening = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n'
                      for i in range(depth))
    closing = "".join(f"--b{i}--\n" for i in reversed(range(depth)))
    path = tmp_path / "deep.eml"
    path.write_text(TOP + opening + "Content-Type: text/plain\n\nDeep.\n" + closing)
    with pytest.raises(ReaderError, match="levels deep") as caught:
        load_file(path)
    assert caught.value.hint and not isinstance(caught.value.__context__, RecursionError)


def test_a_message_nested_as_deep_as_allowed_is_read(tmp_path):
    depth = mime_scan.MAX_NESTING
    opening = "".join(f'Content-Type: multipart/mixed; boundary="b{i}"\n\n--b{i}\n'
                      for i in range(depth))
    path = tmp_path / "deep.eml"
    path.write_text(TOP + opening + "Content-Type: text/plain\n\nDeep owls.\n")
    assert "Deep owls." in read_email(path)[0].text
