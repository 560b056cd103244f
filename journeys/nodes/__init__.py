"""Graph nodes: small functions `(state, ctx, deps) -> partial state update`.

`graph.py` (later) wires them; nothing here knows about LangGraph, so each node can be
tested on its own with a plain dict state.
"""
