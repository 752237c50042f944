"""One index's sharing in team mode: who has it, and (for its owner or an admin) the form to
share it with an account or everyone, read-only or read-write, and to take a share back
(issue 22; not yet wired into the Indexes page).

People who may not share the index see only who owns it and what they hold themselves; the
change goes through ``Team.share``/``unshare``, which check the policy again and write the audit
log. The index is named by its uid, so a rename changes nothing here.
"""

from __future__ import annotations

import streamlit as st

from ragcore.errors import AccessDenied
from ragcore.workspace.team import Resource, Team, User
from ragcore.present import literal_markdown

EVERYONE = "Everyone"
LEVEL_WORDS = {"read": "can read and chat", "write": "can also add and remove files"}


def sharing_panel(team: Team, user: User, uid: str, shown: str) -> None:
    """The sharing of index ``uid`` (shown as ``shown``) as ``user`` may see and change it."""
    if not team.access.can(user, "list", Resource("index", uid)):
        return  # not theirs to see: nothing, not even that it exists
    names = {u.id: u for u in team.accounts.users()}
    owner = names.get(team.grants.owner(uid))
    st.caption(f"Owner: {owner.shown if owner else 'none (admins only)'}")
    if not team.access.can(user, "share", Resource("index", uid)):
        held = team.grants.level(uid, user) or ("admin" if user.is_admin else "")
        st.caption(f"You {LEVEL_WORDS.get(held, 'have access')}. Ask its owner to change that.")
        return
    _current_shares(team, user, uid, names)
    _share_form(team, user, uid, shown, names, owner)


def _current_shares(team: Team, user: User, uid: str, names: dict[int, User]) -> None:
    shares = team.grants.shares(uid)
    if not shares:
        st.caption("Private: nobody else sees it (admins aside).")
    for number, share in enumerate(shares):
        whom = EVERYONE if share.user_id is None else names[share.user_id].shown
        left, right = st.columns([4, 1])
        left.write(f"{whom}: {LEVEL_WORDS[share.level]}")
        if right.button("Remove", key=f"unshare_{uid}_{number}"):
            grantee = None if share.user_id is None else names[share.user_id]
            _apply(lambda: team.unshare(user, uid, grantee))


def _share_form(team: Team, user: User, uid: str, shown: str, names: dict[int, User],
                owner: User | None) -> None:
    choices = [EVERYONE] + [u.name for u in names.values()
                            if not u.disabled and (owner is None or u.id != owner.id)]
    with st.form(f"share_{uid}"):
        st.markdown(f"**Share “{shown}”**")
        whom = st.selectbox("With", choices, key=f"share_with_{uid}")
        level = st.radio("They", list(LEVEL_WORDS), format_func=LEVEL_WORDS.get,
                         horizontal=True, key=f"share_level_{uid}")
        submitted = st.form_submit_button("Share")
    if submitted and whom is not None:
        grantee = None if whom == EVERYONE else team.accounts.require(whom)
        _apply(lambda: team.share(user, uid, grantee, level))


def _apply(change) -> None:
    try:
        change()
    except AccessDenied as exc:
        st.error(literal_markdown(str(exc)))
        return
    st.rerun()
