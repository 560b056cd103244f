"""Conversation benchmark: scripted WhatsApp conversations through the turn handler.

    TULIA_DATA_DIR=var/turns-bench .venv/bin/python bench/turns.py \
        [--conversations 320] [--workers 2] [--seed 11] [--mode both|deterministic|cascade]
        [--worst N]

Seeds the demo shops (Kicks Nairobi: 221 products and knowledge-base documents; Mama
Mboga, Swahili first), points their M-Pesa accounts at a local Daraja emulator, and
generates reproducible conversations from per-journey, per-language line templates:
sales through to a paid order, support questions answered from the documents, order
status and "did my payment go through?", offers and coupons, preferences and consent,
clarifying questions, messages the bot cannot place, and escalation to a person, in
English, Swahili and Sheng. Sales answers follow the bot (the step it is on, the sizes
it offers), so conversations reach payment whatever the phrasing of the replies.

`--workers` OS processes, each with its own Django setup, drive their share of the
conversations through `journeys.handler.handle_turn` as the pipeline does (state from
the last turn in, state stored back after it), against the embedded PostgreSQL and
Redis of the bench profile. When a payment is pending the customer "pays": a Daraja
callback is stored and processed by the payments code, as the callback view and its
task would. Per turn it records wall and CPU time, database queries and LLM calls.

Deterministic mode runs without an LLM key; cascade mode points OPENAI_BASE_URL at the
OpenAI-compatible emulator (journeys/llm_emulator.py), which answers like a model that
knows what the script meant, so every LLM call the cascade makes is counted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tulia.settings")
os.environ.setdefault("TULIA_PROFILE", "bench")

from tulia import embedded  # noqa: E402

embedded.start(os.environ["TULIA_PROFILE"])  # settings only name the servers

from turns_parts.driver import run_workers  # noqa: E402
from turns_parts.oracle import emulated_llm  # noqa: E402
from turns_parts.report import report, summary, worst_turns  # noqa: E402
from turns_parts.scripts import WARMUP, WARMUP_FIRST, Labels, make_plans  # noqa: E402
from turns_parts.shops import daraja_for_demo_shops, prepare_database, share_servers  # noqa: E402

# Issue 25's budget: at most $1 of LLM a month for a shop with this many customer messages.
SHOP_MONTH_MESSAGES = 10_000


def run_mode(mode: str, args: argparse.Namespace) -> dict[str, float]:
    labels = Labels()
    run = random.randrange(100_000)  # fresh customers every run: no state carried over
    plans = make_plans(args.conversations, args.seed, run, labels)
    warmup = make_plans(WARMUP, args.seed + 1, run, labels, first=WARMUP_FIRST)
    if mode != "cascade":
        results = run_workers(plans, warmup, args.workers, args.worst)
        worst_turns(results, args.worst)
        return report(mode, results, args.workers)
    with emulated_llm(labels) as cost:
        results = run_workers(plans, warmup, args.workers, args.worst)
    worst_turns(results, args.worst)
    shown = report(mode, results, args.workers)
    per_turn = shown["llm_calls_per_turn"] * cost["dollars_per_call"]
    shown["llm_dollars_per_1000_conversations"] = round(
        per_turn * shown["turns"] / len(plans) * 1000, 4
    )
    shown["llm_dollars_per_shop_month"] = round(per_turn * SHOP_MONTH_MESSAGES, 4)
    print(
        f"LLM cost at gpt-4o-mini prices (tokens estimated): "
        f"${shown['llm_dollars_per_1000_conversations']} per 1,000 conversations, "
        f"${shown['llm_dollars_per_shop_month']} per shop-month of "
        f"{SHOP_MONTH_MESSAGES:,} customer messages (budget $1)"
    )
    return shown


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", type=int, default=320)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--mode", choices=["both", "deterministic", "cascade"], default="both")
    parser.add_argument("--worst", type=int, default=0, help="print the N turns with most queries")
    args = parser.parse_args()
    if args.conversations >= WARMUP_FIRST:
        parser.error(f"at most {WARMUP_FIRST - 1} conversations")
    import django

    django.setup()
    share_servers()
    prepare_database()
    modes = ["deterministic", "cascade"] if args.mode == "both" else [args.mode]
    shown: dict[str, dict[str, float]] = {}
    with daraja_for_demo_shops():
        for mode in modes:
            shown[mode] = run_mode(mode, args)
    print("summary: " + json.dumps(summary(shown)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
