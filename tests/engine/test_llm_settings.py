"""TULIA_LLM_MODE and TULIA_LLM_MODELS: defaults, the plan -> model map, loud failures."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from journeys.llm.settings import DEFAULT_PLAN_MODELS, MODES, PLANS, LLMSettings
from tenants.models import Tenant
from tests.hypothesis_profiles import examples

KEY = {"OPENAI_API_KEY": "sk-test"}


def test_with_a_key_the_default_is_cascade_and_without_deterministic() -> None:
    assert LLMSettings.from_env(KEY).effective_mode == "cascade"
    assert LLMSettings.from_env({}).effective_mode == "deterministic"
    assert not LLMSettings.from_env({}).enabled


def test_only_llm_mode_phrases_text_and_always_asks() -> None:
    found = {
        mode: (s.enabled, s.phrases_text, s.always_asks)
        for mode in MODES
        for s in [LLMSettings.from_env({**KEY, "TULIA_LLM_MODE": mode})]
    }
    assert found == {
        "deterministic": (False, False, False),
        "cascade": (True, False, False),
        "llm": (True, True, True),
    }


@pytest.mark.parametrize("mode", ["cascade", "llm"])
def test_a_model_mode_without_a_key_fails(mode: str) -> None:
    with pytest.raises(ValueError, match="needs OPENAI_API_KEY"):
        LLMSettings.from_env({"TULIA_LLM_MODE": mode})


@settings(max_examples=examples(150), deadline=None)
@given(mode=st.text(min_size=1, max_size=20).filter(lambda m: m not in MODES))
def test_any_other_mode_fails(mode: str) -> None:
    with pytest.raises(ValueError, match="TULIA_LLM_MODE"):
        LLMSettings.from_env({**KEY, "TULIA_LLM_MODE": mode})


def test_plans_get_their_default_models() -> None:
    found = LLMSettings.from_env(KEY)
    assert {plan: found.model_for(plan) for plan in PLANS} == dict(DEFAULT_PLAN_MODELS)
    assert found.model_for(None) == DEFAULT_PLAN_MODELS["starter"]


def test_openai_model_is_the_default_for_plans_the_map_leaves_out() -> None:
    env = {**KEY, "OPENAI_MODEL": "house-model", "TULIA_LLM_MODELS": '{"pro": "big-model"}'}
    found = LLMSettings.from_env(env)
    assert [found.model_for(plan) for plan in PLANS] == ["house-model", "house-model", "big-model"]


@settings(max_examples=examples(150), deadline=None)
@given(
    chosen=st.dictionaries(
        st.sampled_from(PLANS),
        st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-.", min_size=1, max_size=30),
    )
)
def test_the_map_decides_the_model_of_each_plan_it_names(chosen: dict[str, str]) -> None:
    found = LLMSettings.from_env({**KEY, "TULIA_LLM_MODELS": json.dumps(chosen)})
    assert {plan: found.model_for(plan) for plan in chosen} == chosen


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("{starter: gpt}", "not valid JSON"),
        ('["gpt-4o"]', "JSON object"),
        ('{"enterprise": "gpt-4o"}', "unknown plans"),
        ('{"pro": ""}', "non-empty"),
        ('{"pro": 4}', "non-empty"),
    ],
)
def test_a_bad_model_map_fails(raw: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LLMSettings.from_env({**KEY, "TULIA_LLM_MODELS": raw})


def test_the_plans_are_the_tenant_plans() -> None:
    assert tuple(Tenant.Plan.values) == PLANS


def test_the_key_is_never_printed() -> None:
    assert "sk-test" not in repr(LLMSettings.from_env(KEY))


@pytest.mark.process
def test_a_bad_mode_stops_django_start_up() -> None:
    env = {
        **os.environ,
        "TULIA_LLM_MODE": "sometimes",
        "DATABASE_URL": "postgres://unused/unused",
        "REDIS_URL": "redis://unused:6379/0",
        "DJANGO_SETTINGS_MODULE": "tulia.settings",
    }
    started = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert started.returncode != 0
    assert "TULIA_LLM_MODE must be one of" in started.stderr
