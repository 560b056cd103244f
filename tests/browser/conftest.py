"""A real headless Chromium (Debian's `chromium`) driven by Playwright, for pages people use.

Playwright's own browser download is never used: the tests launch the system browser at
`TULIA_CHROMIUM` (default /usr/bin/chromium), which `make install` puts on the machine.
Pages are served by pytest-django's `live_server`, a real threaded HTTP server on loopback.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = Path(os.environ.get("TULIA_CHROMIUM", "/usr/bin/chromium"))
# The flags keep a sandboxed, offline machine quiet: no sandbox as root, no background
# calls home (they fail here and slow every start), no GPU.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 768}


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    # Playwright's sync API keeps an event loop on this thread; the ORM calls the tests
    # make between page actions are still plain synchronous calls.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport=LAPTOP)  # type: ignore[arg-type]
    opened = context.new_page()
    yield opened
    context.close()


@pytest.fixture
def phone_page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)  # type: ignore[arg-type]
    opened = context.new_page()
    yield opened
    context.close()


def horizontal_overflow(page: Page) -> Any:
    """Pixels the document is wider than the viewport (0 means no sideways scroll).

    Waits for the page a click may still be loading: mid-navigation the new document
    has no root element yet, and measuring it then fails instead of measuring."""
    page.wait_for_load_state("load")
    page.wait_for_function("() => document.documentElement !== null && document.body !== null")
    return page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


SMALL_PHONE = {"width": 360, "height": 640}


@contextmanager
def small_phone_page(browser: Browser, *, javascript: bool = True) -> Iterator[Page]:
    """A cheap Android's screen (360 x 640 CSS px, density 2), optionally without script."""
    context = browser.new_context(
        viewport=SMALL_PHONE,  # type: ignore[arg-type]
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
        java_script_enabled=javascript,
    )
    try:
        yield context.new_page()
    finally:
        context.close()
