"""The workspace state machine of ``test_workspace_states`` (upload, ingest, cancel, resume,
rename, delete-document, delete-index, chat, crash, restart) with every index, chat and job in
Postgres (issue 35): ``RAGCORE_INDEX_HOME=database`` puts each new index wholly in the
database, and a fresh database per machine keeps the runs apart. The same invariants hold:
nothing dangling, nothing deleted comes back, a file ingested in full has all its chunks."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings
from hypothesis.stateful import invariant, run_state_machine_as_test

import test_workspace_states as states
from support.team_backends import drop_database, fresh_database

SERVER: dict[str, str] = {}
RUN = {"in_database": 0}


class DatabaseMachine(states.WorkspaceMachine):
    def __init__(self) -> None:
        self.database = fresh_database(SERVER["url"])
        os.environ["RAGCORE_DATABASE_URL"] = self.database
        super().__init__()

    def teardown(self) -> None:
        try:
            super().teardown()
        finally:
            drop_database(self.database)

    def restart(self) -> None:
        super().restart()
        assert self.ws.database is not None

    @invariant()
    def every_index_lives_in_the_database(self) -> None:
        assert all(self.ws.in_database(folder) for folder in self.live)
        assert not (self.ws.root / "indexes").exists() or not any(
            (self.ws.root / "indexes").iterdir())
        RUN["in_database"] += len(self.live)



def test_random_steps_on_database_indexes_leave_nothing_dangling(postgres_url, monkeypatch):
    SERVER["url"] = postgres_url
    monkeypatch.setenv("RAGCORE_INDEX_HOME", "database")
    monkeypatch.setenv("RAGCORE_DATABASE_URL", "")
    states.RUN.update(machines=0, checks=0)
    try:
        run_state_machine_as_test(DatabaseMachine, settings=settings(states.SETTINGS,
                                                                     max_examples=10))
    finally:
        os.environ.pop("RAGCORE_DATABASE_URL", None)
    steps = states.RUN["checks"] - states.RUN["machines"]
    assert steps >= 150, f"only {steps} steps ran"
    assert RUN["in_database"] > 100  # indexes were there to check
