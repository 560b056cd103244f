"""The browser harness itself: Chromium starts and renders a page our server serves."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

from tests.browser.conftest import horizontal_overflow


def test_chromium_renders_the_admin_login(live_server: Any, page: Page) -> None:
    page.goto(f"{live_server.url}/admin/login/")
    assert page.locator("input[name=username]").is_visible()
    assert horizontal_overflow(page) == 0
