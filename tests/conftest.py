"""Shared fixtures: two tenants in every setup, the second one a stranger."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tenants.context import operator_context
from tenants.models import Tenant
from tenants.services import create_tenant, register_whatsapp_sender
from tests import (
    celery_support,  # noqa: F401 - per-process queue, logging left alone
    hypothesis_profiles,  # noqa: F401 - registers the "fast" profile
)
from tulia.db_roles import switch_to_owner

# Markers `make test-fast` selects on, given here so no test has to remember them:
# tests using these fixtures start a server or a worker ("process", make test only) ...
SERVING_FIXTURES = frozenset({"celery_worker", "live_server"})
# ... tests under these folders drive the conversation engine ("engine") ...
ENGINE_FOLDERS = ("engine", "flows")
# ... and a test needing none of these fixtures touches no database ("unit").
DATABASE_FIXTURES = frozenset({"db", "transactional_db", "django_db_setup"})
# ... whole conversations replayed end to end through the webhook, from the transcript
# files or from states saved by older code ("transcript", make test only): dozens of
# turns each, minutes together; the edit loop keeps the engine's turn-level tests ...
TRANSCRIPT_MODULES = frozenset(
    {"tests/flows/test_transcripts.py", "tests/flows/test_state_compat.py"}
)
# Work that is neither unit nor engine whatever its folder ("build", make test only):
# a model trained from its corpora takes minutes, not the seconds an edit loop has.
BUILDS = frozenset(
    {"tests/engine/test_nlu_model.py::test_a_rebuild_on_a_sample_gives_the_same_predictions_twice"}
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if SERVING_FIXTURES & fixtures:
            item.add_marker(pytest.mark.process)
        if item.nodeid in BUILDS:
            item.add_marker(pytest.mark.build)
        if item.nodeid.split("::")[0] in TRANSCRIPT_MODULES:
            item.add_marker(pytest.mark.transcript)
        if item.path.parent.name in ENGINE_FOLDERS:
            item.add_marker(pytest.mark.engine)
        if not DATABASE_FIXTURES & fixtures and item.get_closest_marker("django_db") is None:
            item.add_marker(pytest.mark.unit)


TWILIO_SID_A = "AC" + "a" * 32
TWILIO_SID_B = "AC" + "b" * 32


@pytest.fixture
def make_tenant(db: Any) -> Callable[..., Tenant]:
    counter = iter(range(1, 10_000))

    def build(**fields: Any) -> Tenant:
        n = next(counter)
        fields.setdefault("slug", f"shop-{n}")
        fields.setdefault("name", f"Shop {n}")
        # Shops ship with the privacy notice on; the suite's shops leave it off so a
        # test's first reply is the one it is about (tests/flows/test_privacy_notice.py).
        fields.setdefault("compliance", {"show_privacy_notice": False})
        return create_tenant(**fields)

    return build


@pytest.fixture
def tenant(make_tenant: Callable[..., Tenant]) -> Tenant:
    shop = make_tenant(slug="kicks", name="Kicks Nairobi", payment_methods=["mpesa_stk"])
    register_whatsapp_sender(
        shop.id, phone="+254711000001", account_sid=TWILIO_SID_A, auth_token="token-a-123456789"
    )
    return shop


@pytest.fixture
def stranger(make_tenant: Callable[..., Tenant]) -> Tenant:
    """Another tenant that must never see, nor be touched by, `tenant`'s activity."""
    shop = make_tenant(
        slug="mama-mboga", name="Mama Mboga", default_language="sw", allowed_languages=["sw", "en"]
    )
    register_whatsapp_sender(
        shop.id, phone="+254711000002", account_sid=TWILIO_SID_B, auth_token="token-b-987654321"
    )
    return shop


@pytest.fixture
def as_operator(db: Any) -> Iterator[None]:
    with operator_context("test inspection"):
        yield


# The test database is created and migrated by the owner role, then every test runs as
# the runtime role, as production does (tulia/db_roles.py). pytest-django calls
# django_db_modify_db_settings just before it creates the databases.
_back_to_runtime: list[Callable[[], None]] = []


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    _back_to_runtime.append(switch_to_owner())


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None) -> Iterator[None]:
    for restore in _back_to_runtime:
        restore()
    yield
    switch_to_owner()  # the databases are dropped by their owner
