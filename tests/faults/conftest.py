"""Fault-injection fixtures, reused from the suites that own the real services."""

from __future__ import annotations

from tests.flows.conftest import (  # noqa: F401
    all_tools_registered,
    daraja,
    pesapal,
    shop,
    stk_only_shop,
)
from tests.gateway.conftest import post_signed  # noqa: F401
from tests.gateway.test_worker import dead_broker  # noqa: F401
from tests.payments.conftest import make_order, post_callback  # noqa: F401
