"""Small text tables the answer and retrieval benchmarks write to stderr beside their rows."""

from __future__ import annotations


def format_matrix(title: str, header: list[str], lines: list[list[str]]) -> str:
    """An aligned text table under a title."""
    widths = [max(len(row[i]) for row in [header, *lines]) for i in range(len(header))]
    body = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip()
            for row in [header, *lines]]
    return "\n".join([title, body[0], "  ".join("-" * w for w in widths), *body[1:]])


def cell(value: float | None) -> str:
    """A figure as a table shows it: three decimals below 10, whole numbers above, "-" if none."""
    if value is None:
        return "-"
    return f"{value:.3f}" if abs(value) < 10 else f"{value:.0f}"
