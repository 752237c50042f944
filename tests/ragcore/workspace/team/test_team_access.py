"""Team mode's access matrix: every object kind x every action, for a stranger, a reader, a
writer, the owner (the chat's author) and an admin; listings show only what may be listed."""

from __future__ import annotations

import pytest

from ragcore.errors import AccessDenied
from ragcore.workspace.team.access import RULES, Access, Resource
from ragcore.workspace.team.accounts import LOCAL_ADMIN
from ragcore.workspace.team.passwords import fast_hasher
from ragcore.workspace.team.team import Team
from support.team_backends import BACKENDS, backend_env, team_backend  # noqa: F401 - the fixture

INDEX = "uid-of-reports"
CHAT = "chat-of-owner"
PAIRS = [(kind, action) for kind, actions in RULES.items() for action in actions]
READER_MAY = {"list", "open", "query", "chat"}
WRITER_MAY = READER_MAY | {"ingest", "rename", "delete", "cancel", "resume"}
OWNER_ONLY = {("index", "delete"), ("index", "share")}  # not even with a write grant


@pytest.fixture(scope="module", params=BACKENDS)
def team(request, tmp_path_factory):
    with backend_env(request.param, request):
        yield from _people_and_shares(tmp_path_factory)


def _people_and_shares(tmp_path_factory):
    team = Team.open(tmp_path_factory.mktemp("team"), clock=lambda: 1000.0, hasher=fast_hasher())
    admin = team.accounts.set_up("admin", "admin password")
    people = {"admin": admin}
    for name in ("owner", "stranger", "reader", "writer"):
        people[name] = team.accounts.create(admin, name, f"{name} password")
    team.index_created(people["owner"], INDEX)
    team.share(people["owner"], INDEX, people["reader"], "read")
    team.share(people["owner"], INDEX, people["writer"], "write")
    team.chat_saved(people["owner"], CHAT)
    team.people = people
    yield team
    team.close()


def resource(kind: str) -> Resource:
    return Resource(kind, INDEX, CHAT if kind in ("chat", "export") else "")


def expected(role: str, kind: str, action: str) -> bool:
    if kind in ("chat", "export"):
        return role == "owner"  # the author only: not even an admin reads another's chat
    if role in ("owner", "admin"):
        return True
    if role == "reader":
        return action in READER_MAY
    if role == "writer":
        return action in WRITER_MAY and (kind, action) not in OWNER_ONLY
    return False


@pytest.mark.parametrize("kind,action", PAIRS)
@pytest.mark.parametrize("role", ["stranger", "reader", "writer", "owner", "admin"])
def test_each_person_may_do_exactly_what_their_grant_allows(team, role, kind, action):
    user = team.people[role]
    allowed = expected(role, kind, action)
    assert team.access.can(user, action, resource(kind)) is allowed
    listed = team.access.visible(user, [resource(kind)], lambda r: r)
    assert bool(listed) is expected(role, kind, "list")
    if allowed:
        team.access.require(user, action, resource(kind))
        return
    with pytest.raises(AccessDenied) as refused:
        team.access.require(user, action, resource(kind))
    message = str(refused.value)
    assert INDEX not in message and CHAT not in message  # names nothing it may not see
    assert "ask" in message or "your own chat" in message  # says what to do


def test_a_read_grant_lists_opens_queries_chats_but_never_renames_deletes_shares(team):
    reader = team.people["reader"]
    index = Resource("index", INDEX)
    assert all(team.access.can(reader, a, index) for a in ("list", "open", "query", "chat"))
    assert not any(team.access.can(reader, a, index) for a in ("rename", "delete", "share"))
    with pytest.raises(AccessDenied, match="owner"):
        team.share(reader, INDEX, team.people["stranger"], "read")


def test_refusals_are_in_the_audit_log(team):
    before = len(team.audit.read(team.people["admin"], event="denied"))
    with pytest.raises(AccessDenied):
        team.access.require(team.people["stranger"], "open", Resource("index", INDEX))
    denied = team.audit.read(team.people["admin"], event="denied")
    assert len(denied) == before + 1 and denied[0].actor == "stranger" and not denied[0].ok


def test_a_listing_keeps_the_order_and_drops_what_is_not_granted(team):
    other = "uid-of-another"
    team.index_created(team.people["stranger"], other)
    items = [("mine", other), ("theirs", INDEX), ("nobody's", "uid-unowned")]
    seen = team.access.visible(team.people["stranger"], items, lambda i: Resource("index", i[1]))
    assert seen == [("mine", other)]
    admin_sees = team.access.visible(team.people["admin"], items, lambda i: Resource("index", i[1]))
    assert admin_sees == items


def test_sharing_with_everyone_reaches_a_later_account(team):
    uid = "uid-for-all"
    team.index_created(team.people["owner"], uid)
    team.share(team.people["owner"], uid, None, "read")
    newcomer = team.accounts.create(team.people["admin"], "newcomer", "newcomer password")
    assert team.access.can(newcomer, "query", Resource("index", uid))
    assert not team.access.can(newcomer, "rename", Resource("index", uid))


def test_a_chat_whose_author_is_gone_belongs_to_the_admins(team):
    admin = team.people["admin"]
    leaver = team.accounts.create(admin, "leaver", "leaver password")
    team.chat_saved(leaver, "chat-of-leaver")
    chat = Resource("chat", INDEX, "chat-of-leaver")
    assert not team.access.can(admin, "open", chat)
    team.accounts.delete(admin, leaver)
    assert team.access.can(admin, "delete", chat)
    assert not team.access.can(team.people["owner"], "open", chat)


def test_the_author_cannot_go_on_chatting_once_the_index_is_no_longer_shared(team):
    reader = team.people["reader"]
    team.chat_saved(reader, "chat-of-reader")
    chat = Resource("chat", INDEX, "chat-of-reader")
    assert team.access.can(reader, "chat", chat)
    team.unshare(team.people["owner"], INDEX, reader)
    try:
        assert team.access.can(reader, "open", chat) and not team.access.can(reader, "chat", chat)
    finally:
        team.share(team.people["owner"], INDEX, reader, "read")


def test_a_disabled_account_may_do_nothing(team):
    admin = team.people["admin"]
    writer = team.people["writer"]
    team.accounts.set_disabled(admin, writer)
    disabled = team.accounts.get(writer.id)
    try:
        assert not team.access.can(disabled, "list", Resource("index", INDEX))
    finally:
        team.accounts.set_disabled(admin, writer, False)


def test_single_user_mode_lets_the_local_administrator_do_everything():
    access = Access.single_user()
    for kind, action in PAIRS:
        assert access.can(LOCAL_ADMIN, action, resource(kind))
    assert access.visible(LOCAL_ADMIN, [1, 2, 3], lambda i: Resource("index", str(i))) == [1, 2, 3]


def test_an_action_a_kind_has_not_is_a_programming_error():
    with pytest.raises(ValueError, match="actions"):
        Access.single_user().can(LOCAL_ADMIN, "share", Resource("job", INDEX))
    with pytest.raises(ValueError, match="chat_id"):
        Resource("chat", INDEX)


def test_a_job_follows_its_index_and_a_job_of_an_unknown_index_is_the_admins(team):
    from ragcore.workspace.team.access import job_resource
    from ragcore.workspace.jobs.journal import Job

    job = Job("ingest", "reports", index_uid=INDEX)
    assert team.access.can(team.people["writer"], "cancel", job_resource(job))
    assert not team.access.can(team.people["reader"], "cancel", job_resource(job))
    assert not team.access.can(team.people["stranger"], "list", job_resource(job))
    old = Job("ingest", "reports")  # made before jobs kept their index's uid
    assert team.access.can(team.people["admin"], "resume", job_resource(old))
    assert not team.access.can(team.people["owner"], "list", job_resource(old))


def test_a_share_made_in_one_process_applies_in_another_at_once(tmp_path,
                                                              team_backend):  # noqa: F811
    # two Team objects on one file stand for the app and the CLI (or two app processes)
    with Team.open(tmp_path, hasher=fast_hasher()) as app, \
            Team.open(tmp_path, hasher=fast_hasher()) as cli:
        ana = app.accounts.set_up("ana", "ana password")
        bob = cli.accounts.create(LOCAL_ADMIN, "bob", "bob password")
        app.index_created(ana, "uid-1")
        assert not app.access.can(bob, "open", Resource("index", "uid-1"))
        cli.share(LOCAL_ADMIN, "uid-1", bob, "read")
        assert app.access.can(bob, "open", Resource("index", "uid-1"))
        token = app.sessions.start(bob)
        cli.sessions.end_all(bob)
        assert app.sessions.user(token) is None


def test_many_threads_share_one_team(tmp_path, team_backend):  # noqa: F811
    from concurrent.futures import ThreadPoolExecutor

    with Team.open(tmp_path, hasher=fast_hasher()) as team:
        ana = team.accounts.set_up("ana", "ana password")
        bob = team.accounts.create(ana, "bob", "bob password")

        def work(number: int) -> bool:
            team.index_created(ana, f"uid-{number}")
            team.share(ana, f"uid-{number}", bob, "read")  # a transaction in each thread
            token = team.sessions.start(ana)
            return team.sessions.user(token) == ana and team.access.can(
                ana, "share", Resource("index", f"uid-{number}"))

        with ThreadPoolExecutor(8) as pool:
            assert all(pool.map(work, range(40)))
        assert len(team.grants.levels(ana)) == len(team.grants.levels(bob)) == 40
