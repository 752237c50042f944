"""What a document declares about its place among others: the RFCs it obsoletes or updates, the
PEP it replaces or is superseded by, its status.

An RFC's header says "Obsoletes: 2732, 2396, 1808" and "Updates: 1738" in its left column (the
authors' names stand in the right one); a PEP's says "Replaces: 245", "Superseded-By: 3333",
"Requires: 3333", "Status: Active". Only a document's head is read (its first
``HEAD_LINES`` lines), only these field names count, and each becomes a clause of the
document's own card ("obsoletes RFC 2732, RFC 2396 and RFC 1808"), so "Which RFC does RFC
2616 obsolete?" is answered from what RFC 2616 says of itself, not from a passage of another
RFC that names it.
"""

from __future__ import annotations

import re

from .card import join_names

HEAD_LINES = 40
_FIELD = re.compile(r"^([A-Z][A-Za-z-]{1,20}):\s+(\S.*?)(?:\s{3,}\S.*)?$")
_NUMBERS = re.compile(r"\d+")
# field name -> (the clause's verb, whether the values are documents of the same series)
_RELATIONS = {
    "obsoletes": ("obsoletes", True),
    "updates": ("updates", True),
    "replaces": ("replaces", True),
    "superseded-by": ("is superseded by", True),
    "requires": ("requires", True),
    "status": ("has the status", False),
    "category": ("is in the category", False),
}


def relations_of(lines: list[str], series: str) -> tuple[str, ...]:
    """The clauses the head's relation fields make, in the order they stand ("obsoletes RFC
    2068", "has the status Active"); ``series`` ("RFC", "PEP") names the documents a field's
    numbers are. Nothing for a document of no series: "Status:" in a memo's head is not this."""
    if not series:
        return ()
    found: list[str] = []
    for line in lines[:HEAD_LINES]:
        match = _FIELD.match(line)
        relation = _RELATIONS.get(match.group(1).lower()) if match else None
        if relation is None:
            continue
        verb, documents = relation
        value = match.group(2).strip().rstrip(",")
        if documents:
            numbers = _NUMBERS.findall(value)
            if not numbers:
                continue
            value = join_names([f"{series} {int(n)}" for n in numbers])
        found.append(f"{verb} {value}")
    return tuple(dict.fromkeys(found))
