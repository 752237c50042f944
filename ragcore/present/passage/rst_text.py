"""reStructuredText as Markdown, so a passage from a .rst file reads as text, not as markup.

Only what shows up in passages is converted, line by line with regular expressions (no docutils):
section titles and their underlines, directives (``.. code-block:: python`` and its indented body
become a fenced block, ``.. note::`` a bold "Note:"), comments and link targets (dropped),
literal blocks after "::", roles (``:pep:`8``` reads "PEP 8", ``:ref:`text <target>``` "text"),
hyperlinks (```text <url>`_`` becomes a Markdown link) and ````literals````. Characters of the
private-use area pass through untouched: ``markup`` marks highlights with them.
"""

from __future__ import annotations

import re

_ADORNMENT = re.compile(r"^([=\-~^\"'`#*+:.])\1{2,}\s*$")
_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w-]+)::\s*(.*)$")
_COMMENT = re.compile(r"^\s*\.\.(?:\s+(?:_[^:]*:.*|\|[^|]*\|.*|[^\[].*)?)?$")
_FOOTNOTE = re.compile(r"^(\s*)\.\.\s+(\[[^\]]+\])\s*(.*)$")
_CODE_DIRECTIVES = {"code-block", "code", "sourcecode", "highlight", "literalinclude"}
_NAMED_ROLES = {"pep": "PEP ", "rfc": "RFC ", "pep-ref": "PEP "}
_ROLE = re.compile(r":([\w-]+):`([^`<]*?)(?:\s*<[^>]*>)?`")
_LINK = re.compile(r"`([^`<]+?)\s*<([^>]+)>`__?")
_REFERENCE = re.compile(r"`([^`]+)`__?(?!\w)")
_LITERAL = re.compile(r"``([^`]+)``")
_FENCED = re.compile(r"(^[ \t]*```.*?^[ \t]*```[ \t]*$)", re.MULTILINE | re.DOTALL)
# The private-use characters ``markup`` marks highlights with.
_MARKS = re.compile("[\ue000-\uf8ff]")
_FOOTNOTE_REF = re.compile(r"\s?\[#[\w-]*\]_|(?<=\])_(?!\w)")


def rst_to_markdown(text: str) -> str:
    """``text`` with its reST markup turned into Markdown (or into plain words)."""
    lines = text.split("\n")
    out: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        directive = _DIRECTIVE.match(line)
        if directive:
            index = _directive(lines, index, directive, out)
            continue
        if _FOOTNOTE.match(line):
            footnote = _FOOTNOTE.match(line)
            out.append(f"{footnote.group(1)}{footnote.group(2)} {footnote.group(3)}".rstrip())
        elif _COMMENT.match(line) and line.strip():
            pass
        elif _ADORNMENT.match(line) and out and _is_title_underline(lines, index):
            out[-1] = f"#### {out[-1].strip()}"
        elif _ADORNMENT.match(line) and _is_overline(lines, index):
            pass
        elif _MARKS.sub("", line).rstrip().endswith("::") and not line.strip().startswith(".."):
            index = _literal(lines, index, out)
            continue
        else:
            out.append(inline_to_markdown(line))
        index += 1
    # Roles and links may wrap over lines: a second pass over the text outside code blocks.
    pieces = _FENCED.split("\n".join(out))
    return "".join(p if i % 2 else inline_to_markdown(p) for i, p in enumerate(pieces))


def inline_to_markdown(line: str) -> str:
    """Roles, links and literals of one line in Markdown."""
    line = _ROLE.sub(_role, line)
    line = _LINK.sub(r"[\1](\2)", line)
    line = _LITERAL.sub(r"`\1`", line)
    line = _FOOTNOTE_REF.sub("", line)
    return _REFERENCE.sub(r"\1", line)


def _role(match: re.Match[str]) -> str:
    role, text = match.group(1), match.group(2).strip()
    if role in _NAMED_ROLES and text[:1].isdigit():
        return _NAMED_ROLES[role] + text
    if role in ("code", "literal", "file", "samp", "command", "kbd"):
        return f"`{text}`"
    return text


def _is_title_underline(lines: list[str], index: int) -> bool:
    if index == 0:
        return False
    title = lines[index - 1].strip()
    return bool(title) and not _ADORNMENT.match(title) and len(lines[index].strip()) >= 3


def _is_overline(lines: list[str], index: int) -> bool:
    return index + 2 < len(lines) and _ADORNMENT.match(lines[index + 2]) is not None


def _body(lines: list[str], start: int) -> tuple[list[str], int]:
    """The indented block starting at ``start`` (blank lines included), dedented; its end."""
    end = start
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in " \t"):
        end += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    block = lines[start:end]
    indents = [len(line) - len(line.lstrip()) for line in block if line.strip()]
    cut = min(indents, default=0)
    return [line[cut:] for line in block], end


def _directive(lines: list[str], index: int, match: re.Match[str], out: list[str]) -> int:
    indent, name, argument = match.groups()
    body, end = _body(lines, index + 1)
    body = [line for line in body if not line.startswith(":")]  # the directive's options
    while body and not body[0].strip():
        body.pop(0)
    if name in _CODE_DIRECTIVES:
        language = argument.split()[0] if argument and name != "literalinclude" else ""
        out.extend([f"{indent}```{language}", *(indent + line for line in body), f"{indent}```"])
    elif name in ("image", "figure", "include", "toctree", "contents", "sectnum", "index"):
        out.extend(indent + line for line in body if name == "figure")
    else:
        title = name.replace("-", " ").capitalize()
        first = f"{indent}**{title}:** {inline_to_markdown(argument)}".rstrip()
        nested = rst_to_markdown("\n".join(body)).split("\n")  # directives inside a note
        out.extend([first, *(indent + line for line in nested)])
    return end


def _literal(lines: list[str], index: int, out: list[str]) -> int:
    """A paragraph ending in "::" and the indented literal block after it."""
    text, _, marks = lines[index].rpartition("::")  # marks: highlight markers after it
    if text.strip():  # "Example::" reads "Example:", "Example ::" reads "Example"
        text = text.rstrip() if text[-1:].isspace() else text + ":"
        out.append(inline_to_markdown(text) + marks.strip())
    elif marks.strip():
        out.append(marks.strip())
    body, end = _body(lines, index + 1)
    while body and not body[0].strip():
        body.pop(0)
    if body:
        out.extend(["", "```", *body, "```"])
    return end
