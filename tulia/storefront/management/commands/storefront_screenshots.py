"""Screenshots of shop pages at 360 px for the README, taken in Debian's Chromium.

    TULIA_PROFILE=dev .venv/bin/python manage.py storefront_screenshots [--seed]

Serves the app from this process (a threaded WSGI server on loopback, the configured
database), opens each shop's catalog, a search, a product and its info page on a
360 x 640 screen, and writes palette PNGs (a few tens of KB each) to docs/screenshots/.
"""

from __future__ import annotations

import io
import os
import threading
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
from django.core.wsgi import get_wsgi_application
from PIL import Image

from tenants.context import tenant_context
from tenants.models import Tenant
from tulia.commerce.models import CatalogItem, Variant

CHROMIUM = Path(os.environ.get("TULIA_CHROMIUM", "/usr/bin/chromium"))
SCREEN = {"width": 360, "height": 640}
COLOURS = 96  # a palette keeps text sharp and the files small
# The demo shops, each with a search in its own language.
SHOPS = {"kicks-nairobi": "sneakers", "mama-mboga": "mboga"}


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def _serve() -> tuple[ThreadedWSGIServer, str]:
    server = ThreadedWSGIServer(("127.0.0.1", 0), QuietHandler)
    server.set_app(get_wsgi_application())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def _product_id(tenant: Tenant) -> int | None:
    """An in-stock item with sizes when the shop has one: the page with most to show."""
    with tenant_context(tenant.id) as tid:
        items = CatalogItem.objects.filter(tenant_id=tid, is_active=True, in_stock=True)
        sized = Variant.objects.filter(tenant_id=tid, stock__gt=0).values("item_id")
        chosen = items.filter(pk__in=sized).order_by("id").first() or items.order_by("id").first()
    return chosen.pk if chosen else None


def _small_png(raw: bytes, path: Path) -> int:
    picture = Image.open(io.BytesIO(raw)).convert("RGB").quantize(COLOURS)
    picture.save(path, "PNG", optimize=True)
    return path.stat().st_size


class Command(BaseCommand):
    help = "Write 360-px screenshots of the demo shops' pages to docs/screenshots/."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--seed", action="store_true", help="seed the demo shops first")
        parser.add_argument("--out", default=str(Path(settings.BASE_DIR) / "docs" / "screenshots"))

    def handle(self, *args: Any, **options: Any) -> None:
        from playwright.sync_api import sync_playwright

        if options["seed"]:
            call_command("seed_demo", verbosity=0)
        out = Path(options["out"])
        out.mkdir(parents=True, exist_ok=True)
        os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # ORM beside Playwright
        server, base = _serve()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"]
                )
                page = browser.new_page(viewport=SCREEN, is_mobile=True)  # type: ignore[arg-type]
                for slug, query in SHOPS.items():
                    self._shop(page, base, slug, query, out)
                browser.close()
        finally:
            server.shutdown()

    def _shop(self, page: Any, base: str, slug: str, query: str, out: Path) -> None:
        tenant = Tenant.objects.filter(slug=slug).first()
        if tenant is None:
            self.stderr.write(f"{slug}: no such shop (run with --seed)")
            return
        item = _product_id(tenant)
        views = {"catalog": "", "search": f"?q={query}", "info": "info/"}
        if item is not None:
            views["product"] = f"p/{item}/"
        for name, path in views.items():
            response = page.goto(f"{base}/shop/{slug}/{path}", wait_until="networkidle")
            if response is None or response.status != 200:
                self.stderr.write(f"{slug} {name}: HTTP {response.status if response else '?'}")
                continue
            target = out / f"storefront-{slug}-{name}.png"
            size = _small_png(page.screenshot(), target)
            self.stdout.write(f"{target.relative_to(settings.BASE_DIR)} ({size // 1024} KB)")
