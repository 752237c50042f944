"""Sign-in lockout under load: wrong passwords sent at once for one account are checked no more
than the limit allows (MAX_FAILURES), the rest refused with the lockout message; on SQLite and
Postgres, from threads sharing a connection, threads of two app servers, and (SQLite) processes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from ragcore.errors import LoginRefused
from ragcore.workspace.team.passwords import fast_hasher
from ragcore.workspace.team.team import Team
from ragcore.workspace.team.team_db import DATABASE_ENV
from ragcore.workspace.team.throttle import MAX_FAILURES
from support.team_backends import team_backend  # noqa: F401 - the fixture: SQLite, then Postgres


class SlowHasher:
    """A cheap argon2 hasher whose checks take a while (as real ones do), counting them."""

    def __init__(self, seconds: float = 0.05) -> None:
        self.inner, self.seconds = fast_hasher(), seconds
        self.checked = 0
        self._lock = threading.Lock()

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def verify(self, stored, password):
        with self._lock:
            self.checked += 1
        time.sleep(self.seconds)
        return self.inner.verify(stored, password)


def sign_in_at_once(teams: list[Team], attempts: int) -> list[str]:
    """``attempts`` wrong passwords for ana, all released together; the messages refused."""
    start = threading.Barrier(attempts)

    def attempt(number: int) -> str:
        start.wait()
        try:
            teams[number % len(teams)].accounts.authenticate("ana", "wrong guess", client="tab")
        except LoginRefused as refused:
            return str(refused)
        return "signed in"

    with ThreadPoolExecutor(attempts) as pool:
        return list(pool.map(attempt, range(attempts)))


def wrong_password_entries(team: Team) -> int:
    ana = team.accounts.find("ana")
    return sum(not e.ok and e.detail.startswith("wrong password")
               for e in team.audit.read(ana, event="login"))


@pytest.mark.parametrize("servers", [1, 2])
def test_wrong_passwords_sent_at_once_are_checked_no_more_than_the_limit(
    tmp_path, team_backend, servers  # noqa: F811
):
    hasher = SlowHasher()
    teams = [Team.open(tmp_path, hasher=hasher) for _ in range(servers)]
    try:
        teams[0].accounts.set_up("ana", "ana's password")
        refused = sign_in_at_once(teams, 40)
        assert hasher.checked == MAX_FAILURES
        assert sum("wrong name or password" in r for r in refused) == MAX_FAILURES
        assert sum("sign-in is locked" in r for r in refused) == 40 - MAX_FAILURES
        assert wrong_password_entries(teams[0]) == MAX_FAILURES
        with pytest.raises(LoginRefused, match="locked"):  # the right password waits too
            teams[0].accounts.authenticate("ana", "ana's password")
    finally:
        for team in teams:
            team.close()


_PROCESS = """
import os, sys, threading, time
from ragcore.errors import LoginRefused
from ragcore.workspace.team.passwords import fast_hasher
from ragcore.workspace.team.team import Team

class Slow:
    def __init__(self):
        self.inner = fast_hasher()
    def __getattr__(self, name):
        return getattr(self.inner, name)
    def verify(self, stored, password):
        time.sleep(0.05)
        return self.inner.verify(stored, password)

team = Team.open(sys.argv[1], hasher=Slow())
go = os.path.join(sys.argv[1], "go")
while not os.path.exists(go):
    time.sleep(0.01)
results = []
def attempt():
    try:
        team.accounts.authenticate("ana", "wrong guess", client="tab")
    except LoginRefused as refused:
        results.append("checked" if "wrong name" in str(refused) else "locked")
threads = [threading.Thread(target=attempt) for _ in range(int(sys.argv[2]))]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(" ".join(results))
"""


def test_wrong_passwords_from_several_processes_are_checked_no_more_than_the_limit(
    tmp_path, monkeypatch
):
    monkeypatch.delenv(DATABASE_ENV, raising=False)  # the embedded SQLite team database
    team = Team.open(tmp_path, hasher=fast_hasher())
    try:
        team.accounts.set_up("ana", "ana's password")
        script = textwrap.dedent(_PROCESS)
        processes = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path), "8"],
                                      stdout=subprocess.PIPE, text=True, env=dict(os.environ))
                     for _ in range(4)]
        time.sleep(3.0)  # let them import and open the database before the start signal
        (tmp_path / "go").touch()
        outcomes = " ".join(p.communicate(timeout=120)[0] for p in processes).split()
        assert all(p.returncode == 0 for p in processes)
        assert outcomes.count("checked") == MAX_FAILURES
        assert outcomes.count("locked") == 32 - MAX_FAILURES
        assert wrong_password_entries(team) == MAX_FAILURES
    finally:
        team.close()


def test_a_right_password_does_not_count_against_the_client(tmp_path, team_backend):  # noqa: F811
    team = Team.open(tmp_path, hasher=fast_hasher())
    try:
        team.accounts.set_up("ana", "ana's password")
        for _ in range(MAX_FAILURES + 2):  # one office address, many good sign-ins
            assert team.accounts.authenticate("ana", "ana's password", client="office").name
        for _ in range(MAX_FAILURES - 1):
            with pytest.raises(LoginRefused, match="wrong name"):
                team.accounts.authenticate("bob", "guess one", client="office")
        assert team.accounts.authenticate("ana", "ana's password", client="office").name
        with pytest.raises(LoginRefused, match="wrong name"):  # the tenth wrong one is checked
            team.accounts.authenticate("carl", "guess one", client="office")
        with pytest.raises(LoginRefused, match="locked"):
            team.accounts.authenticate("ana", "ana's password", client="office")
    finally:
        team.close()
