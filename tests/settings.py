"""The settings pytest loads (pyproject's DJANGO_SETTINGS_MODULE): the platform's own,
after starting the test profile's embedded PostgreSQL and Redis.

pytest-django imports this before any conftest runs, so this is the one place a test
run can start them. They keep running between runs, so the next run starts at once;
`make stop-servers` stops them.
"""

from __future__ import annotations

import os

from tulia import embedded

embedded.start(os.environ.get("TULIA_PROFILE") or "test")

from tulia.settings import *  # noqa: E402, F403
