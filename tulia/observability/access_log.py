"""Gunicorn's access log, scrubbed like every other log line.

Gunicorn writes its access lines itself, outside Django's logging, so the request
line and path pass through the same secret shapes (payment callback secrets above all)
before they are formatted.
"""

from __future__ import annotations

from typing import Any

from gunicorn.glogging import Logger

from tulia.observability.logs import scrub_text


class ScrubbingLogger(Logger):
    def atoms(self, resp: Any, req: Any, environ: Any, request_time: Any) -> dict[str, Any]:
        atoms: dict[str, Any] = super().atoms(resp, req, environ, request_time)
        return {k: scrub_text(v) if isinstance(v, str) else v for k, v in atoms.items()}
