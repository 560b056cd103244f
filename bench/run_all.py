"""`make bench`: run every benchmark in bench/ and print one summary table.

Each script prints its own detailed figures and, as its last line, `summary: {json}` with
the headline numbers; this runner collects those lines. A script that fails or prints no
summary is shown as such, never silently dropped.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUMMARY_PREFIX = "summary: "


def run(script: Path) -> tuple[str, dict[str, object], float]:
    started = time.perf_counter()
    result = subprocess.run(  # noqa: S603 - our own scripts
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        check=False,
        cwd=HERE.parent,
        timeout=3600,  # the soak runs 30 minutes plus set-up and drain
        # Benchmarks get their own embedded databases (var/bench), apart from the demo's.
        env={**os.environ, "TULIA_PROFILE": os.environ.get("TULIA_PROFILE", "bench")},
    )
    elapsed = time.perf_counter() - started
    sys.stdout.write(result.stdout)
    summaries = [line for line in result.stdout.splitlines() if line.startswith(SUMMARY_PREFIX)]
    if result.returncode != 0:
        sys.stdout.write(result.stderr[-2000:])
        return "failed", {"exit": result.returncode}, elapsed
    if not summaries:
        return "no summary", {}, elapsed
    return "ok", json.loads(summaries[-1].removeprefix(SUMMARY_PREFIX)), elapsed


def main() -> int:
    scripts = sorted(p for p in HERE.glob("*.py") if p.name != Path(__file__).name)
    rows = []
    for script in scripts:
        print(f"\n=== {script.name}", flush=True)
        rows.append((script.stem, *run(script)))
    print("\n| benchmark | status | seconds | figures |\n| --- | --- | --- | --- |")
    for name, status, figures, elapsed in rows:
        shown = ", ".join(f"{key}={value}" for key, value in figures.items())
        print(f"| {name} | {status} | {elapsed:.0f} | {shown} |")
    return 0 if all(status == "ok" for _, status, _, _ in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
