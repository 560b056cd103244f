"""Two PostgreSQL roles: an owner that migrates, a runtime role that only reads and writes.

Row-Level Security is only as strong as the role it constrains. A table's owner can
`ALTER TABLE ... DISABLE ROW LEVEL SECURITY`, drop its policies or replace the policy
functions, so the application must not connect as the owner. The owner role
(`DATABASE_OWNER_URL`, embedded: `tulia_owner`) owns the tables and the RLS functions and
runs `migrate`; the runtime role (`DATABASE_URL`, `tulia`) gets plain DML grants.

`as_owner` swaps a connection's credentials for the length of a block; only `migrate`
(tenants/management/commands/migrate.py) and the test-database setup use it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

_CREDENTIALS = ("USER", "PASSWORD")


def switch_to_owner(alias: str = DEFAULT_DB_ALIAS) -> Callable[[], None]:
    """Reconnect `alias` as the owner role; return the call that switches back."""
    owner = settings.DATABASE_OWNER
    connection = connections[alias]
    if not owner or connection.settings_dict.get("USER") == owner["USER"]:
        return lambda: None
    saved = {key: connection.settings_dict.get(key) for key in _CREDENTIALS}
    connection.close()
    connection.settings_dict.update({key: owner.get(key) for key in _CREDENTIALS})

    def restore() -> None:
        connection.close()
        connection.settings_dict.update(saved)

    return restore


@contextmanager
def as_owner(alias: str = DEFAULT_DB_ALIAS) -> Iterator[None]:
    restore = switch_to_owner(alias)
    try:
        yield
    finally:
        restore()


def runtime_privileges() -> str:
    # TRUNCATE ignores RLS; only the test suite's flush between transactional tests needs it.
    base = "SELECT, INSERT, UPDATE, DELETE"
    return f"{base}, TRUNCATE" if settings.TULIA_PROFILE == "test" else base
