"""The team database's schema as numbered migrations, in SQLite's words (``team_db`` runs them;
``pg_team_db`` runs them in Postgres's words, ``postgres_dialect``, and adds its own)."""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    # 1: accounts, sessions, index owners and shares
    """
    CREATE TABLE users (
        id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: old rows name nobody new
        name TEXT NOT NULL UNIQUE COLLATE NOCASE,
        display TEXT NOT NULL DEFAULT '',
        password_hash TEXT NOT NULL,
        role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
        disabled INTEGER NOT NULL DEFAULT 0,
        created REAL NOT NULL
    );
    CREATE TABLE sessions (
        token_hash TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created REAL NOT NULL,
        last_seen REAL NOT NULL,
        expires REAL NOT NULL
    );
    CREATE INDEX sessions_by_user ON sessions(user_id);
    CREATE TABLE indexes (
        uid TEXT PRIMARY KEY,
        owner_id INTEGER REFERENCES users(id) ON DELETE SET NULL
    );
    CREATE TABLE grants (
        index_uid TEXT NOT NULL REFERENCES indexes(uid) ON DELETE CASCADE,
        user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
        level TEXT NOT NULL CHECK (level IN ('read', 'write'))
    );
    CREATE UNIQUE INDEX one_grant ON grants(index_uid, IFNULL(user_id, 0));
    CREATE INDEX grants_by_user ON grants(user_id);
    """,
    # 2: failed sign-ins, chat authors, the audit log
    """
    CREATE TABLE login_failures (
        key TEXT PRIMARY KEY,
        failures INTEGER NOT NULL,
        first_failed REAL NOT NULL,
        locked_until REAL NOT NULL DEFAULT 0
    );
    CREATE TABLE chat_authors (
        chat_id TEXT PRIMARY KEY,
        user_id INTEGER REFERENCES users(id) ON DELETE SET NULL
    );
    CREATE TABLE audit (
        id INTEGER PRIMARY KEY,
        at REAL NOT NULL,
        event TEXT NOT NULL,
        actor TEXT NOT NULL DEFAULT '',
        target TEXT NOT NULL DEFAULT '',
        ok INTEGER NOT NULL DEFAULT 1,
        detail TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX audit_by_time ON audit(at);
    """,
    # 3: accounts signed in through an identity provider (OIDC issuer and subject)
    """
    ALTER TABLE users ADD COLUMN identity TEXT;
    CREATE UNIQUE INDEX users_by_identity ON users(identity) WHERE identity IS NOT NULL;
    """,
)
