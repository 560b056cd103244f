"""Small talk by vocabulary: a message made only of greetings, thanks and address words.

Naive Bayes sees "thx", "hiii" or "mambo vipi msee" as rare words and spreads its
probability over every intent, so short pleasantries often fell below the routing bar or
into "unknown". Pleasantries are a closed vocabulary, so a word list settles them; the
classifier still handles everything that carries a request ("hi, mna unga?").
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache

from journeys.nlu.corpus import DATA_DIR

LEXICON_FILE = DATA_DIR / "small_talk.json"
MAX_WORDS = 8  # longer messages nearly always carry a request as well


@dataclass(frozen=True, slots=True)
class _Lexicon:
    core: frozenset[str]  # a greeting or thanks on its own
    core_phrases: tuple[str, ...]  # "how are you": greeting only as a whole
    allowed: frozenset[str]  # everything that may keep a pleasantry company


@cache
def _lexicon() -> _Lexicon:
    raw = json.loads(LEXICON_FILE.read_text(encoding="utf-8"))
    core = frozenset(raw["core"])
    allowed = core | frozenset(raw["greetings"] + raw["thanks"] + raw["address"])
    phrases = tuple(f" {p} " for p in raw["core_phrases"])
    return _Lexicon(core, phrases, allowed | {w for p in phrases for w in p.split()})


def is_small_talk(words: list[str]) -> bool:
    """True when every word is a pleasantry and at least one is a greeting or thanks."""
    lex = _lexicon()
    if not 0 < len(words) <= MAX_WORDS or not set(words) <= lex.allowed:
        return False
    padded = f" {' '.join(words)} "
    return bool(lex.core & set(words)) or any(p in padded for p in lex.core_phrases)
