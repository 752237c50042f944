"""Sign-in through the organisation's identity provider (``RAGCORE_AUTH=oidc``, issue 22).

Streamlit does the OpenID Connect dance itself: ``st.login()`` sends the browser to the
provider named in ``.streamlit/secrets.toml`` (``[auth]``: ``redirect_uri``, ``cookie_secret``,
``client_id``, ``client_secret``, ``server_metadata_url``) and keeps the signed-in person in
its own cookie; ``st.user`` gives the ID token's claims. ``oidc_gate`` maps the issuer and
subject to one account (``identities.sign_in_identity``: made at the first sign-in, the admin
when the workspace has none) and stops the page while nobody is signed in. The ``sessions``
table is not used in this mode; roles, shares, the audit log and the policy are the same.
Log out is ``st.logout()`` (``sign_in.sign_out``).
"""

from __future__ import annotations

import streamlit as st

from ragcore.errors import LoginRefused
from ragcore.workspace.team import User, sign_in_identity
from ragcore.present import literal_markdown
from webapp.session import session



def oidc_gate(team) -> User:
    """The account of the person the provider signed in; else the sign-in button, and stop."""
    if "is_logged_in" not in st.user:  # no [auth] section: fail closed, say what to write
        st.error("RAGCORE_AUTH=oidc needs your identity provider in .streamlit/secrets.toml: "
                 "an [auth] section with redirect_uri, cookie_secret, client_id, "
                 "client_secret and server_metadata_url (README: Sharing with a team)")
        st.stop()
    if not st.user.is_logged_in:
        del session.oidc_account
        st.title("Sign in")
        st.write("This workspace signs people in with your organisation's account.")
        st.button("Sign in with your organisation", type="primary", on_click=st.login)
        st.stop()
    claims = st.user.to_dict()
    key = f"{claims.get('iss')}#{claims.get('sub')}"
    known = session.oidc_account
    if known and known[0] == key:  # signed in earlier in this session: read the account again
        user = team.accounts.get(known[1])
        if user is not None and not user.disabled:
            return user
    try:  # once per browser session: it writes the sign-in to the audit log
        user = sign_in_identity(team.accounts, str(claims.get("iss") or ""),
                                str(claims.get("sub") or ""),
                                email=str(claims.get("email") or ""),
                                display=str(claims.get("name") or ""))
    except LoginRefused as exc:  # disabled, or no account and none may be made
        del session.oidc_account
        st.error(literal_markdown(str(exc)))
        st.button("Log out", on_click=st.logout)
        st.stop()
    session.oidc_account = (key, user.id)
    return user
