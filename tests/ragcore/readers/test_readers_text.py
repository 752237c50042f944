"""Decoding (encodings, binary refusal) and depagination, including property tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ragcore.errors import ReaderError
from ragcore.readers import load_file
from ragcore.readers.decoding import decode_text, looks_binary
from ragcore.readers.text import strip_pagination

WESTERN = (
    "Café au lait, naïve résumé. Das Mädchen aß Brötchen.\n"
    "Voilà — “quotes” and the € sign.\n"
) * 3
LATIN1 = "Le garçon a mangé une crème brûlée à Noël.\nSeñor Muñoz está aquí. Größe.\n" * 3


@pytest.mark.parametrize(
    ("encoding", "text"),
    [
        ("cp1252", WESTERN),
        ("latin-1", LATIN1),
        ("utf-16", WESTERN),  # with BOM
        ("utf-16-le", WESTERN),  # without BOM
        ("utf-16-be", WESTERN),
        ("utf-8-sig", WESTERN),
        ("utf-8", WESTERN),
    ],
)
def test_encodings_are_detected_not_garbled(tmp_path: Path, encoding: str, text: str):
    path = tmp_path / f"{encoding}.txt"
    path.write_bytes(text.encode(encoding))
    (doc,) = load_file(path)
    assert doc.text == text


def test_short_cp1252_text_is_not_read_as_a_central_european_codepage(tmp_path: Path):
    path = tmp_path / "short.txt"
    path.write_bytes("Résumé of the naïve café owner.\n".encode("cp1252"))
    assert load_file(path)[0].text == "Résumé of the naïve café owner.\n"


def test_windows_newlines_become_unix(tmp_path: Path):
    path = tmp_path / "crlf.txt"
    path.write_bytes(b"one\r\ntwo\rthree\n")
    assert load_file(path)[0].text == "one\ntwo\nthree\n"


def test_csv_and_markdown_use_the_same_detection(tmp_path: Path):
    path = tmp_path / "prices.csv"
    path.write_bytes("Ware,Preis\nKäse,3 €\nBrötchen,1 €\n".encode("cp1252"))
    assert load_file(path)[0].text == "Ware: Käse\nPreis: 3 €\n\nWare: Brötchen\nPreis: 1 €"
    md = tmp_path / "notes.md"
    md.write_bytes("# Über\n\nMüller’s Notizen über Äpfel und Öl.\n".encode("utf-16"))
    (doc,) = load_file(md)
    assert doc.metadata["title"] == "Über"


def test_terminal_colours_in_logs_are_text():
    log = "\x1b[32mINFO\x1b[0m server started on port 8080\n" * 50
    assert not looks_binary(log)


def test_a_stray_nul_in_utf8_is_binary_not_utf16():
    # Found by the round-trip property: b"04\x000" once decoded as UTF-16, to two CJK characters.
    with pytest.raises(ReaderError, match="binary"):
        decode_text(b"04\x000", Path("x.txt"))
    assert decode_text("Müller’s Äpfel".encode("utf-16-le"), Path("x.txt")) == "Müller’s Äpfel"


def test_empty_bytes_are_refused():
    with pytest.raises(ReaderError, match="empty"):
        decode_text(b"", Path("x.txt"))


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1).filter(lambda s: s.strip()), st.sampled_from(["utf-8", "utf-16"]))
@example("\x000\x10", "utf-16")  # its UTF-16 starts like a UTF-32 BOM and reads as U+100030
def test_any_unicode_text_round_trips(text: str, encoding: str):
    data = text.encode(encoding, errors="surrogatepass")
    try:
        decoded = decode_text(data, Path("t.txt"))
    except ReaderError as exc:
        # Text made mostly of control characters is indistinguishable from binary: refusing
        # it is the documented behaviour, anything else must round-trip.
        assert "binary" in exc.problem and looks_binary(text)
        return
    expected = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text and encoding == "utf-8":
        # b"1\x00" is as much UTF-16 "1" as UTF-8 "1" + NUL: data with NULs and no BOM has no
        # one right reading; it must decode (or be refused, above) without an error
        return
    assert decoded == expected


def _paginated(pages: list[str]) -> str:
    out = []
    for number, body in enumerate(pages, start=1):
        header = "RFC 9999            Example Protocol            May 2024\n\n"
        header = "" if number == 1 else header
        footer = f"\n\n\nDoe, et al.              Standards Track              [Page {number}]\n"
        out.append(header + body + footer)
    return "\f\n".join(out)


def test_pagination_strips_headers_footers_and_rejoins_paragraphs():
    pages = [
        "Network Working Group\n\n1.  Introduction\n\n"
        "   This protocol carries messages\n   between",
        "   two peers over a reliable transport.\n\n2.  Terms\n\n   A peer is an endpoint.",
        "   Peers exchange frames.\n\n3.  Security\n\n   Use TLS.",
    ]
    text = strip_pagination(_paginated(pages))
    assert "[Page" not in text and "RFC 9999" not in text and "\f" not in text
    assert "   This protocol carries messages\n   between\n   two peers over" in text
    assert "endpoint.\n\n   Peers exchange frames." in text


def test_text_without_form_feeds_is_untouched():
    text = "Page 1 of a normal letter.\n\nNo pagination here.\n"
    assert strip_pagination(text) == text


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_characters="\f\r"), max_size=80), max_size=6))
def test_pagination_never_invents_or_reorders_words(pages: list[str]):
    text = "\f".join(pages)
    words = [w for w in text.split()]
    kept = strip_pagination(text).split()
    # Removing running lines may drop words, never add or reorder them.
    iterator = iter(words)
    assert all(word in iterator for word in kept)


def test_utf16_text_starting_with_nul_is_not_read_as_utf32():
    data = "\x00hello world".encode("utf-16")  # begins FF FE 00 00, the UTF-32 LE BOM
    with pytest.raises(ReaderError, match="binary"):  # NUL is binary junk, but seen as UTF-16
        decode_text("\x00".encode("utf-16"), Path("t.txt"))
    assert decode_text(data + "x".encode("utf-16-le") * 200, Path("t.txt")).endswith("xxx")
