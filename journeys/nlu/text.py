"""Text folding and tokenising shared by every deterministic classifier.

Customers type on phones: mixed case, curly apostrophes, accents from autocorrect and
stretched words ("pleeease", "sasaaa"). Folding all of that to one plain form lets the
lexicons stay small.
"""

from __future__ import annotations

import re
import unicodedata

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_STRETCH = re.compile(r"(.)\1{2,}")
# "M-Pesa" is one brand; split it would read as the Swahili word "pesa" (money).
_MPESA = re.compile(r"\bm[\s-]?pesa\b")
# Swahili verbs stack prefixes (negation, subject, tense, object) on a root and change
# the final vowel: ku-nunu-a, ni-ta-nunu-a, ha-ija-fik-a, m-ta-ni-punguz-i-a. Peeling them
# lets "mnasafirisha" share evidence with "usafirishaji", and "nilipe" with "kulipa".
_SW_VERB = re.compile(
    r"^(?:ha|hu|si)?(?:ni|tu|wa|mu|m|u|a|i|zi|li|ki|vi|ya)?"
    r"(?:ija|na|li|ta|me|ki|ja|nge|ka)?(?:ni|tu|ku|wa|mw|m|ki|zi|li|ji)?"
    r"(?P<root>[a-z]{3,}?)(?:ishwa|eshwa|iwa|ewa|wa|ia|ea|ie|ee|a|e|i|o)$"
)


def fold(text: str) -> str:
    """Lower-case, accent-free, with curly quotes made straight and stretches shortened."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    plain = plain.replace("\u2019", "'").replace("\u2018", "'").casefold()
    return _STRETCH.sub(r"\1\1", plain)


def tokens(text: str) -> list[str]:
    """Word tokens of the folded text (digits kept: sizes and prices matter)."""
    return _TOKEN.findall(_MPESA.sub("mpesa", fold(text)))


def sw_stem(word: str) -> str | None:
    """The root of a Swahili-shaped verb ("kununua" -> "nunu"), or None for other words."""
    if len(word) < 5:
        return None
    match = _SW_VERB.match(word)
    return match.group("root") if match and match.group("root") != word else None
