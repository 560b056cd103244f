"""The agent inbox in a real Chromium, fed by the real signed Twilio webhook.

A customer writes → a Celery worker runs the real conversation engine, which opens a
ticket → the agent's open queue shows it without a reload → the agent replies (which
claims the ticket), adds a note and hands back → the customer's next message gets a
bot reply, which the still-open desk shows without a reload. Once on a laptop, once on
a phone (no sideways scroll, 44 px tap targets, the reply box on screen). Timings are
measured by bench/inbox_live.py; here the waits are only generous upper bounds.
"""

from __future__ import annotations

import itertools
from functools import partial
from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from tenants.context import tenant_context
from tests.browser.conftest import horizontal_overflow
from tests.gateway.conftest import SID_A, TOKEN_A, celery_worker, twilio  # noqa: F401
from tests.gateway.test_worker import wait_for
from tests.handoff.conftest import make_agent
from tulia.conversations.models import OutboundMessage
from tulia.handoff.models import CannedReply, HandoffTicket, TicketEvent
from tulia.whatsapp.emulator import inbound_params, signed_post

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("celery_worker")]

SHOP = "+254711000001"
QUEUE = "/admin/handoff/handoffticket/"
LIVE_WAIT_MS = 10_000  # an upper bound for a loaded test machine, not the 3 s target
_customers = itertools.count(1)


@pytest.fixture
def shop(live_server: Any, settings: Any, twilio: Any, tenant: Any, stranger: Any) -> Any:  # noqa: F811
    settings.PUBLIC_BASE_URL = live_server.url
    settings.TULIA_TURN_HANDLER = "journeys.handler.handle_turn"
    settings.TULIA_RATE_CUSTOMER_PER_MINUTE = 1000
    # The engine's first turn in a process loads its language models; take it here so
    # the waits below measure the inbox, not the start-up.
    customer_writes(live_server, "+254712999999", "Hi")
    wait_for(lambda: bool(bot_replies(tenant.id, "+254712999999")), timeout=180)
    return tenant


def customer_writes(live_server: Any, phone: str, text: str) -> None:
    url = live_server.url + reverse("whatsapp:inbound")
    response = signed_post(url, TOKEN_A, inbound_params(SID_A, SHOP, phone, text))
    assert response.status_code == 200


def sign_in(page: Page, live_server: Any, username: str) -> None:
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "x-Pass-1234")
    page.click("input[type=submit]")
    expect(page.locator("#inbox-badge")).to_be_visible()


def bot_replies(tenant_id: Any, phone: str) -> list[str]:
    with tenant_context(tenant_id):
        rows = OutboundMessage.objects.filter(conversation__customer__phone_e164=phone)
        return list(rows.exclude(request_id__startswith="desk-").values_list("body", flat=True))


def has_bot_reply(tenant_id: Any, phone: str) -> bool:
    return bool(bot_replies(tenant_id, phone))


def mark_no_reload(page: Page) -> None:
    page.evaluate("() => { window.__sameDocument = true; }")


def assert_not_reloaded(page: Page) -> None:
    assert page.evaluate("() => window.__sameDocument === true")


def assert_phone_fit(page: Page) -> None:
    assert horizontal_overflow(page) == 0
    for button in page.locator(".inbox-compose button").all():
        box = button.bounding_box()
        assert box is not None
        assert box["height"] >= 44
        assert box["width"] >= 44
    reply_box = page.locator("#inbox-body").bounding_box()
    viewport = page.viewport_size
    assert reply_box is not None
    assert viewport is not None
    assert reply_box["y"] + reply_box["height"] <= viewport["height"]


def agent_shift(page: Page, live_server: Any, shop: Any, *, phone_sized: bool) -> None:
    agent = make_agent(shop, "alice")
    with tenant_context(shop.id) as tid:
        CannedReply.objects.create(
            tenant_id=tid, title="Size restock", body="Size 42 is back on Friday."
        )
    customer = f"+2547120{next(_customers):05d}"
    sign_in(page, live_server, agent.username)
    page.goto(live_server.url + QUEUE)
    mark_no_reload(page)

    customer_writes(live_server, customer, "I want to talk to a human please")
    row = page.locator("#result_list a.inbox-open").first
    expect(row).to_be_visible(timeout=LIVE_WAIT_MS)  # the queue grew without a reload
    assert_not_reloaded(page)
    if phone_sized:
        assert horizontal_overflow(page) == 0
    expect(page.locator("#inbox-badge [data-count=waiting]")).to_have_text("1")

    row.click()
    expect(page.locator(".inbox-customer")).to_contain_text("talk to a human")
    if phone_sized:
        assert_phone_fit(page)
    page.type("#inbox-body", "/size")  # a canned reply by its shortcut
    expect(page.locator("#inbox-canned")).to_contain_text("/size-restock")
    page.press("#inbox-body", "Enter")
    expect(page.locator("#inbox-body")).to_have_value("Size 42 is back on Friday.")
    page.fill("#inbox-body", "Hi, *Alice* here. Let me check.")
    page.click("button[value=reply]")  # one click: the reply claims the ticket
    expect(page.locator(".inbox-agent").last).to_contain_text("Alice here")
    expect(page.locator(".inbox-agent strong").last).to_have_text("Alice")
    with tenant_context(shop.id):
        ticket = HandoffTicket.objects.get(customer__phone_e164=customer)
    assert (ticket.status, ticket.assigned_to_id) == ("assigned", agent.pk)

    mark_no_reload(page)
    customer_writes(live_server, customer, "Asante, nangoja")
    expect(page.locator(".inbox-customer").last).to_contain_text(
        "Asante, nangoja", timeout=LIVE_WAIT_MS
    )
    assert_not_reloaded(page)

    page.fill("#inbox-body", "Customer is waiting for size 42 restock")
    page.click("button[value=note]")
    expect(page.locator(".inbox-note").last).to_contain_text("size 42 restock")
    page.click("button[value=hand_back]")
    expect(page.locator("button[value=reopen]")).to_be_visible()
    expect(page.locator("button[value=reply]")).to_have_count(0)
    if phone_sized:
        assert horizontal_overflow(page) == 0

    before = len(bot_replies(shop.id, customer))
    mark_no_reload(page)
    customer_writes(live_server, customer, "Do you have sneakers?")
    wait_for(lambda: len(bot_replies(shop.id, customer)) > before)  # the bot answers again
    expect(page.locator(".inbox-customer").last).to_contain_text("sneakers", timeout=LIVE_WAIT_MS)
    expect(page.locator(".inbox-bubble").last).to_have_class(
        "inbox-bubble inbox-bot", timeout=LIVE_WAIT_MS
    )
    assert_not_reloaded(page)
    with tenant_context(shop.id):
        kinds = list(
            TicketEvent.objects.filter(ticket=ticket).order_by("id").values_list("kind", flat=True)
        )
    assert kinds == ["opened", "claimed", "reply", "note", "handed_back"]


def test_agent_shift_on_a_laptop(live_server: Any, page: Page, shop: Any) -> None:
    agent_shift(page, live_server, shop, phone_sized=False)
    page.goto(live_server.url + QUEUE)
    assert page.locator("#changelist").is_visible()


def test_agent_shift_on_a_phone(live_server: Any, phone_page: Page, shop: Any) -> None:
    agent_shift(phone_page, live_server, shop, phone_sized=True)


def test_webhooks_answer_with_twenty_inboxes_open(
    live_server: Any, browser: Any, shop: Any
) -> None:
    agent = make_agent(shop, "alice")
    context = browser.new_context()
    polls: list[str] = []
    context.on(
        "request", lambda request: polls.append(request.url) if "/live/" in request.url else None
    )
    first = context.new_page()
    sign_in(first, live_server, agent.username)
    pages = [first, *(context.new_page() for _ in range(19))]
    for page in pages:
        page.goto(live_server.url + QUEUE)
    customers = [f"+2547130{n:05d}" for n in range(5)]
    for phone in customers:  # each answered 200 while twenty inboxes poll
        customer_writes(live_server, phone, "Hi, do you have sneakers?")
    for phone in customers:
        wait_for(partial(has_bot_reply, shop.id, phone))
    assert len(polls) >= len(pages)  # every open inbox was polling meanwhile
    context.close()


# Records what the page asks of the browser's own notification and audio APIs, then lets
# the real ones run: the test sees the alert the agent would hear and see.
ALERT_SPY = """() => {
  window.__notes = []; window.__tones = 0;
  const Real = window.Notification;
  window.Notification = function (title, options) {
    window.__notes.push(title + ": " + ((options && options.body) || ""));
    return new Real(title, options);
  };
  Object.defineProperty(window.Notification, "permission", { get: () => Real.permission });
  window.Notification.requestPermission = Real.requestPermission.bind(Real);
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) {
    window.__tones += 1;
    return start.apply(this, args);
  };
}"""


def test_a_customer_starting_to_wait_rings_and_notifies(
    live_server: Any, browser: Any, shop: Any
) -> None:
    agent = make_agent(shop, "alice")
    context = browser.new_context()
    context.grant_permissions(["notifications"], origin=live_server.url)
    page = context.new_page()
    sign_in(page, live_server, agent.username)
    page.goto(live_server.url + QUEUE)
    page.evaluate(ALERT_SPY)
    expect(page.locator("#inbox-alerts")).to_be_hidden()  # already allowed: nothing to ask
    customer_writes(live_server, "+254712000777", "I want to talk to a human please")
    expect(page.locator("#inbox-badge [data-count=waiting]")).to_have_text(
        "1", timeout=LIVE_WAIT_MS
    )
    page.wait_for_function("() => window.__notes.length > 0", timeout=LIVE_WAIT_MS)
    assert page.evaluate("() => window.__notes") == [
        "A customer is waiting: 1 waiting in the inbox"
    ]
    assert page.evaluate("() => window.__tones") == 1
    context.close()
