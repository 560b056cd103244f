"""Gateway fixtures: Twilio-shaped event forms, signed posting, a real Celery worker."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from celery.contrib.testing.worker import start_worker
from django.conf import settings
from django.test import Client
from django.urls import reverse
from twilio.request_validator import RequestValidator

from tests.celery_support import TEST_QUEUE
from tulia.celery import app as celery_app

FIXTURES = Path(__file__).resolve().parents[2] / "tulia" / "whatsapp" / "fixtures"
TOKEN_A = "token-a-123456789"
TOKEN_B = "token-b-987654321"
SID_A = "AC" + "a" * 32
SID_B = "AC" + "b" * 32


def event(name: str, **overrides: str) -> dict[str, str]:
    """A Twilio webhook form from tulia/whatsapp/fixtures/<name>.json."""
    form: dict[str, str] = json.loads((FIXTURES / f"{name}.json").read_text())
    form.update(overrides)
    return form


def sign(path: str, form: dict[str, str], token: str) -> str:
    return RequestValidator(token).compute_signature(f"{settings.PUBLIC_BASE_URL}{path}", form)


PostSigned = Callable[..., Any]


@pytest.fixture
def post_signed(client: Client) -> PostSigned:
    """POST a form to a gateway endpoint, signed as Twilio would sign it."""

    def post(name: str, form: dict[str, str], token: str = TOKEN_A, **headers: str) -> Any:
        path = reverse(f"whatsapp:{name}")
        signature = headers.pop("signature", None) or sign(path, form, token)
        return client.post(path, form, headers={"X-Twilio-Signature": signature, **headers})

    return post


@contextmanager
def running_worker(**options: Any) -> Iterator[Any]:
    """An in-process Celery worker on this process's queue."""
    options = {"pool": "threads", "concurrency": 4, "loglevel": "WARNING", **options}
    with start_worker(
        celery_app, perform_ping_check=False, queues=[TEST_QUEUE], **options
    ) as worker:
        yield worker


@pytest.fixture
def celery_worker(transactional_db: Any) -> Iterator[Any]:
    """A real Celery worker (threads) consuming from the embedded Redis broker."""
    celery_app.control.purge()
    with running_worker() as worker:
        yield worker


@pytest.fixture
def twilio(settings: Any) -> Iterator[Any]:
    """The local Twilio emulator, with the outbound backend pointed at it."""
    from tulia.whatsapp.emulator import TwilioEmulator

    with TwilioEmulator() as emulator:
        emulator.add_account(SID_A, TOKEN_A)
        emulator.add_account(SID_B, TOKEN_B)
        settings.TULIA_TWILIO_API_BASE = emulator.base_url
        yield emulator


@pytest.fixture(autouse=True)
def placeholder_turns(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Gateway tests check delivery, ordering and persistence, not what the bot says:
    they run the plain acknowledgement handler (worker subprocesses read the env)."""
    settings.TULIA_TURN_HANDLER = "tests.gateway.placeholder.acknowledge"
    monkeypatch.setenv("TULIA_TURN_HANDLER", "tests.gateway.placeholder.acknowledge")
