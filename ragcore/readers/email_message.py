"""E-mail messages (.eml) with the standard library: headers, the text body, attachments named.

The part's text starts with the headers people search by (Subject, From, To, Cc, Date), then
the body: the text/plain alternative when there is one, else the HTML one through the HTML
reader's ``html_to_text``. Attachments are listed by name and type at the end, not read (save
them and upload them as files of their own): ``mime_scan`` reads past their bodies, so they are
never in memory. ``title`` is the subject, ``author`` the sender and
``date`` the sending date as ISO 8601.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragcore.errors import ReaderError
from ragcore.readers.decoding import open_binary
from ragcore.readers.html_text import html_to_text
from ragcore.readers.part import Part

if TYPE_CHECKING:
    from email.message import EmailMessage

_HEADERS = ("Subject", "From", "To", "Cc", "Date")


def read_email(path: Path) -> list[Part]:
    """One part: headers, body and the list of attachments; ``title``, ``author``, ``date``."""
    from email import policy  # the email package costs ~25 ms to import: only when needed
    from email.parser import BytesParser

    from ragcore.readers.mime_scan import reduce_message

    with open_binary(path) as source:  # attachments are read past, never held (mime_scan)
        data = reduce_message(path, source)
    message = BytesParser(policy=policy.default).parsebytes(data)
    if not any(message.get(name) for name in ("From", "To", "Subject", "Date", "Message-ID")):
        raise ReaderError(
            path,
            "is not an e-mail message (no From, To, Subject or Date header)",
            "save the message from your mail program as .eml (or upload it as .txt)",
        )
    lines = [f"{name}: {_header(message, name)}" for name in _HEADERS if message.get(name)]
    body = _body(message)
    attachments = [_attachment(part) for part in message.iter_attachments()]
    text = "\n".join(lines)
    if body:
        text += f"\n\n{body}"
    if attachments:
        text += "\n\nAttachments:\n" + "\n".join(f"- {name}" for name in attachments)
    return [Part(text, _metadata(message))]


def _header(message: EmailMessage, name: str) -> str:
    try:
        value = str(message[name])
    except Exception:  # a malformed header the policy cannot parse: keep its raw text
        value = str(message.get_all(name, [""])[0])
    return " ".join(value.split())


def _body(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    content = _content(part)
    if part.get_content_subtype() == "html":
        return html_to_text(content)[1]
    lines = content.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip()


def _content(part: Any) -> str:
    try:
        return part.get_content()
    except (LookupError, UnicodeError):  # an unknown or lying charset: keep what decodes
        payload = part.get_payload(decode=True) or b""
        return payload.decode("utf-8", errors="replace")


def _attachment(part: Any) -> str:
    name = part.get_filename() or "unnamed attachment"
    return f"{name} ({part.get_content_type()})"


def _metadata(message: EmailMessage) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    if message.get("Subject"):
        metadata["title"] = _header(message, "Subject")
    if message.get("From"):
        metadata["author"] = _header(message, "From")
    if message.get("Date"):
        from email.utils import parsedate_to_datetime

        try:
            metadata["date"] = parsedate_to_datetime(str(message["Date"])).isoformat()
        except (TypeError, ValueError, IndexError):
            pass  # an unparseable date stays in the text only
    return metadata
