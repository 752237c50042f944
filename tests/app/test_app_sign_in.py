"""The sign-in gate (webapp/team/sign_in.py), headless with AppTest on a one-line page: nothing to
do in single-user mode; in team mode the one-time set-up, sign-in, the lockout after 10 wrong
passwords, and log out."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.workspace.team.passwords import fast_hasher
from ragcore.workspace.team.team import Team
from ragcore.workspace.team.throttle import MAX_FAILURES

TIMEOUT = 30


def page():
    import os
    from pathlib import Path

    import streamlit as st

    from webapp.team.sign_in import account_menu, gate

    team, user = gate(Path(os.environ["RAGCORE_WORKSPACE"]))
    account_menu(team, user)
    st.write(f"hello {user.name}")


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(tmp_path))
    return tmp_path


def start() -> AppTest:
    return AppTest.from_function(page, default_timeout=TIMEOUT).run()


def texts(at: AppTest) -> str:
    """The page's words; an error as it reads (its Markdown escapes, "RAGCORE\\_AUTH", drawn
    as the characters they stand for)."""
    errors = (re.sub(r"\\(.)", r"\1", e.value) for e in at.error)
    return " ".join(m.value for m in at.markdown) + " ".join(errors)


def sign_in(at: AppTest, name: str, password: str) -> AppTest:
    at.text_input(key="sign_in_name").input(name)
    at.text_input(key="sign_in_password").input(password)
    return at.button[0].click().run()


def test_single_user_mode_asks_nobody(workspace, monkeypatch):
    monkeypatch.delenv("RAGCORE_AUTH", raising=False)
    at = start()
    assert "hello local" in texts(at) and not at.text_input
    assert not (workspace / "team.sqlite3").exists()


def test_the_first_visit_sets_up_the_admin(workspace, monkeypatch):
    monkeypatch.setenv("RAGCORE_AUTH", "local")
    at = start()
    assert at.title[0].value == "Set up this workspace" and "hello" not in texts(at)
    at.text_input(key="set_up_name").input("ana")
    at.text_input(key="set_up_password").input("ana's password")
    at.text_input(key="set_up_again").input("ana's password")
    at = at.button[0].click().run()
    assert "hello ana" in texts(at)
    with Team.open(workspace, hasher=fast_hasher()) as team:
        assert team.accounts.find("ana").is_admin


def test_sign_in_lock_out_and_log_out(workspace, monkeypatch):
    monkeypatch.setenv("RAGCORE_AUTH", "local")
    with Team.open(workspace) as team:
        admin = team.accounts.set_up("ana", "ana's password")
        team.accounts.create(admin, "bob", "bob password")
    at = start()
    assert at.title[0].value == "Sign in"
    at = sign_in(at, "bob", "not his password")
    assert "wrong name or password" in texts(at)
    at = sign_in(at, "bob", "bob password")
    assert "hello bob" in texts(at)
    at = at.sidebar.button(key="log_out").click().run()
    assert at.title[0].value == "Sign in" and "hello" not in texts(at)
    for _ in range(MAX_FAILURES):
        at = sign_in(at, "bob", "a wrong guess")
    at = sign_in(at, "bob", "bob password")
    assert "locked" in texts(at) and "hello" not in texts(at)


def address_page():
    import streamlit as st

    from webapp.team.sign_in import check_address

    check_address()
    st.write("serving")


@pytest.mark.parametrize("auth,allowed", [("", False), ("local", True)])
def test_single_user_mode_is_not_served_to_a_network(monkeypatch, auth, allowed):
    from streamlit import config

    monkeypatch.setenv("RAGCORE_AUTH", auth)
    monkeypatch.delenv("RAGCORE_ALLOW_OPEN", raising=False)
    previous = config.get_option("server.address")
    config.set_option("server.address", "0.0.0.0")
    try:
        at = AppTest.from_function(address_page, default_timeout=TIMEOUT).run()
    finally:
        config.set_option("server.address", previous)
    assert ("serving" in texts(at)) is allowed
    assert ("RAGCORE_AUTH=local" in texts(at)) is not allowed


def test_oidc_mode_without_a_provider_fails_closed(workspace, monkeypatch):
    monkeypatch.setenv("RAGCORE_AUTH", "oidc")
    at = AppTest.from_function(page, default_timeout=TIMEOUT)
    at.user = {}  # no [auth] section in secrets.toml: st.user has no is_logged_in
    at.run()
    assert "needs your identity provider" in texts(at) and "hello" not in texts(at)


def oidc_app(**claims) -> AppTest:
    at = AppTest.from_function(page, default_timeout=TIMEOUT)
    at.user = {"is_logged_in": bool(claims), **claims}
    return at.run()


def test_oidc_sign_in_maps_the_provider_s_person_to_one_account(workspace, monkeypatch):
    monkeypatch.setenv("RAGCORE_AUTH", "oidc")
    at = oidc_app()
    assert at.title[0].value == "Sign in" and "hello" not in texts(at)
    ana = dict(iss="https://id.example", sub="a-1", email="ana@example.org", name="Ana")
    at = oidc_app(**ana)
    assert "hello ana" in texts(at)  # the first person becomes the admin
    at.run()  # a rerun reads the account again, without a second sign-in in the audit log
    bob = oidc_app(iss="https://id.example", sub="b-2", email="bob@example.org")
    assert "hello bob" in texts(bob)
    with Team.open(workspace, hasher=fast_hasher()) as team:
        admin = team.accounts.require("ana")
        assert admin.is_admin and not team.accounts.require("bob").is_admin
        logins = [e for e in team.audit.read(admin, event="login") if e.actor == "ana"]
        assert len(logins) == 1
        team.accounts.set_disabled(admin, team.accounts.require("bob"), True)
    again = oidc_app(iss="https://id.example", sub="b-2", email="bob@example.org")
    assert "disabled" in texts(again) and "hello" not in texts(again)


def password_page():
    import os
    from pathlib import Path

    import streamlit as st

    from webapp.team.sign_in import gate, password_form

    team, user = gate(Path(os.environ["RAGCORE_WORKSPACE"]))
    st.write(f"hello {user.name}")
    password_form(team, user)


def test_changing_ones_password_keeps_this_session_and_ends_the_others(workspace, monkeypatch):
    monkeypatch.setenv("RAGCORE_AUTH", "local")
    with Team.open(workspace, hasher=fast_hasher()) as team:
        ana = team.accounts.set_up("ana", "ana's password")
        elsewhere = team.sessions.start(ana)
    at = sign_in(AppTest.from_function(password_page, default_timeout=TIMEOUT).run(),
                 "ana", "ana's password")
    at.text_input(key="password_old").input("ana's password")
    at.text_input(key="password_new").input("a better password")
    at.text_input(key="password_again").input("a better password")
    at = next(b for b in at.button if b.label == "Change my password").click().run()
    assert "Password changed" in " ".join(s.value for s in at.success)
    at = at.run()
    assert "hello ana" in texts(at)  # this tab stays signed in
    with Team.open(workspace, hasher=fast_hasher()) as team:
        assert team.sessions.user(elsewhere) is None
        assert team.accounts.authenticate("ana", "a better password").name == "ana"


def test_a_damaged_team_database_is_named_on_the_page(workspace, monkeypatch):
    monkeypatch.setenv("RAGCORE_AUTH", "local")
    (workspace / "team.sqlite3").write_bytes(b"this is not a database" * 200)
    at = start()
    assert "not a readable team database" in texts(at) and "hello" not in texts(at)
    assert not at.exception


def cookie_scripts(at: AppTest) -> list[str]:
    return [str(element.proto) for element in at.get("html")]


def test_the_cookie_keeps_a_sign_in_until_its_session_ends(workspace, monkeypatch):
    from webapp.team import session_cookie

    monkeypatch.setenv("RAGCORE_AUTH", "local")
    with Team.open(workspace, hasher=fast_hasher()) as team:
        admin = team.accounts.set_up("ana", "ana's password")
        team.accounts.create(admin, "bob", "bob password")
        token = team.sessions.start(team.accounts.require("bob"))
    sent = {}
    monkeypatch.setattr(session_cookie, "read", lambda: sent.get("cookie"))
    at = sign_in(start(), "bob", "bob password")  # the sign-in writes the cookie once
    assert "hello bob" in texts(at)
    written = cookie_scripts(at)
    assert len(written) == 1 and "ragcore_session" in written[0] and "SameSite=Strict" in written[0]
    assert not cookie_scripts(at.run())
    sent["cookie"] = token  # a reload: a new browser session sends the cookie
    assert "hello bob" in texts(start())
    with Team.open(workspace, hasher=fast_hasher()) as team:
        team.sessions.end_all(team.accounts.require("bob"))  # log out everywhere
    again = start()
    assert again.title[0].value == "Sign in" and "hello" not in texts(again)


def test_log_out_clears_the_cookie_and_everything_the_session_held(workspace, monkeypatch):
    monkeypatch.setenv("RAGCORE_AUTH", "local")
    with Team.open(workspace, hasher=fast_hasher()) as team:
        team.accounts.set_up("ana", "ana's password")
    at = sign_in(start(), "ana", "ana's password")
    at.session_state["open_chat"] = "ana's chat"
    at = at.sidebar.button(key="log_out").click().run()
    assert at.title[0].value == "Sign in" and "open_chat" not in at.session_state
    assert any("Max-Age=0" in script for script in cookie_scripts(at))


def test_the_throttle_counts_the_proxy_s_address_only_when_it_is_trusted(monkeypatch):
    import streamlit as st

    from webapp.team import sign_in as gate_module

    class Context:
        ip_address = "10.0.0.5"  # the proxy
        headers = {"X-Forwarded-For": "6.6.6.6, 203.0.113.9"}  # client-written, proxy-added

    monkeypatch.setattr(st, "context", Context())
    monkeypatch.delenv("RAGCORE_TRUSTED_PROXY", raising=False)
    assert gate_module._client() == "10.0.0.5"
    monkeypatch.setenv("RAGCORE_TRUSTED_PROXY", "1")
    assert gate_module._client() == "203.0.113.9"
