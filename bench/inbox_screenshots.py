"""Screenshots of the agent inbox for the README: `python bench/inbox_screenshots.py LABEL`.

A Kicks Nairobi customer chats with the bot and asks for a person through the signed
webhook on the production stack (bench/inbox_stack.py); the demo agent then opens the
queue, the desk and the conversation page in Chromium at 1366 px and 390 px. The PNGs
go to docs/screenshots/LABEL-<page>-<width>.png (viewport only, so they stay small).
"""

from __future__ import annotations

import sys
from pathlib import Path

from inbox_stack import ROOT, running_stack, seed_waiting_customer, sign_in

OUT = ROOT / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"]
VIEWPORTS = {"1366": {"width": 1366, "height": 768}, "390": {"width": 390, "height": 844}}


def shoot(label: str, base_url: str, ticket: int, conversation: int) -> list[Path]:
    from playwright.sync_api import sync_playwright

    pages = {
        "queue": "/admin/handoff/handoffticket/",
        "desk": f"/admin/handoff/handoffticket/{ticket}/desk/",
        "conversation": f"/admin/conversations/conversation/{conversation}/change/",
    }
    written = []
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for width, viewport in VIEWPORTS.items():
            context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
            page = context.new_page()
            sign_in(page, base_url)
            for name, path in pages.items():
                page.goto(base_url + path)
                page.wait_for_timeout(1500)  # one poll of the live parts
                target = OUT / f"{label}-{name}-{width}.png"
                page.screenshot(path=str(target))
                written.append(target)
            context.close()
        browser.close()
    return written


def conversation_of(ticket: int) -> int:
    from tenants.context import operator_context
    from tulia.handoff.models import HandoffTicket

    with operator_context("inbox screenshots"):
        return HandoffTicket.objects.get(pk=ticket).conversation_id


def main() -> int:
    label = sys.argv[1] if len(sys.argv) > 1 else "after"
    with running_stack() as running:
        _, ticket = seed_waiting_customer(running.base_url)
        for path in shoot(label, running.base_url, ticket, conversation_of(ticket)):
            print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
