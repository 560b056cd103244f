"""Language detection (en / sw / sheng / mixed) and the SPEC §5.2 reply-language rule.

Detection votes word by word: a word in the Sheng list, or a Swahili verb prefix on an
English root ("ku-buy", "mna-deliver", "ni-call"), marks Sheng; English and Swahili
words come from hand lists plus the words of the training corpus. A new inflection of
a known Swahili verb is Swahili; any other unfamiliar word is judged by a character
n-gram model of English and Swahili words (journeys/nlu/word_language.py), and votes
weakly when it is unsure. Place and brand names vote for nothing. Conventions follow
the nlu_eval labelling guide (bench/nlu_eval/README.md): one Sheng marker (a listed
slang word, a "ma-" plural on an English noun, or a Swahili-affixed English verb such
as "nili-pay") makes the message Sheng; it is mixed only with at least two words of
English and two of Swahili (MIXED_MIN_WORDS); otherwise the larger side wins, a tie
going to Swahili.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import pairwise

from journeys.nlu.corpus import DATA_DIR, Example, training_examples
from journeys.nlu.dictionary import in_english_dictionary
from journeys.nlu.fragments import is_fragment
from journeys.nlu.product_names import product_name_positions
from journeys.nlu.text import fold, sw_stem, tokens
from journeys.nlu.word_language import swahili_probability
from journeys.state import Lang

LEXICON_FILE = DATA_DIR / "language_lexicon.json"
SWITCH_THRESHOLD = 0.75  # SPEC §5.2
# Mixed is code-switching with at least two words of each language (nlu_eval guide): one
# English noun in a Swahili sentence ("delivery ya Kisumu ni siku ngapi") stays Swahili.
# A word of unfamiliar shape votes 0.35, so one listed word and two guessed ones suffice.
MIXED_MIN_WORDS = 1.7
# The word model's share for a word no list knows: at least this sure, the word counts in full
# (and can alone make an English sentence mixed); 0.8 would still take "sofa", "combo"
# and "toyota" for Swahili.
SURE_WORD_SHARE = 0.95
LIKELY_WORD_SHARE = 0.75
LIKELY_WORD_WEIGHT = 0.6
UNSURE_WORD_WEIGHT = 0.35
# A "ma-" stem the word model gives less than this share of Swahili is an English noun.
ENGLISH_STEM_SHARE = 0.3
# English words that only a speaker switching languages puts in a Swahili sentence: a
# noun can be a loan ("delivery ya Kisumu"), "but" or "because" cannot; nor can the
# courtesy, greeting and time words every writer of our labelled sets called code-mixing
# ("Please nieleze...": 61 mixed lines, no Swahili one; "hello"/"hi": 14 and none).
_FUNCTION_WORDS = (
    "but and so because coz cause if or then when also just even actually still already "
    "the my your our their is are was were will would can could should i you we they it "
    "this that these those with for of from about in on at per to very "
    "please pls plz yes sorry thanks thank today tomorrow yesterday now hello hi hey"
)
ENGLISH_FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split())
# Slots of a Swahili verb's prefix chain: subject ("ni-", "m-", "zi-"), tense ("-na-",
# "-li-", "-me-", "-sha-") and object ("-ni-", "-ku-", "-wa-").
_SUBJECT = "(?:ni|tu|wa|mu|m|u|a|i|zi|li|ki|vi|ya)"
_OBJECT = "(?:ni|tu|ku|wa|mw|m|ki|zi|li|ji|i|u|vi)"
_CONSONANT_FINAL = "[bcdfghjklmnprstvwxyz]"  # no Swahili word ends in one
# The whole chain: negation, subject, tense, object ("ha-ja-ni-", "m-ta-", "ni-li-",
# "ku-"). A chain on an English root is a Sheng hybrid ("hajanicall").
_SW_PREFIX_CHAIN = re.compile(
    rf"(?:ha|hu|si)?{_SUBJECT}?(?:si)?(?:ja|na|li|ta|me|ki|nge|ka|ku|sha)?{_OBJECT}?"
)
# The same chain when it carries a tense (or ku-, or negative si-): a word that starts
# with one is a Swahili verb form, whatever the word model thinks of the whole word.
_SW_TENSED_CHAIN = re.compile(
    rf"(?:(?:ha|hu)?{_SUBJECT}(?:si)?(?:ja|na|li|ta|me|ki|nge|ka|sha)|ku){_OBJECT}?"
)
# Subject (or ku-) and tense before an unknown consonant-final root: "ime-fail", "ku-chat".
_SW_TENSED_ENGLISH = re.compile(
    rf"^(?:(?:ha|hu|si)?{_SUBJECT}(?:ja|na|li|ta|me|nge|ki|ka|sha)"
    rf"(?:ni|tu|ku|wa|mw|m|ki|zi|li|ji)?|ku)(?P<root>[a-z]{{2,}}{_CONSONANT_FINAL})$"
)
# The negative present ("ham-respond", "hai-fit") and the negative subjunctive
# ("usini-cheat", "msi-bargain": don't) have no tense, so only an English root (listed or
# in the dictionary) makes them a hybrid.
_SW_NEGATIVE_ENGLISH = re.compile(
    rf"^(?:(?:ha|si){_SUBJECT}?|(?:u|m|tu|wa)si(?:ni|tu|mw|m|wa|ku)?)"
    rf"(?P<root>[a-z]{{2,}}{_CONSONANT_FINAL})$"
)
# Prefix chain, a consonant-final root and a Swahili verb ending: "ina-adjust-ika".
_SW_DERIVED_VERB = re.compile(
    rf"^(?:(?:ha|hu|si)?{_SUBJECT}(?:si)?(?:ja|na|li|ta|me|nge|ka|ki|sha)?|ku)"
    rf"(?:ni|tu|ku|wa|mw|m|ki|zi|li|ji|i)?(?P<root>[a-z]{{2,}}{_CONSONANT_FINAL})"
    r"(?:ika|ishwa|iwa|iana|ia|ie|wa|ea|ee)$"
    # The negative present ends in -i: "ha-i-boot-i", "ha-zi-fit-i".
    rf"|^ha{_SUBJECT}?(?P<neg_root>[a-z]{{2,}}{_CONSONANT_FINAL})i$"
)
# The street habitual: a conjugated verb plus "-nga" ("mna-uza-nga", "ni-li-ku-a-nga",
# "hu-wa mna-fung-a-nga"). Standard Swahili marks the habitual with hu- instead. A root of
# two letters or more keeps "tuna-p-a-nga" (we arrange) out.
_HABITUAL = re.compile(
    rf"^(?:(?:ha|hu)?{_SUBJECT}(?:na|li|ta|ku){_OBJECT}?|hu)[a-z]{{2,}}(?:a|ia|ea|wa)nga$"
)
# Swahili verbs that end in "-anga" themselves: "mna-kaang-a" fries, it is no habitual.
_VERBS_IN_NGA = ("kaanga", "panga", "changa", "ganga", "tanga")
# "nili-pay", "ku-order": a hyphen between a Swahili prefix chain and an English stem.
# "ma-" and "ka-" take a two-letter stem too ("ka-TV").
_HYPHENATED = re.compile(r"\b([a-z]{1,6})-([a-z]{2,})\b")
# "nli-kuwa", "nme-lipa", "nta-kuja", "nsha-tuma": "ni-" clipped to "n-" before a tense.
# Standard Swahili writes the vowel; a clipped one is street spelling.
_CLIPPED_NI = re.compile(r"^n(?=(?:li|me|ta|sha)[a-z]{2,})")
# "na-skia", "hai-skiki": "sikia" (hear) with its first vowel dropped, as street spelling
# has it.
_CLIPPED_SIKIA = re.compile(r"sk(?:ia|ika|iki|ize|iza|ilize|iliza)$")
# "Sema," or "sema boss" opening a message is the street greeting, not "say".
_SHENG_OPENER = re.compile(
    r"^\W*(?:sema\b(?:\W*$|\s*[,!]|\s+(?:boss|bro|gee|mkuu)\b)|mtu wangu\s*[,!])"
)
_ACRONYM = re.compile(r"^[bcdfghjklmnpqrstvwxz]{2,4}$")
_SW_SHAPE = re.compile(r"^[^aeiou]*(?:[aeiou]+[bcdfghjklmnprstvwyz']{1,3})*[aeiou]+$")


@dataclass(frozen=True, slots=True)
class Lexicon:
    en: frozenset[str]
    sw: frozenset[str]
    sheng: frozenset[str]
    neutral: frozenset[str] = frozenset()  # names: places, brands, networks
    sw_roots: frozenset[str] = frozenset()  # verb roots of the Swahili words ("lip", "nunu")
    # English slang that is a Sheng marker inside Swahili ("parcel iko wapi bro") but
    # plain English in an English sentence ("thanks bro").
    slang: frozenset[str] = frozenset()
    # Street idioms of two standard words ("kula kona"); the first may carry prefixes.
    idioms: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class LanguageResult:
    language: Lang
    confidence: float


@cache
def lexicon() -> Lexicon:
    return build_lexicon(training_examples())


def build_lexicon(examples: Iterable[Example]) -> Lexicon:
    """Hand lists extended by corpus words; cross-validation builds one per fold."""
    raw = json.loads(LEXICON_FILE.read_text(encoding="utf-8"))
    seen: dict[str, set[str]] = {"en": set(), "sw": set()}
    for ex in examples:
        if ex.language in seen:
            seen[ex.language].update(tokens(ex.text))
    hand_en, hand_sw, sheng = set(raw["en"]), set(raw["sw"]), frozenset(raw["sheng"])
    # Corpus words extend the hand lists but never override them: an English loanword in
    # a Swahili example ("confirmation") must not become Swahili.
    # Some corpus lines are labelled by their frame, so a Swahili word can sit in an
    # English-labelled line ("my order haijafika"); the word model keeps such words out.
    en_only = {w for w in seen["en"] - seen["sw"] - hand_sw if not _surely(w, "sw")}
    sw_only = {w for w in seen["sw"] - seen["en"] - hand_en if not _english_loan(w)}
    en = frozenset(hand_en | en_only) - sheng
    sw = frozenset(hand_sw | sw_only) - sheng
    neutral = frozenset(raw["neutral"])
    sw = sw - neutral
    roots = frozenset(root for root in map(sw_stem, sw) if root is not None)
    slang = frozenset(raw["sheng_with_swahili"])
    # Unpacking fails loudly on a phrase that is not two words.
    idioms = tuple((head, tail) for head, tail in map(str.split, raw["sheng_idioms"]))
    return Lexicon(
        en=en - neutral - slang,
        sw=sw,
        sheng=sheng,
        neutral=neutral,
        sw_roots=roots,
        slang=slang,
        idioms=idioms,
    )


def _english_loan(word: str) -> bool:
    """An English word in a Swahili line ("spare parts"), not a Swahili spelling ("betri").

    Swahili spellings end in a vowel, so a consonant-final word needs only to lean
    English; a vowel-final one has to be nearly certain.
    """
    if not word.isalpha() or len(word) <= 2:
        return False
    sw_share = swahili_share(word)
    return sw_share < 0.1 or (sw_share < 0.5 and not _SW_SHAPE.match(word))


def _surely(word: str, lang: str) -> bool:
    if not word.isalpha() or len(word) <= 2:
        return False
    sw_share = swahili_share(word)
    return (sw_share if lang == "sw" else 1.0 - sw_share) >= SURE_WORD_SHARE


def _is_hybrid(word: str, lex: Lexicon) -> bool:
    """A Swahili verb prefix on an English root: "kubuy", "mnadeliver", "haijafit".

    Also the Sheng "ma-" plural on an English noun ("mashoes", "maphones"), and a root
    no word list knows when it ends in a consonant (Swahili words end in a vowel) behind a
    full subject-and-tense chain ("imefail", "haijaconfirm", "nimeorder").
    """
    if word in lex.sw or word in lex.en or in_english_dictionary(word):
        return False  # "un-acceptable" and "a-mend" are English, whatever their start
    stem = word[2:] if word.startswith("ma") else ""
    if (len(stem) >= 3 or _ACRONYM.match(stem)) and _english_noun(stem, lex):
        return True
    if _HABITUAL.match(word) and word not in lex.sw and not word.endswith(_VERBS_IN_NGA):
        return True
    # A one-letter prefix is too weak a sign: "i-phones", "a-mount". English words split
    # into "prefix" and English-looking rest too ("wa-rdrobe", "im-itation"), so a root
    # only the word model knows needs a prefix with a tense ("ime-bounce", "nili-hustle").
    for cut in range(2, len(word) - 2):
        root = word[cut:]
        # Short Sheng words make poor roots: "mw-ako" is the Swahili "your", "zinani-bana"
        # is "they pinch me". Behind a tense ("zili-kam") they are verbs, unless Swahili
        # has the verb too.
        tensed = _SW_TENSED_CHAIN.fullmatch(word[:cut]) is not None
        known = (
            root in lex.en
            or (
                root in lex.sheng
                and (len(root) >= 5 or (tensed and len(root) >= 3))
                and sw_stem(word) not in lex.sw_roots  # "nim-ebana" is "nime-bana"
            )
            or (tensed and len(root) >= 4 and root not in lex.sw and _english_word(root))
        )
        if known and _SW_PREFIX_CHAIN.fullmatch(word[:cut]):
            return True
    return (
        _consonant_final_root(word, lex)
        or _english_verb_with_swahili_ending(word, lex)
        or _diminutive(word, lex)
    )


def _consonant_final_root(word: str, lex: Lexicon) -> bool:
    """A root no Swahili word could end with, behind a tense ("ime-fail", "nime-log") or
    the negative present ("ham-respond", which needs the root to be English)."""
    match = _SW_TENSED_ENGLISH.match(word)
    if match is not None and match.group("root") not in lex.sw:
        return True
    negative = _SW_NEGATIVE_ENGLISH.match(word)
    if negative is None:
        return False
    return negative.group("root") in lex.en or in_english_dictionary(negative.group("root"))


def _diminutive(word: str, lex: Lexicon) -> bool:
    """The street diminutive "ka-" on a noun: "ka-biashara", "ka-simu", "ka-TV".

    Standard Swahili makes diminutives with "ki-"; a word that merely starts with "ka"
    ("kahawa", "kazini") is excluded by needing the whole word to be unknown.
    """
    rest = word[2:]
    if not word.startswith("ka") or word in lex.sw:
        return False
    if _ACRONYM.match(rest):
        return True  # the dictionary check upstream keeps "kart" and "karst" out
    return len(rest) >= 4 and rest in lex.sw and not _surely(rest, "en")


def _english_verb_with_swahili_ending(word: str, lex: Lexicon) -> bool:
    """An English verb conjugated as a Swahili one: "inaadjustika", "niaddie", "tumeorderiwa".

    "nisaidie" has the same shape with the Swahili root "said(i)", which the corpus
    knows, so a root Swahili words already use is never taken for English.
    """
    match = _SW_DERIVED_VERB.match(word)
    if match is None or sw_stem(word) in lex.sw_roots:
        return False
    group = "root" if match.group("root") else "neg_root"
    root = match.group(group)
    if word[match.start(group) :] in lex.sw:
        return False  # "kuni-andika" is "andika" (write) with an object, not "and"
    # "ku-ni-let-ea" is "leta" (bring) with an object, however English "let" looks.
    return root not in lex.sw and root not in lex.sw_roots and _english_root(root, lex)


def _english_noun(stem: str, lex: Lexicon) -> bool:
    """The stem of a Sheng "ma-" plural ("ma-tiles", "ma-wigs"), not of a Swahili ji-ma
    noun ("ma-tangazo", "ma-futa"), whose stems the word model takes for Swahili, nor an English
    word that merely starts with "ma" ("makes", "market")."""
    if in_english_dictionary("ma" + stem):
        return False  # "match", "magazine", "makes": English words, not plurals
    if stem in lex.en:
        # "ma-king" is "making": a short stem needs a whole word the word model won't call English.
        return len(stem) >= 5 or not _surely("ma" + stem, "en")
    # An all-consonant ("ma-tv") or consonant-final ("ma-bulb") stem cannot be Swahili.
    if _ACRONYM.match(stem):
        return True
    if not _SW_SHAPE.match(stem):
        return in_english_dictionary(stem)
    if len(stem) < 4 or stem in lex.sw or _surely("ma" + stem, "en"):
        return False
    return swahili_share(stem) < ENGLISH_STEM_SHARE


def _english_root(root: str, lex: Lexicon) -> bool:
    """A listed English word, or a longer consonant-final English one.

    The dictionary only for roots of five letters or more: clipped Swahili roots of four
    are often English words too ("ha-i-tosh-i").
    """
    if root in lex.en:
        return True
    if len(root) < 4 or root[-1] in "aeiou":
        return False
    return _surely(root, "en") or (len(root) >= 5 and _english_word(root))


def _english_word(word: str) -> bool:
    """The word model is sure it is English, or it is in the dictionary and leans English.

    The word model alone misses some common words; the dictionary alone holds words
    Swahili has too ("panda"), which the word model leans Swahili on.
    """
    if _surely(word, "en"):
        return True
    return in_english_dictionary(word) and swahili_share(word) < 0.5


def word_votes(word: str, lex: Lexicon) -> tuple[str, float]:
    """Which language one word speaks for, and how strongly."""
    if not word.replace("'", "").isalpha() or word in lex.neutral:
        return "none", 0.0
    if word in lex.sheng or _is_hybrid(word, lex) or _clipped_swahili(word, lex):
        return "sheng", 1.0
    listed = [lang for lang, words in _LISTS if word in getattr(lex, words)]
    if listed:
        # A word in both lists ("size") is a loan that speaks for neither.
        return (listed[0], 1.0) if len(listed) == 1 else ("none", 0.0)
    # A new inflection of a known verb ("mtanilipia" of "lipa") is surely Swahili.
    if sw_stem(word) in lex.sw_roots and _SW_SHAPE.match(word):
        return "sw", 1.0
    return unfamiliar_word_vote(word)


_LISTS = (("slang", "slang"), ("en", "en"), ("sw", "sw"))


def _clipped_swahili(word: str, lex: Lexicon) -> bool:
    """A Swahili verb written with "ni-" clipped to "n-" ("nlikuwa", "nmefika"), or
    "sikia" clipped to "skia" ("haiskiki")."""
    if word in lex.sw or word in lex.en:
        return False
    if _CLIPPED_SIKIA.search(word) is not None:
        return not in_english_dictionary(word)
    if _CLIPPED_NI.match(word) is None:
        return False
    full = "ni" + word[1:]
    swahili = full in lex.sw or sw_stem(full) in lex.sw_roots or _surely(full, "sw")
    return swahili or _is_hybrid(full, lex)  # "nta-come" is "nita-come"


def _idioms(words: list[str], lex: Lexicon) -> int:
    """How many street idioms ("mnanikulia kona", "hakuna kesi") the words hold.

    Also "juu" for "because", which Sheng puts before a verb ("juu nimechukua mingi");
    standard Swahili's "juu" (up, high) comes after what it describes. And "mbaya" for
    "very".
    """
    pairs = list(pairwise(words))
    idioms = sum(
        1
        for first, second in pairs
        for head, tail in lex.idioms
        if second == tail and first.endswith(head)
    )
    because = sum(1 for first, second in pairs if first == "juu" and _SW_TENSED_CHAIN.match(second))
    # "mbaya" straight after a verb is the street intensifier ("nimechoka mbaya"); the
    # standard adverb is "vibaya", and "imekuwa mbaya" (has become bad) is no intensifier.
    very = sum(
        1
        for first, second in pairs
        if second == "mbaya"
        and _SW_TENSED_CHAIN.match(first)
        and not first.endswith(("kuwa", "onekana"))
    )
    return idioms + because + very + _addressed_as_boss(words)


def _addressed_as_boss(words: list[str]) -> int:
    """ "mzito" (big man) opening or closing a message is a street form of address; after
    "ni" ("mzigo ni mzito") it is only heavy."""
    if not words:
        return 0
    opening = words[0] == "mzito"
    closing = len(words) > 1 and words[-1] == "mzito" and words[-2] not in ("ni", "si", "sana")
    return int(opening or closing)


@lru_cache(maxsize=8192)
def unfamiliar_word_vote(word: str) -> tuple[str, float]:
    """A word no list knows, judged by the character model of English and Swahili words.

    Those models were trained on large corpora of both languages, so they know that
    "ujumbe" and "wowote" are Swahili and "warranty" English without our lists growing
    forever. Words of two letters or fewer carry too little to judge.
    """
    if len(word) <= 2:
        return "none", 0.0
    if not _SW_SHAPE.match(word):
        # Swahili spelling ends every word in a vowel and never stacks four consonants,
        # so "push", "charger" and "thx" are English as surely as a listed word.
        return "en", 1.0
    sw_share = swahili_share(word)
    lang, share = ("sw", sw_share) if sw_share >= 0.5 else ("en", 1.0 - sw_share)
    if share >= SURE_WORD_SHARE:
        return lang, 1.0
    return lang, LIKELY_WORD_WEIGHT if share >= LIKELY_WORD_SHARE else UNSURE_WORD_WEIGHT


@lru_cache(maxsize=16384)
def swahili_share(word: str) -> float:
    """How likely (0-1) a word is Swahili rather than English, from its letters
    (journeys/nlu/word_language.py, a character n-gram model fitted on our writing)."""
    sw_share = swahili_probability(word)
    if not _SW_SHAPE.match(word):
        # Swahili spelling ends every word in a vowel and never stacks four consonants:
        # "thx", "zxcv" and "sms" cannot be Swahili, whatever their letters suggest.
        return min(sw_share, 0.49)
    return sw_share


def _tally(words: list[str], lex: Lexicon) -> tuple[defaultdict[str, float], Counter[str]]:
    """Each word's vote, summed; a product's name ("air max") votes for no language."""
    weights: defaultdict[str, float] = defaultdict(float)
    strong: Counter[str] = Counter()
    names = product_name_positions(words)
    for word in (w for i, w in enumerate(words) if i not in names):
        lang, weight = word_votes(word, lex)
        if lang != "none":
            weights[lang] += weight
            strong[lang] += weight >= 1.0
    return weights, strong


def detect_language(text: str) -> LanguageResult:
    """The trained language head; the word votes below are among its features.

    A bare number or two ("2", "42", "moja") answers a numbered list, and a single word
    ("sawa", "ok", "kadi", "mpesa") is said alike in all four registers: neither carries
    evidence of the customer's register, so it is read with no confidence and the
    conversation keeps its language (SPEC §5.2's switch threshold is never reached by
    them). The model may well be right that "sawa" is Swahili; a Sheng or English
    speaker says it too. (Our labels give a lone word its dictionary language, so the
    calibration cannot learn this.)
    """
    words = tokens(text)
    if not words:
        return LanguageResult(language="mixed", confidence=0.0)
    # Local imports: the model and the intent module import this module's tallies.
    from journeys.nlu.intent import is_bare_number
    from journeys.nlu.verdict import verdict

    found = verdict(text)["language"]
    no_register = len(words) == 1 or is_bare_number(words)
    confidence = 0.0 if no_register else round(found.confidence, 3)
    return LanguageResult(language=found.label, confidence=confidence)  # type: ignore[arg-type]


def _join_hyphenated(folded: str) -> str:
    """ "nili-pay" -> "nilipay", "ma-offer" -> "maoffer": prefix and English stem are one word."""
    return _HYPHENATED.sub(
        lambda m: (
            m.group(1) + m.group(2)
            if m.group(1) in ("ma", "ka")
            or (len(m.group(2)) >= 3 and _SW_PREFIX_CHAIN.fullmatch(m.group(1)))
            else m.group(0)
        ),
        folded,
    )


def _code_switched(weights: dict[str, float], strong: Counter[str], words: list[str]) -> bool:
    """Both languages present as phrases, not as a borrowed word.

    English nouns are borrowed into Swahili all the time ("delivery ya Kisumu ni siku
    ngapi" is Swahili), so a Swahili frame needs two English words, or one English word
    no one borrows ("mlisema itafika leo but sijaona kitu"). The reverse borrowing is
    rare: a Swahili word inside an English sentence ("Where is your shop? Niko Thika
    Road") is the customer switching, and one surely Swahili word makes it mixed.
    """
    if not (strong["en"] and strong["sw"]):
        return False
    if weights["en"] > weights["sw"]:
        return weights["en"] >= MIXED_MIN_WORDS and strong["sw"] >= 1
    if min(weights["en"], weights["sw"]) >= MIXED_MIN_WORDS:
        return True
    return strong["sw"] >= 2 and any(word in ENGLISH_FUNCTION_WORDS for word in words)


@dataclass(frozen=True, slots=True)
class WordTally:
    """How the words of one message vote, before any decision: the trained language
    model reads these as features (journeys/nlu/markers.py)."""

    words: tuple[str, ...]
    weights: dict[str, float]
    strong: dict[str, int]
    street: int  # idioms and street openers ("sema boss", "mnanikulia kona")


def word_tally(text: str, lex: Lexicon | None = None) -> WordTally:
    lex = lex or lexicon()
    folded = fold(text)
    words = tokens(_join_hyphenated(folded))
    weights, strong = _tally(words, lex)
    street = _idioms(words, lex) + (_SHENG_OPENER.match(folded) is not None)
    return WordTally(tuple(words), dict(weights), dict(strong), street)


def detect_with(lex: Lexicon, text: str) -> LanguageResult:
    """The hand-written rule: kept as the marker source and for comparison in benches."""
    folded = fold(text)
    words = tokens(_join_hyphenated(folded))
    weights, strong = _tally(words, lex)
    street = _idioms(words, lex) + (_SHENG_OPENER.match(folded) is not None)
    if street:
        weights["sheng"] += street
        strong["sheng"] += street
    if not weights:
        return LanguageResult(language="mixed", confidence=0.0)
    if strong["slang"]:
        # Slang makes a Swahili message Sheng; without Swahili it is just English.
        target = "sheng" if weights["sw"] or strong["sheng"] else "en"
        weights[target] += weights.pop("slang")
        strong[target] += strong.pop("slang")
    if strong["sheng"]:
        others = strong["en"] + strong["sw"]
        confidence = 0.76 + 0.08 * (strong["sheng"] - 1) + 0.02 * min(others, 4)
        return LanguageResult(language="sheng", confidence=round(min(confidence, 0.97), 3))
    base = weights["en"] + weights["sw"]
    en_share, sw_share = weights["en"] / base, weights["sw"] / base
    if _code_switched(weights, strong, words):
        confidence = 0.6 + 0.1 * min(strong["en"] + strong["sw"], 4)
        return LanguageResult(language="mixed", confidence=round(min(confidence, 0.95), 3))
    # A tie ("hi habari", "payment yangu imeenda") is a Swahili frame with an English loan.
    top: Lang = "en" if en_share > sw_share else "sw"
    # A context-less reply ("ya kwanza", "the second one") is too thin to switch on.
    certainty = min(1.0, strong[top] / 2) * (0.5 if is_fragment(words) else 1.0)
    confidence = 0.45 + 0.5 * max(en_share, sw_share) * certainty
    return LanguageResult(language=top, confidence=round(confidence, 3))


@dataclass(frozen=True, slots=True)
class LanguageDecision:
    language: Lang
    reason: str  # "detected" | "customer_preference" | "tenant_default"


def choose_response_language(
    detected: LanguageResult,
    *,
    allowed: list[str],
    customer_pref: Lang | None,
    tenant_default: Lang,
) -> LanguageDecision:
    """SPEC §5.2: switch only on a confident, allowed detection; else preference, else default.

    "mixed" is never a tenant language, so a mixed message is answered in the customer's
    saved language or the tenant default.
    """
    if detected.confidence >= SWITCH_THRESHOLD and detected.language in allowed:
        return LanguageDecision(detected.language, "detected")
    if customer_pref is not None and customer_pref in allowed:
        return LanguageDecision(customer_pref, "customer_preference")
    return LanguageDecision(tenant_default, "tenant_default")
