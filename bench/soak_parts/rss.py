"""Peak resident memory of the web and worker process trees, sampled in the background."""

from __future__ import annotations

import threading
from collections.abc import Callable

import psutil

from soak_parts.processes import family

SAMPLE_SECONDS = 2.0


def tree_rss(pid: int) -> int:
    total = 0
    for process in family(pid):
        try:
            total += process.memory_info().rss
        except psutil.Error:
            continue
    return total


class PeakRss:
    """Largest summed RSS seen per named tree; `roots` is read at each sample because the
    worker's pid changes when it is restarted."""

    def __init__(self, roots: Callable[[], dict[str, int]]) -> None:
        self.roots = roots
        self.peaks: dict[str, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(SAMPLE_SECONDS):
            for name, pid in self.roots().items():
                self.peaks[name] = max(self.peaks.get(name, 0), tree_rss(pid))

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def megabytes(self) -> dict[str, float]:
        return {name: round(peak / 2**20, 1) for name, peak in self.peaks.items()}
