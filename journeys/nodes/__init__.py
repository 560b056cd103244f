"""What the graph's nodes share besides the state: their dependencies (`deps`) and
the pure routing of a turn with the SPEC's thresholds (`routing`).

The nodes themselves live in `journeys/flows/`, typed on its `FlowState`. These two
modules keep their import paths because other flows import them; they can move to
`journeys/` once no branch in flight still does.
"""
