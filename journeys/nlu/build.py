"""Rebuild the NLU model artifact: `make nlu-model` (python -m journeys.nlu.build).

Reads the project's own labelled writing (journeys/nlu/data) and BANKING77's train
split from ../shared/corpora (TULIA_CORPORA overrides), first fits the word-level
English/Swahili scorer the language markers ask (data/word_language.npz), then the
three calibrated heads, and writes journeys/nlu/data/nlu_model.joblib and the compiled
numbers the bot loads, journeys/nlu/data/nlu_runtime.npz. `--no-markers` builds the
models without the rule-detector features (to another path) for comparison.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from journeys.nlu import model, word_language
from journeys.nlu.sources import all_rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-markers", action="store_true")
    parser.add_argument("--out", type=Path, default=model.ARTIFACT)
    args = parser.parse_args(argv)
    # The language markers read this scorer, so it is fitted before any marker is computed.
    word_language.build()
    rows = all_rows()
    if not any(r.source == "banking77" for r in rows):
        sys.exit("BANKING77 not found under ../shared/corpora (set TULIA_CORPORA)")
    print(f"rows per source: {dict(Counter(r.source for r in rows))}")  # noqa: T201
    art = model.fit(rows, markers=not args.no_markers)
    model.save(art, args.out)
    if args.out == model.ARTIFACT:
        model.save_runtime(art)
    size = args.out.stat().st_size / 1e6
    summary = {**art.meta, "artifact": str(args.out), "megabytes": round(size, 2)}
    print(json.dumps(summary))  # noqa: T201


if __name__ == "__main__":
    main()
