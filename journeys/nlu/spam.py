"""Scam and bulk-message scoring for the governor, beyond the fixed spam phrases.

Scams reword themselves endlessly ("earn 20% weekly", "make 5000 daily from home, dm
me"), so no phrase list keeps up. Their vocabulary is stable though: money promised,
prizes, loans, links, "join", "dm". Each cue alone is ordinary shop talk ("is delivery
free?", "send me the link"), so a message needs SPAM_SCORE distinct cues to count.
"""

from __future__ import annotations

import json
import re
from functools import cache

from journeys.nlu.corpus import DATA_DIR
from journeys.nlu.text import fold, tokens

LEXICON_FILE = DATA_DIR / "governor_lexicon.json"  # shared with the governor's lists
SPAM_SCORE = 2  # one cue is a customer; two together a scam (governor dev sets)
_PERCENT = re.compile(r"\d\s*%")
# "tuma 1000 upate 10000", "send 500 get 5000": money in, more money out is a scam on
# its own, so it scores as two cues.
_MULTIPLIER = re.compile(
    r"\b(?:tuma|send|weka|deposit|invest)\s+(?:ksh\s*|kes\s*|sh\s*)?\d[\d,]*\b.{0,30}?"
    r"\b(?:upate|get|receive|pata|earn|win|uvune)\s+(?:ksh\s*|kes\s*|sh\s*)?\d"
)


# "I sent you money by mistake, send it back": the reversal scam. A customer who paid the
# shop twice or to the wrong till names the till, paybill or order, so those stay out.
# First person only: "you sent the wrong size by mistake" is a customer complaint.
_SENT = (
    r"\b(?:i (?:have |just )?(?:sent|transferred)"
    r"|nimekutumia|nimewatumia|nimetuma|nimekutumie|umetumiwa)\b"
)
_BY_MISTAKE = (
    r"\b(?:by mistake|mistakenly|accidentally|wrongly|by error|in error|kimakosa|kwa makosa)\b"
)
_MISTAKE = re.compile(
    rf"{_SENT}.{{0,50}}?{_BY_MISTAKE}"
    r"|\bi (?:accidentally|mistakenly|wrongly) (?:sent|transferred)\b"
)
_MISTAKE_CUSTOMER = re.compile(r"\b(?:till|paybill|order|oda|twice|mara mbili|double)\b")


@cache
def _cues() -> tuple[frozenset[str], tuple[str, ...]]:
    raw = json.loads(LEXICON_FILE.read_text(encoding="utf-8"))
    return frozenset(raw["spam_cues"]), tuple(sorted(raw["spam_cue_phrases"]))


def spam_score(text: str) -> int:
    """Distinct scam cues in the message: words, phrases and promised percentages."""
    words, phrases = _cues()
    folded = fold(text)
    padded = f" {' '.join(tokens(text))} "
    hits = len(set(padded.split()) & words)
    # Phrases with symbols ("100%") are looked for in the folded text, the rest as words.
    hits += sum(f" {p} " in padded or (p in folded and "%" in p) for p in phrases)
    mistake = bool(_MISTAKE.search(folded)) and not _MISTAKE_CUSTOMER.search(folded)
    return hits + bool(_PERCENT.search(text)) + 2 * (bool(_MULTIPLIER.search(folded)) or mistake)
