"""Team accounts: the one-time set-up, password hashes, sign-in throttling, sessions, the team
database's migrations, and the check that keeps single-user mode off the network."""

from __future__ import annotations


import pytest
from argon2 import PasswordHasher

from ragcore.errors import AccessDenied, ConfigError, LoginRefused, WorkspaceError
from ragcore.workspace.team.access import auth_mode, check_listen_address, is_loopback
from ragcore.workspace.team.passwords import fast_hasher
from ragcore.workspace.team.sessions import IDLE_SECONDS, LIFETIME_SECONDS
from ragcore.workspace.team.team import Team
from ragcore.workspace.team.team_db import MIGRATIONS, TEAM_FILE, open_team_db, schema_version
from ragcore.workspace.team.throttle import LOCK_SECONDS, MAX_FAILURES
from support.team_backends import team_backend  # noqa: F401 - the fixture: SQLite, then Postgres


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def team(tmp_path, clock, team_backend):  # noqa: F811
    team = Team.open(tmp_path, clock=clock, hasher=fast_hasher())
    yield team
    team.close()


@pytest.fixture
def admin(team):
    return team.accounts.set_up("ana", "ana's password")


def test_the_set_up_makes_the_first_admin_once(team, admin):
    assert admin.is_admin and team.accounts.has_admin()
    with pytest.raises(AccessDenied, match="already set up"):
        team.accounts.set_up("mallory", "a password too")
    assert [u.name for u in team.accounts.users()] == ["ana"]


def test_the_first_account_the_command_line_makes_is_an_admin(team):
    from ragcore.workspace.team.accounts import LOCAL_ADMIN

    first = team.accounts.create(LOCAL_ADMIN, "first", "first password")
    second = team.accounts.create(LOCAL_ADMIN, "second", "second password")
    assert first.role == "admin" and second.role == "member"


def test_a_member_may_not_manage_accounts(team, admin):
    bob = team.accounts.create(admin, "bob", "bob password")
    with pytest.raises(AccessDenied, match="only an admin"):
        team.accounts.create(bob, "eve", "eve password")
    with pytest.raises(AccessDenied):
        team.audit.read(bob)


def test_names_and_passwords_are_checked(team, admin):
    with pytest.raises(ConfigError, match="8 characters"):
        team.accounts.create(admin, "bob", "short")
    with pytest.raises(ConfigError, match="sign-in name"):
        team.accounts.create(admin, "bob smith", "long enough")
    with pytest.raises(ConfigError, match="exists already"):
        team.accounts.create(admin, "ANA", "long enough")


def test_passwords_are_never_stored_in_plain(tmp_path, team, admin):
    team.accounts.create(admin, "bob", "hunter2-the-secret")
    token = team.sessions.start(admin)
    if team.db.dialect == "sqlite":
        team.db.execute("PRAGMA wal_checkpoint(FULL)")
        stored = b"".join(p.read_bytes() for p in tmp_path.glob(f"{TEAM_FILE}*"))
    else:  # every row of every table, as text
        tables = ("users", "sessions", "audit", "login_failures")
        stored = repr([team.db.execute(f"SELECT * FROM {t}") for t in tables]).encode()
    assert b"hunter2-the-secret" not in stored and b"ana's password" not in stored
    assert token.encode() not in stored  # only the session token's hash is kept
    hashes = [row[0] for row in team.db.execute("SELECT password_hash FROM users")]
    assert all(h.startswith("$argon2id$") for h in hashes)


def test_a_hash_with_weaker_parameters_is_upgraded_at_sign_in(tmp_path, clock, team, admin):
    team.close()
    stronger = PasswordHasher(time_cost=2, memory_cost=16, parallelism=1)
    with Team.open(tmp_path, clock=clock, hasher=stronger) as again:
        old = again.db.one("SELECT password_hash FROM users")[0]
        again.accounts.authenticate("ana", "ana's password")
        new = again.db.one("SELECT password_hash FROM users")[0]
    assert "t=1" in old and "t=2" in new


def test_unknown_names_and_wrong_passwords_get_the_same_answer(team, admin):
    with pytest.raises(LoginRefused) as unknown:
        team.accounts.authenticate("nobody", "whatever1")
    with pytest.raises(LoginRefused) as wrong:
        team.accounts.authenticate("ana", "whatever1")
    assert str(unknown.value) == str(wrong.value)


def test_ten_wrong_passwords_lock_the_account_for_a_while(team, admin, clock):
    for _ in range(MAX_FAILURES):
        with pytest.raises(LoginRefused, match="wrong name or password"):
            team.accounts.authenticate("ana", "not my password", client="10.0.0.9")
    with pytest.raises(LoginRefused, match="locked") as locked:
        team.accounts.authenticate("ana", "ana's password", client="10.0.0.7")
    assert locked.value.retry_after == pytest.approx(LOCK_SECONDS)
    clock.now += LOCK_SECONDS - 1
    with pytest.raises(LoginRefused, match="locked"):
        team.accounts.authenticate("ana", "ana's password", client="10.0.0.7")
    clock.now += 2
    assert team.accounts.authenticate("ana", "ana's password", client="10.0.0.7").name == "ana"


def test_one_client_guessing_many_accounts_is_locked_too(team, admin):
    for number in range(MAX_FAILURES):
        with pytest.raises(LoginRefused):
            team.accounts.authenticate(f"guess{number}", "password1", client="203.0.113.5")
    with pytest.raises(LoginRefused, match="locked"):
        team.accounts.authenticate("ana", "ana's password", client="203.0.113.5")
    assert team.accounts.authenticate("ana", "ana's password", client="198.51.100.1")
    failed = team.audit.read(admin, event="login")
    assert sum(not entry.ok for entry in failed) == MAX_FAILURES


def test_a_password_reset_lifts_the_lockout_and_ends_sessions(team, admin):
    bob = team.accounts.create(admin, "bob", "bob password")
    token = team.sessions.start(bob)
    for _ in range(MAX_FAILURES):
        with pytest.raises(LoginRefused):
            team.accounts.authenticate("bob", "wrong password")
    team.accounts.reset_password(admin, bob, "a new password")
    assert team.sessions.user(token) is None
    assert team.accounts.authenticate("bob", "a new password") == bob


def test_a_disabled_account_cannot_sign_in_and_its_sessions_end(team, admin):
    bob = team.accounts.create(admin, "bob", "bob password")
    token = team.sessions.start(bob)
    team.accounts.set_disabled(admin, bob)
    assert team.sessions.user(token) is None
    with pytest.raises(LoginRefused, match="disabled"):
        team.accounts.authenticate("bob", "bob password")


def test_the_last_admin_stays(team, admin):
    for change in (lambda: team.accounts.delete(admin, admin),
                   lambda: team.accounts.set_disabled(admin, admin),
                   lambda: team.accounts.set_role(admin, admin, "member")):
        with pytest.raises(ConfigError, match="last admin"):
            change()
    other = team.accounts.create(admin, "other", "other password", role="admin")
    team.accounts.delete(other, admin)
    assert team.accounts.find("ana") is None


def test_sessions_expire_when_idle_and_when_old(team, admin, clock):
    token = team.sessions.start(admin)
    clock.now += IDLE_SECONDS - 10
    assert team.sessions.user(token) == admin
    clock.now += IDLE_SECONDS - 10  # used just before: still alive
    assert team.sessions.user(token) == admin
    clock.now += IDLE_SECONDS
    assert team.sessions.user(token) is None
    used = team.sessions.start(admin)
    for _ in range(int(LIFETIME_SECONDS // (IDLE_SECONDS / 2)) + 1):
        clock.now += IDLE_SECONDS / 2
        team.sessions.user(used)
    assert team.sessions.user(used) is None  # in use all along, but older than its lifetime


def test_logging_out_everywhere_ends_every_session(team, admin):
    tokens = [team.sessions.start(admin) for _ in range(3)]
    team.sessions.end(tokens[0])
    assert team.sessions.user(tokens[0]) is None and team.sessions.count(admin) == 2
    assert team.sessions.end_all(admin) == 2
    assert all(team.sessions.user(t) is None for t in tokens)
    assert team.sessions.user("made-up-token") is None and team.sessions.user("") is None


def test_an_empty_database_gets_every_migration(tmp_path):
    db = open_team_db(tmp_path / TEAM_FILE)
    assert schema_version(db) == len(MIGRATIONS)
    assert db.one("PRAGMA foreign_keys")[0] == 1
    assert db.one("PRAGMA journal_mode")[0] == "wal"
    db.close()


def test_a_version_1_database_is_brought_up_to_date_keeping_its_accounts(tmp_path, clock):
    old = open_team_db(tmp_path / TEAM_FILE, upto=1)
    old.execute("INSERT INTO users (name, password_hash, role, created) VALUES "
                "('ana', ?, 'admin', 1)", (fast_hasher().hash("ana's password"),))
    old.execute("INSERT INTO indexes (uid, owner_id) VALUES ('u1', 1)")
    assert schema_version(old) == 1
    old.close()
    with Team.open(tmp_path, clock=clock, hasher=fast_hasher()) as team:
        assert schema_version(team.db) == len(MIGRATIONS)
        ana = team.accounts.authenticate("ana", "ana's password")  # writes the v2 audit table
        assert team.grants.level("u1", ana) == "owner"
        assert team.audit.read(ana, event="login")[0].actor == "ana"


def test_a_database_from_a_newer_ragcore_or_a_damaged_one_is_refused(tmp_path):
    db = open_team_db(tmp_path / TEAM_FILE)
    db.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    db.close()
    with pytest.raises(WorkspaceError, match="upgrade ragcore"):
        open_team_db(tmp_path / TEAM_FILE)
    (tmp_path / "other.sqlite3").write_bytes(b"not a database at all" * 100)
    with pytest.raises(WorkspaceError, match="not a readable team database"):
        open_team_db(tmp_path / "other.sqlite3")


def test_deleting_an_account_deletes_its_shares_and_sessions(team, admin,
                                                           team_backend):  # noqa: F811
    bob = team.accounts.create(admin, "bob", "bob password")
    team.index_created(admin, "u1")
    team.share(admin, "u1", bob, "write")
    team.sessions.start(bob)
    team.accounts.delete(admin, bob)
    counts = [team.db.one(f"SELECT COUNT(*) FROM {table}")[0] for table in ("grants", "sessions")]
    assert counts == [0, 0]
    assert team.db.dialect == ("postgres" if team_backend else "sqlite")


@pytest.mark.parametrize("value,mode", [(None, "none"), ("", "none"), ("LOCAL", "local"),
                                        ("oidc", "oidc")])
def test_the_team_mode_comes_from_ragcore_auth(value, mode):
    environ = {} if value is None else {"RAGCORE_AUTH": value}
    assert auth_mode(environ) == mode


def test_an_unknown_team_mode_is_refused_with_the_choices():
    with pytest.raises(ConfigError, match="none, local, oidc"):
        auth_mode({"RAGCORE_AUTH": "ldap"})


@pytest.mark.parametrize("address,loopback", [("localhost", True), ("127.0.0.1", True),
                                              ("::1", True), ("[::1]", True), ("0.0.0.0", False),
                                              ("", False), (None, False), ("192.168.1.4", False),
                                              ("example.org", False)])
def test_loopback_addresses(address, loopback):
    assert is_loopback(address) is loopback


def test_single_user_mode_is_refused_on_a_network_address_unless_meant():
    check_listen_address("localhost", "none", environ={})
    check_listen_address("0.0.0.0", "local", environ={})
    with pytest.raises(ConfigError, match="RAGCORE_AUTH=local"):
        check_listen_address("0.0.0.0", "none", environ={})
    check_listen_address("0.0.0.0", "none", environ={"RAGCORE_ALLOW_OPEN": "1"})


def test_signing_in_to_ones_own_account_does_not_reset_a_clients_count(team, admin):
    for number in range(MAX_FAILURES - 1):
        with pytest.raises(LoginRefused):
            team.accounts.authenticate(f"guess{number}", "password1", client="203.0.113.5")
    team.accounts.authenticate("ana", "ana's password", client="203.0.113.5")
    with pytest.raises(LoginRefused):
        team.accounts.authenticate("guess-last", "password1", client="203.0.113.5")
    with pytest.raises(LoginRefused, match="locked"):
        team.accounts.authenticate("ana", "ana's password", client="203.0.113.5")
