"""The journeys (sales, support, orders, offers, prefs, escalation) as graph nodes.

Each module holds one journey's nodes; `graph.py` wires them. Nodes keep the engine's
signature `(state, ctx, deps) -> partial state` and reach tools only through
`journeys.tooling`, so a missing or failing tool becomes a reply, never a crash.
"""
