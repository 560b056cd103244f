"""Swahili and Sheng shopping words, mapped to English and back, for query expansion.

Subword embeddings catch typos but not translation; this small hand-made list is what
lets "viatu nyeusi" find "black shoes" and "sukuma" find "kale".
"""

from __future__ import annotations

from functools import cache

from tulia.normalise import words

# word -> equivalents (every pair also works in reverse)
_PAIRS: dict[str, tuple[str, ...]] = {
    # footwear and clothes
    "viatu": ("shoes", "sneakers"),
    "kiatu": ("shoe", "sneaker"),
    "raba": ("sneakers", "trainers"),
    "rabas": ("sneakers",),
    "njumu": ("shoes", "sneakers"),
    "ndala": ("sandals", "slides", "slippers"),
    "sapatu": ("sandals",),
    "soksi": ("socks",),
    "kofia": ("cap", "hat"),
    "jezi": ("jersey",),
    "suruali": ("trousers", "pants"),
    "begi": ("bag", "backpack"),
    "buti": ("boots",),
    "kukimbia": ("running",),
    "wanaume": ("men",),
    "wanawake": ("women",),
    "watoto": ("kids",),
    "mtoto": ("kids",),
    # colours
    "nyeusi": ("black",),
    "nyeupe": ("white",),
    "nyekundu": ("red",),
    "bluu": ("blue",),
    "samawati": ("blue",),
    "kijani": ("green",),
    "njano": ("yellow",),
    "kahawia": ("brown",),
    "kijivu": ("grey", "gray"),
    "waridi": ("pink",),
    # groceries
    "sukuma": ("kale", "collards"),
    "skuma": ("kale",),
    "mboga": ("vegetables", "greens"),
    "matunda": ("fruits", "fruit"),
    "nyanya": ("tomatoes", "tomato"),
    "kitunguu": ("onion",),
    "vitunguu": ("onions", "onion"),
    "saumu": ("garlic",),
    "viazi": ("potatoes", "potato"),
    "karoti": ("carrots",),
    "kabichi": ("cabbage",),
    "mchicha": ("spinach", "amaranth"),
    "managu": ("nightshade",),
    "terere": ("amaranth",),
    "embe": ("mango", "mangoes"),
    "maembe": ("mangoes", "mango"),
    "ndizi": ("bananas", "banana"),
    "chungwa": ("orange",),
    "machungwa": ("oranges", "orange"),
    "parachichi": ("avocado",),
    "nanasi": ("pineapple",),
    "tikiti": ("watermelon",),
    "pasheni": ("passion",),
    "ndimu": ("lemon", "lime"),
    "unga": ("flour",),
    "mchele": ("rice",),
    "sukari": ("sugar",),
    "chumvi": ("salt",),
    "mafuta": ("oil",),
    "maziwa": ("milk",),
    "mayai": ("eggs",),
    "yai": ("egg", "eggs"),
    "mkate": ("bread",),
    "maharagwe": ("beans",),
    "ndengu": ("grams", "lentils"),
    "dengu": ("grams", "lentils"),
    "tangawizi": ("ginger",),
    "pilipili": ("chilli", "pepper"),
    "dhania": ("coriander", "dhania"),
    "chai": ("tea",),
    "kahawa": ("coffee",),
    "nyama": ("meat", "beef"),
    "kuku": ("chicken",),
    "samaki": ("fish",),
    "omena": ("sardines",),
    "mahindi": ("maize", "corn"),
    "njugu": ("groundnuts", "peanuts"),
    "asali": ("honey",),
    "siagi": ("butter",),
    "mtindi": ("yoghurt", "mala"),
    "mala": ("fermented", "milk"),
}


@cache
def _lexicon() -> dict[str, frozenset[str]]:
    both: dict[str, set[str]] = {}
    for word, equivalents in _PAIRS.items():
        for other in equivalents:
            both.setdefault(word, set()).add(other)
            both.setdefault(other, set()).add(word)
    return {word: frozenset(others) for word, others in both.items()}


def is_product_word(word: str) -> bool:
    """A word the shop lexicon knows as naming a kind of product ("raba", "sneakers")."""
    return word in _lexicon()


# Joining words that carry no product meaning ("viatu vya kukimbia", "raba za vans").
STOP_WORDS = frozenset(
    {"za", "ya", "wa", "vya", "cha", "la", "na", "kwa", "ni", "nataka", "niko", "the",
     "for", "of", "and", "with", "a", "an", "some", "i", "want", "need", "do", "you", "have"}
)  # fmt: skip


def expand_groups(text: str) -> list[list[str]]:
    """One group per meaningful query word: the word followed by its equivalents."""
    groups = []
    for word in dict.fromkeys(words(text)):
        if word not in STOP_WORDS:
            groups.append([word, *sorted(_lexicon().get(word, ()))])
    return groups


def expand(text: str) -> list[str]:
    """The query's words followed by their equivalents, without duplicates."""
    original = words(text)
    expanded = list(dict.fromkeys(original))
    for word in original:
        for other in sorted(_lexicon().get(word, ())):
            if other not in expanded:
                expanded.append(other)
    return expanded
