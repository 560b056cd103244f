"""The production stack for the inbox scripts (inbox_live.py, inbox_screenshots.py).

gunicorn (sync workers), a Celery worker and the Twilio emulator on the `bench` profile's
embedded PostgreSQL and Redis, the demo shops seeded; a customer of Kicks Nairobi who
writes through the signed webhook; the shop's agent signed in to Chromium.
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import webhook_ingest as stack  # noqa: E402 - bench scripts import their siblings

AGENT = "kicks_agent"


@dataclass
class Stack:
    base_url: str
    env: dict[str, str]


@contextmanager
def running_stack(web_workers: str = "4") -> Iterator[Stack]:
    stack.WEB_WORKERS = web_workers
    web_port, emulator_port = stack.free_port(), stack.free_port()
    env = stack.production_env(web_port, emulator_port)
    stack.setup_django(env)
    from django.core.management import call_command

    call_command("collectstatic", interactive=False, verbosity=0)  # WhiteNoise serves these
    logs = ROOT / "var" / "bench" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    children: list[subprocess.Popen[bytes]] = stack.start_children(
        env, web_port, emulator_port, logs
    )
    try:
        stack.wait_ready(web_port, timeout=300.0)  # a busy shared machine starts slowly
        agent_online()
        yield Stack(base_url=env["TULIA_PUBLIC_BASE_URL"], env=env)
    finally:
        for child in children:
            child.terminate()
        for child in children:
            child.wait(timeout=30)


def kicks() -> Any:
    from tenants.demo import SHOPS

    return SHOPS[0]


def agent_online() -> None:
    """The demo agent is at the desk, so a customer asking for a person is queued."""
    from django.contrib.auth import get_user_model

    from tenants.models import Tenant
    from tulia.handoff import desk

    tenant = Tenant.objects.get(slug=kicks().slug)
    agent = get_user_model().objects.get(username=AGENT)
    desk.set_presence(tenant.id, agent.pk, "online")


def customer_writes(base_url: str, customer: str, text: str) -> float:
    """Post one signed inbound webhook; returns its latency in seconds."""
    from django.urls import reverse

    from tulia.whatsapp.emulator import inbound_params, signed_post

    shop = kicks()
    sid = "SM" + uuid.uuid4().hex
    form = inbound_params(shop.sender_sid, shop.sender_phone, customer, text, MessageSid=sid)
    started = time.perf_counter()
    response = signed_post(base_url + reverse("whatsapp:inbound"), shop.sender_token, form)
    elapsed = time.perf_counter() - started
    response.raise_for_status()
    return elapsed


def wait_for(condition: Callable[[], Any], timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(0.2)
    raise RuntimeError("condition not met within the timeout")


def open_ticket_of(customer: str) -> int | None:
    from tenants.context import operator_context
    from tulia.handoff.models import HandoffTicket

    with operator_context("inbox bench: find the customer's ticket"):
        return (
            HandoffTicket.objects.filter(
                customer__phone_e164=customer, status__in=["open", "assigned"]
            )
            .values_list("pk", flat=True)
            .first()
        )


def replies_to(customer: str) -> int:
    from tenants.context import operator_context
    from tulia.conversations.models import OutboundMessage

    with operator_context("inbox bench: count the replies"):
        return OutboundMessage.objects.filter(conversation__customer__phone_e164=customer).count()


def sign_in(page: Any, base_url: str) -> None:
    from tenants.demo import DEMO_PASSWORD

    page.goto(f"{base_url}/admin/login/")
    page.fill("input[name=username]", AGENT)
    page.fill("input[name=password]", DEMO_PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_load_state()


CHAT = [
    "Hi, do you have Air Force 1 in size 42?",
    "How much is delivery to Westlands?",
    "I want to speak to a human please, my last order was *wrong*",
]


def answered(customer: str, count: int) -> bool:
    return replies_to(customer) >= count


def seed_waiting_customer(base_url: str) -> tuple[str, int]:
    customer = f"+2547{int(time.time()) % 100_000_000:08d}"
    for n, line in enumerate(CHAT, start=1):
        customer_writes(base_url, customer, line)
        wait_for(partial(answered, customer, n))
    ticket = wait_for(lambda: open_ticket_of(customer))
    return customer, int(ticket)
