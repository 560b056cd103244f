"""Shop page fixtures: the flow tests' shoe shop and Swahili grocer, and a photo host."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from PIL import Image

from tests.flows.conftest import (  # noqa: F401 - fixtures shared with the flow tests
    all_tools_registered,
    daraja,
    mboga,
    stk_only_shop,
)


def photo_bytes(width: int = 1600, height: int = 1200) -> bytes:
    """A camera-sized JPEG with some detail (a flat colour would compress to nothing)."""
    picture = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    picture = Image.merge("RGB", (picture.split()[0], picture.rotate(90).split()[0],
                                  Image.effect_noise((width, height), 40)))  # fmt: skip
    out = io.BytesIO()
    picture.save(out, "JPEG", quality=90)
    return out.getvalue()


class PhotoHost:
    """The shop's photo server (a real local HTTP server) counting what it was asked."""

    def __init__(self) -> None:
        self.photo = photo_bytes()
        self.requests: list[str] = []
        self.redirect_to = ""
        host = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                host.requests.append(self.path)
                if host.redirect_to:
                    self.send_response(302)
                    self.send_header("Location", host.redirect_to)
                    self.end_headers()
                    return
                found = self.path.endswith(".jpg")
                self.send_response(200 if found else 404)
                self.send_header("Content-Type", "image/jpeg")
                self.end_headers()
                if found:
                    self.wfile.write(host.photo)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> PhotoHost:
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def photos(settings: Any, tmp_path: Any) -> Iterator[PhotoHost]:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    with PhotoHost() as host:
        yield host
