"""How single words vote in language detection: our word model for unlisted words, slang that is
Sheng only inside Swahili, Swahili-conjugated English verbs, and the corpus gate."""

from __future__ import annotations

import pytest

from journeys.nlu.corpus import Example
from journeys.nlu.language import (
    Lexicon,
    build_lexicon,
    detect_with,
    lexicon,
    unfamiliar_word_vote,
)

EMPTY = Lexicon(en=frozenset(), sw=frozenset(), sheng=frozenset())


@pytest.mark.parametrize(
    ("word", "language"),
    [
        ("wowote", "sw"),
        ("ujumbe", "sw"),
        ("asubuhi", "sw"),
        ("warranty", "en"),
        ("screen", "en"),
        ("thx", "en"),  # no vowel at the end: Swahili spelling cannot produce it
    ],
)
def test_a_word_no_list_knows_is_judged_by_its_letters(word: str, language: str) -> None:
    voted, weight = unfamiliar_word_vote(word)
    assert (voted, weight > 0) == (language, True)


def test_a_message_of_unlisted_words_still_gets_its_language() -> None:
    assert detect_with(EMPTY, "nimepokea ujumbe wenu asubuhi").language == "sw"
    assert detect_with(EMPTY, "please confirm the delivery schedule").language == "en"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("thanks bro", "en"),  # English slang in English is English
        ("parcel iko wapi bro", "sheng"),  # ... and a Sheng marker in a Swahili frame
        ("ni story tu, hakuna offer", "sheng"),
        ("Where exactly is your shop? Niko Thika Road", "mixed"),  # a Swahili clause
        ("delivery ya Kisumu ni siku ngapi", "sw"),  # one English loan stays Swahili
        ("hiyo cot ya baby inaadjustika ama ni fixed?", "sheng"),  # adjust + -ika
        ("nisaidie tafadhali, sijapata risiti", "sw"),  # saidi-a is a Swahili root
        ("any school uniforms for class 4", "en"),  # "u-niforms" is no hybrid
        ("I sent you 4000 mistakenly", "en"),
        ("warranty ya ma-electronics zenu ni ya muda gani", "sheng"),
        ("reply to me in Swahili from now on", "en"),  # a language's name is no switch
        ("huwa mnauzanga chaja za Tecno?", "sheng"),  # the street habitual -nga
        ("tunapanga kununua kitanda", "sw"),  # ... but "panga" (arrange) is Swahili
        ("bei ya matiles za bafu ni ngapi", "sheng"),  # ma- plural of an English noun
        ("mnauza matangazo ya mafuta?", "sw"),  # ji-ma nouns are standard Swahili
        ("the blender makes a burning smell", "en"),  # "ma-kes" is no plural
        ("hizi mabulb zinaungua haraka", "sheng"),  # a dictionary noun behind "ma-"
        ("maconditioner za natural hair", "sheng"),  # ... so its English is no switch
        ("matv za inch 43 ziko?", "sheng"),  # an all-consonant stem cannot be Swahili
        ("can you match the price on Jumia", "en"),  # "match" is a word of its own
        ("do you sell magazines and markers", "en"),
        ("nlikuwa nimelipa jana usiku", "sheng"),  # "ni-" clipped to "n-"
        ("nilikuwa nimelipa jana usiku", "sw"),  # ... and written out
        ("sema, bei ya hiyo pasi ni ngapi?", "sheng"),  # the street greeting
        ("sema bei ya hiyo pasi", "sw"),  # ... not "say the price"
        ("mbona mnanikulia kona kila siku", "sheng"),  # an idiom of standard words
        ("mnaongeza delivery ya bure juu nimechukua mingi?", "sheng"),  # juu: because
        ("bei iko juu sana, mnaweza kupunguza?", "sw"),  # juu: high
        ("niliwabuyia hiyo pasi", "sheng"),  # "buy" ends in a letter Swahili never does
        ("the shoes zilikam na sole imetoka", "sheng"),  # a Sheng verb behind a tense
        ("The shoes are nice lakini zinanibana kidogo", "mixed"),  # ... not a Swahili one
        ("mkinihold hiyo sofa mpaka Friday nitalipa", "sheng"),  # conditional -ki- tense
        ("nataka kuanzisha kabiashara kwa mtaa", "sheng"),  # street diminutive ka-
        ("naomba kahawa na sukari", "sw"),  # ... not every word starting with "ka"
        ("nimechoka mbaya kungoja", "sheng"),  # "mbaya" for "very" after a verb
        ("hali imekuwa mbaya sana", "sw"),  # ... not after "has become"
        ("side moja haiskiki kitu", "sheng"),  # "sikia" clipped to "skia"
        ("Nataka kuongea na manager, this is unacceptable", "mixed"),  # no "una-" prefix
        ("Please nieleze jinsi ya kutumia hii", "mixed"),  # nobody borrows "please"
        ("Mambo vipi mzito", "sheng"),  # "mzito" closing a message: a form of address
        ("mzigo wangu ni mzito sana", "sw"),  # ... after "ni" it is only heavy
        ("sawa basi, ntacome kesho", "sheng"),  # a clipped "ni-" on a hybrid
        ("Nimeona ka-TV kwa status yenu, bado iko?", "sheng"),  # the diminutive on an acronym
        ("nimelog lakini hamrespond", "sheng"),  # three-letter roots; the negative present
        ("usinicheat, nataka bei ya kweli", "sheng"),  # the negative subjunctive
        ("msinitumie ma promo tena", "sheng"),  # "ma" written apart from its noun
        ("thanks ma", "en"),  # ... which only marks Sheng inside Swahili
        ("una akili ama umeprogramiwa", "sheng"),  # a long dictionary root behind -iwa
        ("Hello? Kuna mtu hapa?", "mixed"),  # nobody borrows a greeting
        ("mlisema itafika leo but sijaona kitu", "mixed"),  # nobody borrows "but"
    ],
)
def test_slang_loans_and_hybrids(text: str, language: str) -> None:
    """The word-vote rule, which the trained language model reads as features."""
    assert detect_with(lexicon(), text).language == language


def test_a_swahili_word_in_an_english_labelled_line_is_not_learnt_as_english() -> None:
    lex = build_lexicon([Example("order_status", "en", "my order haijafika zumbukuku")])
    assert "haijafika" not in lex.en
    assert "order" in lex.en


def test_an_english_word_in_a_swahili_labelled_line_is_not_learnt_as_swahili() -> None:
    lex = build_lexicon([Example("sales_discovery", "sw", "mna spare parts za simu")])
    assert "parts" not in lex.sw
    assert "spare" not in lex.sw
