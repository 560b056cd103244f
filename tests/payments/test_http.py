"""The payment providers' HTTP client: one per process, never inherited over a fork."""

from __future__ import annotations

import pytest

from payments import http


def test_calls_in_one_process_share_one_client() -> None:
    assert http.provider_client() is http.provider_client()


def test_a_forked_child_builds_its_own_client(monkeypatch: pytest.MonkeyPatch) -> None:
    parents = http.provider_client()
    monkeypatch.setattr(http.os, "getpid", lambda: -1)  # as the child sees itself
    childs = http.provider_client()
    assert childs is not parents
    assert http.provider_client() is childs
