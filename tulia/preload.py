"""Loading what every process would load anyway once, in the parent, before it forks.

The gunicorn master (deploy/gunicorn.conf.py, `preload_app`) and the Celery worker's
main process (tulia/celery.py, `worker_init`) call `preload()` before they fork their
children. The children then share those pages with the parent instead of each loading
its own copy; that is what PSS (the shared pages divided among their sharers) counts.
`gc.freeze()` moves everything loaded so far out of the cyclic collector's sight, so
collections in the children do not write to (and so copy) the shared pages.

What is loaded is what the process runs: the URL configuration and admin for the web,
plus for the worker the turn engine and its language data (our English/Swahili
word model, the GCIDE dictionary, the intent classifier), which only turns use:
web processes never load them. Libraries only some deployments or rare requests use are
imported where used instead: the OpenAI client (preloaded here only when a model is
configured) and the PDF/DOCX readers of knowledge-base uploads (kb/extract.py).
"""

from __future__ import annotations

import gc
import logging
import time

logger = logging.getLogger(__name__)
# Touches English, Swahili and Sheng words, so every model a turn consults is loaded.
WARM_UP_TEXT = "Habari, nataka kununua viatu size 42 please, nitalipa na M-Pesa"


def preload(*, turns: bool) -> None:
    """Import and load what the children will use, then freeze it; `turns` for workers."""
    started = time.perf_counter()
    import django

    django.setup()
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 - imports every view module and the admin
    if turns:
        _warm_turn_engine()
    # Children must open their own connections; an inherited socket would be shared.
    from django.db import connections

    connections.close_all()
    gc.collect()
    gc.freeze()
    logger.info(
        "preloaded before fork in %.1f s (turns=%s, %d objects frozen)",
        time.perf_counter() - started,
        turns,
        gc.get_freeze_count(),
    )


def _warm_turn_engine() -> None:
    """The engine's own entry points, called once: each loads and caches its data."""
    from journeys.graph import compiled
    from journeys.nlu.consent import detect_consent_command
    from journeys.nlu.governor import classify_governor
    from journeys.nlu.intent import classify_intent
    from journeys.nlu.language import detect_language
    from tulia.celery import app
    from tulia.conversations.turns import get_turn_handler

    app.loader.import_default_modules()  # every tasks.py, as the worker will
    get_turn_handler()
    compiled()
    detect_language(WARM_UP_TEXT)
    classify_governor(WARM_UP_TEXT, classify_intent(WARM_UP_TEXT))
    detect_consent_command(WARM_UP_TEXT, [], awaiting_answer=False)
    from journeys.llm.settings import LLMSettings

    if LLMSettings.from_env().enabled:
        # The gateway imports the OpenAI client on first use; with a model configured
        # every child will, so load it here once, shared, instead of once per child.
        import langchain_openai  # noqa: F401
