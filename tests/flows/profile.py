"""The Hypothesis settings every conversation-level property runs with.

100 examples each (the issue's floor); no deadline, because a turn's time depends on the
machine's load, not on the property; function-scoped fixtures (a shop) are shared
across examples on purpose: every example starts a new customer.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

from tests.hypothesis_profiles import examples

PROPERTY = settings(
    max_examples=examples(100),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
