"""The hand-written detectors, turned into numeric features for the trained models.

They no longer decide a class on their own: each returns counts that the language and
governor models weigh against the text features (bench/nlu.py reports the models with
and without them, so a marker that behaves like a hidden rule shows up there).

- language: how the words vote in the old rule detector (English, Swahili, Sheng slang,
  Swahili-affixed English verbs such as "nili-pay", street idioms);
- governor: insult words and masked swearing, scam cues (journeys/nlu/spam.py), links,
  long digit runs (phone, till and premium numbers), shouting.
"""

from __future__ import annotations

import math
import re
from functools import cache

from journeys.nlu.language import word_tally
from journeys.nlu.spam import SPAM_SCORE, spam_score
from journeys.nlu.text import fold, tokens

LANGUAGE_MARKERS = (
    "en_votes", "sw_votes", "slang_votes", "sheng_votes", "en_strong", "sw_strong",
    "sheng_strong", "street", "en_share", "sw_share",
)  # fmt: skip
GOVERNOR_MARKERS = (
    "insults", "insult_phrases", "masked_swearing", "scam_cues", "spam_phrases",
    "link", "digit_runs", "shouting", "exclaims",
)  # fmt: skip
# Swearing masked with symbols ("f***", "sh*t", "f#@k") is still swearing.
_MASKED = re.compile(r"\b[a-z]{1,3}[*#@$]{2,}[a-z]*|\b[a-z]{1,3}\*[a-z]{1,2}\b", re.IGNORECASE)
_URL = re.compile(r"https?://|www\.|\b[a-z0-9-]+\.(?:com|ke|net|org|ly|me|io|co)\b", re.IGNORECASE)
# Phone, till, paybill and premium numbers: scams ask to call or send to one.
_DIGIT_RUN = re.compile(r"(?:\+?\d[\d\s-]{5,}\d)")


def _log(count: float) -> float:
    return math.log1p(max(count, 0.0))


def language_markers(text: str) -> list[float]:
    tally = word_tally(text)
    w, s = tally.weights, tally.strong
    en, sw = w.get("en", 0.0), w.get("sw", 0.0)
    base = en + sw
    return [
        _log(en), _log(sw), _log(w.get("slang", 0.0)), _log(w.get("sheng", 0.0)),
        _log(s.get("en", 0)), _log(s.get("sw", 0)), _log(s.get("sheng", 0) + s.get("slang", 0)),
        _log(tally.street), en / base if base else 0.0, sw / base if base else 0.0,
    ]  # fmt: skip


@cache
def _governor_lists() -> tuple[frozenset[str], re.Pattern[str], re.Pattern[str]]:
    from journeys.nlu.governor import lexicon

    lex = lexicon()
    abuse = "|".join(re.escape(p) for p in sorted(lex["abuse_phrases"]))
    spam = "|".join(re.escape(p) for p in sorted(lex["spam_phrases"]))
    # "you won't" is not "you won": a spam phrase must not run into an apostrophe.
    return lex["abuse_words"], re.compile(rf"\b(?:{abuse})\b"), re.compile(rf"\b(?:{spam})(?!')")


def _insult_counts(text: str) -> tuple[int, int, int]:
    words = tokens(text)
    insults, abuse_phrases, _ = _governor_lists()
    return (
        sum(word in insults for word in words),
        len(abuse_phrases.findall(" ".join(words))),
        len(_MASKED.findall(text)),
    )


def governor_markers(text: str) -> list[float]:
    insults, phrases, masked = _insult_counts(text)
    letters = [ch for ch in text if ch.isalpha()]
    upper = sum(ch.isupper() for ch in letters) / len(letters) if len(letters) >= 8 else 0.0
    return [
        _log(insults), _log(phrases), _log(masked), _log(spam_score(text)),
        _log(len(_governor_lists()[2].findall(fold(text)))), float(bool(_URL.search(text))),
        _log(len(_DIGIT_RUN.findall(text))), upper, _log(text.count("!")),
    ]  # fmt: skip


def looks_abusive(text: str) -> bool:
    """Any insult marker: used only to give the old corpus's small-talk lines a governor
    label (journeys/nlu/sources.py), never to decide a live message."""
    return any(_insult_counts(text))


def looks_spammy(text: str) -> bool:
    """Scam markers, for the same labelling job as `looks_abusive`."""
    return spam_score(text) >= SPAM_SCORE or bool(_governor_lists()[2].search(fold(text)))
