"""The offline embedder and the indexing task that stores item embeddings."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from tenants.context import tenant_context
from tests.commerce import factories as f
from tulia.commerce.models import CatalogItem
from tulia.commerce.tasks import embed_catalog_items
from tulia.embeddings import EMBEDDING_DIMENSIONS, get_embedder
from tulia.embeddings.offline import OfflineEmbedder


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_vectors_are_unit_length_and_fixed_width() -> None:
    vectors = OfflineEmbedder().embed(["Nike Air Max 90", "sukuma wiki", ""])
    assert [len(v) for v in vectors] == [EMBEDDING_DIMENSIONS] * 3
    assert math.isclose(sum(x * x for x in vectors[0]), 1.0, rel_tol=1e-9)
    assert vectors[2] == [0.0] * EMBEDDING_DIMENSIONS


def test_typos_stay_close_and_unrelated_text_does_not() -> None:
    shoe, typo, kale = OfflineEmbedder().embed(["nike air max", "nkie air maxx", "sukuma wiki"])
    assert _cos(shoe, typo) > 0.3
    assert _cos(shoe, typo) > _cos(shoe, kale) + 0.2


@pytest.mark.process
def test_vectors_are_the_same_in_another_process() -> None:
    """Python's hash() is salted per process; stored vectors must not depend on it."""
    code = "from tulia.embeddings.offline import hashed_vector; print(hashed_vector('raba')[:8])"
    other = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert other == str(OfflineEmbedder().embed(["raba"])[0][:8])


def test_offline_is_the_default_without_an_openai_key(settings) -> None:
    settings.TULIA_EMBEDDER = "offline"  # what settings decide with no OPENAI_API_KEY
    get_embedder.cache_clear()
    try:
        assert isinstance(get_embedder(), OfflineEmbedder)
    finally:
        get_embedder.cache_clear()


def test_openai_is_chosen_when_configured(monkeypatch, settings) -> None:
    settings.TULIA_EMBEDDER = "openai"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")  # read by the OpenAI client
    get_embedder.cache_clear()
    try:
        chosen = get_embedder()
        assert chosen.name.startswith("openai-text-embedding-3-small")
        assert chosen.dimensions == EMBEDDING_DIMENSIONS
    finally:
        get_embedder.cache_clear()


@pytest.mark.django_db
def test_saving_an_item_schedules_embedding_after_commit(
    tenant, django_capture_on_commit_callbacks
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        f.item(tenant, "Air Max 90", 14500)
    assert len(callbacks) == 1


@pytest.mark.django_db
def test_task_embeds_only_its_tenants_items_and_is_repeatable(tenant, stranger) -> None:
    mine = f.item(tenant, "Air Max 90", 14500)
    theirs = f.item(stranger, "Sukuma", 20)
    assert embed_catalog_items(str(tenant.id), [mine.pk, theirs.pk]) == 1
    assert embed_catalog_items(str(tenant.id), [mine.pk]) == 1
    with tenant_context(tenant.id):
        assert CatalogItem.objects.get().embedding_model == get_embedder().name
    with tenant_context(stranger.id):
        assert CatalogItem.objects.get().embedding is None
