"""Saved evaluations and question sets, as JSON files in the workspace.

    <workspace>/evaluations/<id>.json      one evaluation's report (``ragcore.evaluation``'s
                                           ``EvaluationReport.to_dict()``), id = time + random
    <workspace>/evaluations/<id>.summary   what the list shows of it (a report with traces is
                                           megabytes; the list reads only these)
    <workspace>/question_sets/<name>.json  a question set (``EmbeddingQAFinetuneDataset``)

This module stores plain dicts and knows nothing of how they were computed (the evaluation
package sits above the workspace and converts them). Writes are atomic; an unreadable file
raises WorkspaceError naming it.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import WorkspaceError
from .chats import now_iso
from .files import inside, read_json, validate_name, write_json_atomic

SUMMARY_KEYS = ("id", "index", "created", "question_set", "question_count", "modes",
                "retrievers", "cancelled")


def new_evaluation_id() -> str:
    """A sortable, unique id: the UTC time to the microsecond and 6 random hex digits."""
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ") + "-" + secrets.token_hex(3)


class EvaluationStore:
    """Evaluations and question sets under a workspace root."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.folder = self.root / "evaluations"
        self.sets_folder = self.root / "question_sets"

    def save(self, report: dict[str, Any]) -> str:
        """Save an evaluation (given an id and creation time if it has none); its id."""
        report.setdefault("id", "")
        report["id"] = report["id"] or new_evaluation_id()
        report["created"] = report.get("created") or now_iso()
        write_json_atomic(self._path(report["id"]), report)
        write_json_atomic(self._summary_path(report["id"]), _summary(report))
        return report["id"]

    def load(self, evaluation_id: str) -> dict[str, Any]:
        """A saved evaluation; WorkspaceError if there is none by that id."""
        data = read_json(self._path(evaluation_id), what="evaluation")
        if not isinstance(data, dict):
            raise WorkspaceError(f"evaluation {evaluation_id} is damaged: delete it")
        return data

    def list(self, index: str | None = None) -> list[dict[str, Any]]:
        """Summaries of the saved evaluations (of one index if given), newest first."""
        summaries = []
        for path in sorted(self.folder.glob("*.json"), reverse=True):
            summary = self._summary_path(path.stem)
            try:  # the report itself only when its summary is missing
                data = read_json(summary if summary.exists() else path, what="evaluation")
            except WorkspaceError:
                continue  # a damaged file is skipped in the list; load() names it
            if isinstance(data, dict) and (index is None or data.get("index") == index):
                summaries.append(_summary(data))
        return summaries

    def delete(self, evaluation_id: str) -> None:
        self._path(evaluation_id).unlink(missing_ok=True)
        self._summary_path(evaluation_id).unlink(missing_ok=True)

    def save_question_set(self, name: str, data: dict[str, Any]) -> Path:
        """Save a question set under ``name`` (letters, digits, '-', '_')."""
        path = self._set_path(name)
        write_json_atomic(path, data)
        return path

    def load_question_set(self, name: str) -> dict[str, Any]:
        data = read_json(self._set_path(name), what="question set")
        if not isinstance(data, dict):
            raise WorkspaceError(f"question set {name} is damaged: delete it")
        return data

    def question_sets(self) -> list[str]:
        """The names of the saved question sets, sorted."""
        return sorted(p.stem for p in self.sets_folder.glob("*.json"))

    def _path(self, evaluation_id: str) -> Path:
        validate_name(str(evaluation_id), what="evaluation id")
        return inside(self.root, self.folder / f"{evaluation_id}.json")

    def _summary_path(self, evaluation_id: str) -> Path:
        return self._path(evaluation_id).with_suffix(".summary")

    def _set_path(self, name: str) -> Path:
        validate_name(name, what="question set name")
        return inside(self.root, self.sets_folder / f"{name}.json")


def _summary(report: dict[str, Any]) -> dict[str, Any]:
    return {k: report.get(k) for k in SUMMARY_KEYS}
