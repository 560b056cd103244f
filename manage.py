#!/usr/bin/env python
"""Django's command-line utility for Tulia.

Outside production, commands that read or write data first start (or reuse) the
embedded PostgreSQL and Redis; the few that need no server (help, check, ...) do not.
"""

import os
import sys

# Commands that never touch the database or Redis.
NO_SERVERS = frozenset({"help", "--help", "-h", "version", "--version", "check", "diffsettings"})


def _needs_servers(argv: list[str]) -> bool:
    command = argv[1] if len(argv) > 1 else "help"
    return command not in NO_SERVERS and os.environ.get("TULIA_PROFILE") != "production"


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tulia.settings")
    if _needs_servers(sys.argv):
        from tulia import embedded

        embedded.start(os.environ.get("TULIA_PROFILE") or "dev")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
