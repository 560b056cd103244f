"""Template tests run against the Twilio emulator (Messages and Content API)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import TWILIO_SID_A, TWILIO_SID_B
from tulia.whatsapp.emulator import TwilioEmulator


@pytest.fixture
def twilio(settings: Any) -> Iterator[TwilioEmulator]:
    with TwilioEmulator() as emulator:
        emulator.add_account(TWILIO_SID_A, "token-a-123456789")
        emulator.add_account(TWILIO_SID_B, "token-b-987654321")
        settings.TULIA_TWILIO_API_BASE = emulator.base_url
        yield emulator
