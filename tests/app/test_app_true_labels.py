"""Every label true (issue 66), the third walk's list, headless: the README counts the chat
modes the library and the app offer; ...
"""

from __future__ import annotations

import re
from pathlib import Path

from ragcore.chat import ChatMode
from webapp.chat.chat_modes import PEOPLE_MODES

README = Path(__file__).resolve().parents[2] / "README.md"
NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}


def chat_mode_counts(text: str) -> tuple[int, int]:
    """(the modes the README says the library chats in, those it says the Chat page offers)."""
    flat = " ".join(text.split())
    library = re.search(r"chat in (\w+) modes", flat)
    offered = re.search(r"(\w+) of them offered by name on the app's Chat page", flat)
    return (NUMBERS.get(library.group(1), -1) if library else -1,
            NUMBERS.get(offered.group(1), -1) if offered else -1)


def test_the_readme_counts_the_chat_modes_there_are():
    """The walk: the README said "five modes" while the library has six and the app names four."""
    assert chat_mode_counts(README.read_text(encoding="utf-8")) == (len(ChatMode),
                                                                    len(PEOPLE_MODES))
