"""Password hashes: argon2id through argon2-cffi, never the password itself.

``hash_password`` makes a salted argon2id hash in the PHC string format
(``$argon2id$v=19$m=...,t=...,p=...$salt$hash``): the parameters travel with the hash, so a
hash made with weaker parameters still verifies, and ``needs_rehash`` says when a sign-in should
store a new one (``accounts.Accounts.authenticate`` does). A ``Hasher`` is injected: tests pass
``fast_hasher()`` so hashing takes microseconds, the app uses argon2-cffi's defaults (RFC 9106's
low-memory choice).
"""

from __future__ import annotations

from typing import Any

from ...errors import ConfigError

MIN_PASSWORD_CHARS = 8
MAX_PASSWORD_CHARS = 1024


def default_hasher() -> Any:
    """argon2-cffi's ``PasswordHasher`` with its defaults (argon2id, 64 MiB, 3 passes)."""
    return _argon2().PasswordHasher()


def fast_hasher() -> Any:
    """A cheap argon2id hasher for tests: still salted and one-way, just not slow."""
    return _argon2().PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


def check_password(password: str) -> None:
    """Refuse a password too short (or absurdly long) to set, saying what is needed."""
    if not isinstance(password, str) or len(password) < MIN_PASSWORD_CHARS:
        raise ConfigError(f"a password needs at least {MIN_PASSWORD_CHARS} characters: "
                          "choose a longer one (a few words are easy to remember)")
    if len(password) > MAX_PASSWORD_CHARS:
        raise ConfigError(f"a password may have at most {MAX_PASSWORD_CHARS} characters")


def hash_password(hasher: Any, password: str) -> str:
    check_password(password)
    return hasher.hash(password)


def verify_password(hasher: Any, stored: str, password: str) -> bool:
    """Whether ``password`` matches ``stored`` (False for a damaged or foreign hash too)."""
    exceptions = _argon2().exceptions
    try:
        return bool(hasher.verify(stored, password))
    except (exceptions.VerifyMismatchError, exceptions.VerificationError,
            exceptions.InvalidHashError):
        return False


def needs_rehash(hasher: Any, stored: str) -> bool:
    """Whether ``stored`` was made with other parameters than ``hasher``'s."""
    try:
        return bool(hasher.check_needs_rehash(stored))
    except _argon2().exceptions.InvalidHashError:
        return True


def _argon2() -> Any:
    try:
        import argon2
    except ImportError as exc:  # a dependency of ragcore: only a broken install lacks it
        raise ConfigError("team mode needs argon2-cffi: pip install argon2-cffi") from exc
    return argon2
