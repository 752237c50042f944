"""A reST passage that ends at "::" (its literal block falls in the next chunk) reads "…:", not
"…::": the highlight marker after the "::" hid it (PEP 257's "here is an implementation of the
algorithm::", PEP 103's "merged into master::")."""

from __future__ import annotations

from pathlib import Path

from ragcore.present.citations import Segment
from ragcore.present.passage.markup import render_segments
from ragcore.present.passage.rst_text import rst_to_markdown


def test_a_passage_ending_at_a_literal_block_marker_reads_as_a_colon(corpus_dir: Path):
    text = (corpus_dir / "python_peps" / "pep-0257.rst").read_text(encoding="utf-8")
    end = text.index("of the algorithm::") + len("of the algorithm::")
    shown = render_segments([Segment(text[end - 300:end], "cited")], "rst")
    assert "of the algorithm:</mark>" in shown and "::" not in shown.split("</style>")[1]


def test_markers_around_the_double_colon_stay_in_order():
    assert rst_to_markdown("Example::\ue013\n\n    x = 1\n") == "Example:\ue013\n\n```\nx = 1\n```\n"
    assert rst_to_markdown("Example ::") == "Example"
