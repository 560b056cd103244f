"""The graph's state as the journeys name it.

The journeys' own bookkeeping (the sale's step, the checkout, support and escalation
counters) is declared with the rest of the state, in its typed parts, in
journeys/state.py, which holds every default once; this name stays so the flows need
not change their imports.
"""

from __future__ import annotations

from journeys.state import ConversationState as FlowState

__all__ = ["FlowState"]
