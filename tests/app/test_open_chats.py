"""One conversation, one writer: a chat another live session has open is not opened to write
(``webapp.open_chats``); a session that is gone holds nothing."""

from __future__ import annotations

import pytest

from webapp import open_chats


@pytest.fixture(autouse=True)
def _no_sessions(monkeypatch):
    monkeypatch.setattr(open_chats, "_HELD", {})


def test_a_chat_open_in_a_live_session_is_held_from_every_other():
    open_chats.hold("chat-1", session="tab-a")
    alive = {"tab-a", "tab-b"}.__contains__
    assert open_chats.held_elsewhere("chat-1", session="tab-b", alive=alive)
    assert not open_chats.held_elsewhere("chat-1", session="tab-a", alive=alive)  # its own
    assert not open_chats.held_elsewhere("chat-2", session="tab-b", alive=alive)


def test_a_session_that_opens_another_chat_or_leaves_lets_go():
    open_chats.hold("chat-1", session="tab-a")
    open_chats.hold("chat-2", session="tab-a")  # it opened (or started) another chat
    assert not open_chats.held_elsewhere("chat-1", session="tab-b", alive=lambda s: True)
    open_chats.hold("chat-2", session="tab-c")
    assert not open_chats.held_elsewhere("chat-2", session="tab-b",
                                         alive=lambda s: s != "tab-a" and s != "tab-c")
    assert open_chats._HELD == {}  # the gone sessions were forgotten on the way


def test_outside_a_browser_session_nothing_is_held():
    open_chats.hold("chat-1")  # a script run by a test or the CLI: no session id
    assert open_chats._HELD == {}
