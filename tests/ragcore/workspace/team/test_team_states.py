"""Team grants under random use (issue 22): a hypothesis state machine makes accounts and
indexes in a real workspace, shares and unshares them, renames and deletes indexes, deletes
accounts and restarts (reopens the team database), and checks after every step that each
person sees exactly the indexes they own or were granted (admins: all), that a rename changes
nobody's access, and that nothing deleted comes back: not a deleted index's shares (a later
index made in its folder starts private), not a deleted account. It runs on the workspace's
SQLite file and, with fewer examples, on Postgres (``RAGCORE_DATABASE_URL``)."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.errors import ConfigError
from ragcore.workspace import Workspace
from ragcore.workspace.team.access import Resource
from ragcore.workspace.names import delete_index, rename_index
from ragcore.workspace.team.passwords import fast_hasher
from ragcore.workspace.team.team import Team
from ragcore.workspace.team.team_db import DATABASE_ENV
from support.team_backends import drop_database, fresh_database

PEOPLE = ("ana", "bob", "cem", "dee")
FOLDERS = ("alpha", "beta", "gamma")
PICK = st.integers(0, 99)  # drawn blind, so every example replays exactly
LEVELS = st.sampled_from(["read", "write"])


def _pick(items, number: int):
    ordered = sorted(items)
    return ordered[number % len(ordered)]


class TeamMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.folder = Path(tempfile.mkdtemp(prefix="ragcore-team-"))
        self.workspace = Workspace(self.folder, embedder=FakeEmbedder())
        self.team = Team.open(self.folder, clock=lambda: 1000.0, hasher=fast_hasher())
        self.admin = self.team.accounts.set_up("root", "root password")
        self.roles = {"root": "admin"}  # the model: name -> role of each living account
        self.indexes: dict[str, str] = {}  # folder -> uid of each living index
        self.owner: dict[str, str | None] = {}  # uid -> owner's name
        self.shares: dict[str, dict[str | None, str]] = {}  # uid -> grantee (None: all) -> level
        self.gone_uids: set[str] = set()
        self.gone_people: set[str] = set()
        self.renames = 0

    def teardown(self) -> None:
        self.team.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def user(self, name: str):
        return self.team.accounts.find(name)

    # -- rules -------------------------------------------------------------------------------

    @rule(person=st.sampled_from(PEOPLE), admin=st.booleans())
    def create_user(self, person, admin):
        if person in self.roles:
            return
        role = "admin" if admin else "member"
        self.team.accounts.create(self.admin, person, f"{person} password", role=role)
        self.roles[person] = role
        self.gone_people.discard(person)

    @precondition(lambda self: len(self.indexes) < len(FOLDERS))
    @rule(folder=PICK, by=PICK)
    def create_index(self, folder, by):
        free = [f for f in FOLDERS if f not in self.indexes]
        folder, owner = _pick(free, folder), _pick(self.roles, by)
        self.workspace.create_index(folder)
        uid = self.workspace.record(folder).uid
        self.team.index_created(self.user(owner), uid)
        self.indexes[folder], self.owner[uid], self.shares[uid] = uid, owner, {}

    @precondition(lambda self: self.indexes)
    @rule(index=PICK, grantee=PICK, everyone=st.booleans(), level=LEVELS)
    def share(self, index, grantee, everyone, level):
        uid = self.indexes[_pick(self.indexes, index)]
        name = None if everyone else _pick(self.roles, grantee)
        self.team.share(self.actor_for(uid), uid, None if name is None else self.user(name),
                        level)
        self.shares[uid][name] = level

    @precondition(lambda self: self.indexes)
    @rule(index=PICK, grantee=PICK, everyone=st.booleans())
    def unshare(self, index, grantee, everyone):
        uid = self.indexes[_pick(self.indexes, index)]
        name = None if everyone else _pick(self.roles, grantee)
        had = self.team.unshare(self.actor_for(uid), uid,
                                None if name is None else self.user(name))
        assert had is (name in self.shares[uid])
        self.shares[uid].pop(name, None)

    @precondition(lambda self: self.indexes)
    @rule(index=PICK)
    def rename(self, index):
        self.renames += 1
        rename_index(self.workspace, _pick(self.indexes, index), f"Shown {self.renames}")

    @precondition(lambda self: self.indexes)
    @rule(index=PICK)
    def delete_index(self, index):
        folder = _pick(self.indexes, index)
        uid = self.indexes.pop(folder)
        by = self.actor_for(uid)
        self.team.access.require(by, "delete", Resource("index", uid))
        delete_index(self.workspace, folder)
        self.team.index_deleted(by, uid)
        self.gone_uids.add(uid)
        del self.owner[uid], self.shares[uid]

    @rule(person=PICK)
    def delete_user(self, person):
        name = _pick(self.roles, person)
        admins = [n for n, role in self.roles.items() if role == "admin"]
        by = self.user(_pick([a for a in admins if a != name] or admins, 0))
        if admins == [name]:
            try:
                self.team.accounts.delete(by, self.user(name))
            except ConfigError:
                return
            raise AssertionError("the last admin was deleted")
        self.team.accounts.delete(by, self.user(name))
        del self.roles[name]
        self.gone_people.add(name)
        for uid, owner in self.owner.items():
            if owner == name:
                self.owner[uid] = None
        for grants in self.shares.values():
            grants.pop(name, None)
        if name == self.admin.name:
            self.admin = self.user(_pick([a for a in admins if a != name], 0))

    @rule()
    def restart(self):
        self.team.close()
        self.team = Team.open(self.folder, clock=lambda: 1000.0, hasher=fast_hasher())
        self.workspace = Workspace(self.folder, embedder=FakeEmbedder())

    def actor_for(self, uid: str):
        """The owner when there is one, else an admin."""
        return self.user(self.owner[uid] or self.admin.name)

    # -- what must always hold ---------------------------------------------------------------

    def expected(self, name: str) -> set[str]:
        if self.roles[name] == "admin":
            return set(self.indexes.values())
        return {uid for uid in self.indexes.values()
                if self.owner[uid] == name or name in self.shares[uid] or None in self.shares[uid]}

    @invariant()
    def everyone_sees_exactly_what_is_theirs(self):
        folders = self.workspace.index_names()
        assert sorted(folders) == sorted(self.indexes)
        for name in self.roles:
            person = self.user(name)
            seen = self.team.access.visible(
                person, folders, lambda f: Resource("index", self.workspace.record(f).uid))
            assert {self.indexes[f] for f in seen} == self.expected(name), name

    @invariant()
    def a_write_grant_is_needed_to_rename_and_ownership_to_share(self):
        for name in self.roles:
            person = self.user(name)
            for uid in self.indexes.values():
                grants = self.shares[uid]
                level = max(grants.get(name, ""), grants.get(None, ""))
                owner = self.owner[uid] == name or self.roles[name] == "admin"
                index = Resource("index", uid)
                assert self.team.access.can(person, "rename", index) is (owner or level == "write")
                assert self.team.access.can(person, "share", index) is owner

    @invariant()
    def nothing_deleted_comes_back(self):
        rows = {row[0] for row in self.team.db.execute("SELECT uid FROM indexes")}
        granted = {row[0] for row in self.team.db.execute("SELECT index_uid FROM grants")}
        assert not (rows | granted) & self.gone_uids
        orphans = self.team.db.one("SELECT COUNT(*) FROM grants WHERE user_id IS NOT NULL AND "
                                   "user_id NOT IN (SELECT id FROM users)")[0]
        assert orphans == 0  # a deleted account's shares went with it
        assert all(self.user(name) is None for name in self.gone_people)
        assert {u.name for u in self.team.accounts.users()} == set(self.roles)


def test_grants_hold_under_random_use():
    run_state_machine_as_test(
        TeamMachine, settings=settings(max_examples=40, stateful_step_count=25, deadline=None))


class TeamMachineOnPostgres(TeamMachine):
    """The same machine with the team database, chats and jobs in Postgres (a fresh database
    per example, on the session's test server)."""

    server_url = ""

    def __init__(self) -> None:
        self.url = fresh_database(self.server_url)
        self.saved_url = os.environ.get(DATABASE_ENV)
        os.environ[DATABASE_ENV] = self.url
        super().__init__()

    def teardown(self) -> None:
        super().teardown()
        if self.saved_url is None:
            os.environ.pop(DATABASE_ENV, None)
        else:
            os.environ[DATABASE_ENV] = self.saved_url
        drop_database(self.url)


def test_grants_hold_under_random_use_on_postgres(postgres_url):
    TeamMachineOnPostgres.server_url = postgres_url
    run_state_machine_as_test(
        TeamMachineOnPostgres,
        settings=settings(max_examples=10, stateful_step_count=25, deadline=None))
