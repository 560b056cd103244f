"""Screenshots of the shop console for the README, taken in Debian's Chromium.

Signs in to a running Tulia as a shop owner and photographs the console's pages at a
laptop's and a phone's width, in English and (after the header's switch) Kiswahili.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urljoin

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"]
WIDTHS = (1366, 390)
PAGES = {
    "home": "/admin/",
    "orders": "/admin/commerce/order/",
    "products": "/admin/commerce/catalogitem/",
    "reconcile": "/admin/payments/paymenttoreconcile/",
    "gaps": "/admin/kb/knowledgegap/",
}


def shoot(
    base_url: str, username: str, password: str, out: Path, label: str,
    *, widths: tuple[int, ...] = WIDTHS,
) -> list[Path]:  # fmt: skip
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for width in widths:
            viewport = {"width": width, "height": 900 if width > 600 else 844}
            context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
            page = context.new_page()
            _sign_in(page, base_url, username, password)
            pages = {**PAGES, **_first_of_each(page, base_url)}
            for name, path in pages.items():
                page.goto(urljoin(base_url + "/", path))
                written.append(_save(page, out / f"{label}-{name}-{width}.png"))
            page.click(".console-language button")  # the same owner, in Kiswahili
            page.goto(base_url + PAGES["home"])
            written.append(_save(page, out / f"{label}-home-sw-{width}.png"))
            page.click(".console-language button")  # back to English for the next run
            context.close()
        browser.close()
    return written


def _sign_in(page: Any, base_url: str, username: str, password: str) -> None:
    page.goto(f"{base_url}/admin/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("input[type=submit]")
    page.wait_for_selector("#user-tools")


def _first_of_each(page: Any, base_url: str) -> dict[str, str]:
    """The first order's and product's pages, and the shop's settings, by their links."""
    found: dict[str, str] = {}
    for name, listing, link in (
        ("order", "/admin/commerce/order/", "#result_list tbody th a"),
        ("product", "/admin/commerce/catalogitem/", "#result_list tbody td.field-name a"),
    ):
        page.goto(base_url + listing)
        first = page.locator(link).first
        if first.count():
            found[name] = urljoin(base_url + listing, str(first.get_attribute("href")))
    page.goto(base_url + PAGES["home"])
    settings = page.locator("a:has-text('Shop settings')").first
    if settings.count():
        found["settings"] = urljoin(base_url + "/", str(settings.get_attribute("href")))
    return found


def _save(page: Any, target: Path) -> Path:
    page.wait_for_load_state("load")
    page.screenshot(path=str(target))
    return target
