"""Memory of the web and worker process trees as PSS, sampled in the background.

PSS (proportional set size) splits each shared page among the processes sharing it,
so the sum over a tree is what the tree really costs the machine; RSS would count the
pages the parent shares with its forked children once per process.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import psutil

from soak_parts.processes import family

SAMPLE_SECONDS = 2.0
MB = 2**20


def tree_pss(pid: int) -> dict[str, float]:
    """PSS in MB per process of the tree: "parent", then "child-1", … in pid order."""
    return {name: pss for name, (pss, _) in tree_memory(pid).items()}


def tree_memory(pid: int) -> dict[str, tuple[float, float]]:
    """(PSS, USS) in MB per process of the tree, named as `tree_pss` names them. USS is
    what only that process holds: in a forked child, the pages it has written since the
    fork (its own objects, and shared pages it touched and so copied)."""
    found: dict[str, tuple[float, float]] = {}
    processes = family(pid)
    children = sorted(processes[1:], key=lambda process: process.pid)
    for name, process in zip(
        ["parent", *(f"child-{n}" for n in range(1, len(children) + 1))],
        processes[:1] + children,
        strict=True,
    ):
        try:
            memory = process.memory_full_info()
            found[name] = (round(memory.pss / MB, 1), round(memory.uss / MB, 1))
        except psutil.Error:
            continue
    return found


class PssWatch:
    """Per-process PSS of named trees when it starts and stops, and the largest tree total
    seen in between; `roots` is read at each sample (the worker's pid changes on restart)."""

    def __init__(self, roots: Callable[[], dict[str, int]]) -> None:
        self.roots = roots
        self.before: dict[str, dict[str, float]] = {}
        self.after: dict[str, dict[str, float]] = {}
        # USS per process after the traffic: what each process holds alone.
        self.after_uss: dict[str, dict[str, float]] = {}
        self.peaks: dict[str, float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def snapshot(self) -> dict[str, dict[str, float]]:
        return {name: tree_pss(pid) for name, pid in self.roots().items()}

    def _sample(self) -> None:
        for name, processes in self.snapshot().items():
            self.peaks[name] = max(self.peaks.get(name, 0.0), round(sum(processes.values()), 1))

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_SECONDS):
            self._sample()

    def __enter__(self) -> PssWatch:
        self.before = self.snapshot()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        memory = {name: tree_memory(pid) for name, pid in self.roots().items()}
        for tree, rows in memory.items():
            self.after[tree] = {name: pss for name, (pss, _) in rows.items()}
            self.after_uss[tree] = {name: uss for name, (_, uss) in rows.items()}
