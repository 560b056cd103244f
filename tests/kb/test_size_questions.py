"""Size questions reach the size guide: measured on the demo sneaker shop's own documents
with paraphrases in English, Kiswahili and Sheng (none of them the guide's wording)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kb.demo import seed_documents
from kb.query_text import swahili_roots
from kb.retrieval import retrieve
from tenants.demo import seed_tenants

pytestmark = pytest.mark.django_db

SIZE_GUIDES = {"Sneaker Size Guide", "Mwongozo wa Saizi za Viatu"}

# Written for this test, not taken from the guide: how customers ask for help with sizes.
SIZE_QUESTIONS = {
    "en": [
        "which size should I pick?",
        "I have an issue choosing sizes",
        "how do I know my shoe size?",
        "what size would fit me?",
        "I'm between two sizes, which one do I take?",
        "do Air Force 1 run big?",
        "how should I measure my foot?",
        "not sure what size to order",
        "do you have a size chart?",
        "my feet are wide, what size?",
    ],
    "sw": [
        "Nina shida kuchagua saizi",
        "Saizi gani itanifaa?",
        "Nitajuaje saizi yangu?",
        "Nichague saizi gani?",
        "Napimaje mguu wangu?",
        "Saizi ipi itanitosha?",
        "Sijui nichukue saizi gani",
        "Niko katikati ya saizi mbili",
        "Mna chati ya saizi?",
        "Miguu yangu ni mipana, saizi gani?",
    ],
    "sheng": [
        "Size gani itanifit msee?",
        "Nichukue size gani bana?",
        "Sijui size yangu msee",
        "Mko na size chart?",
        "Hizi raba zinakaa aje kwa size?",
        "Nimekwama kuchagua size",
    ],
}
# Questions for the other documents: the size guide must not take them.
OTHER_QUESTIONS = [
    "How much is delivery to Westlands?",
    "Can I return shoes I have worn?",
    "What is your Paybill number?",
    "Mnafungua saa ngapi Jumamosi?",
    "Nitarejeshewa pesa lini?",
    "Mnaleta mpaka Rongai?",
]


@pytest.fixture
def kicks(settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    shops = seed_tenants()
    seed_documents(shops)
    return next(shop for shop in shops if shop.slug == "kicks-nairobi")


def _reaches_guide(tenant, question: str) -> bool:
    found = retrieve(tenant.id, question)
    return not found.no_context and found.hits[0].title in SIZE_GUIDES


@pytest.mark.parametrize("language", sorted(SIZE_QUESTIONS))
def test_size_questions_reach_the_size_guide(kicks, language: str) -> None:
    """Before Swahili roots and the choose/fit/chart words: en 8, sw 4, sheng 2 of these."""
    missed = [q for q in SIZE_QUESTIONS[language] if not _reaches_guide(kicks, q)]
    assert missed == []


def test_other_questions_do_not_land_on_the_size_guide(kicks) -> None:
    wrong = [q for q in OTHER_QUESTIONS if _reaches_guide(kicks, q)]
    assert wrong == []


@pytest.mark.parametrize(
    ("word", "root"),
    [("kuchagua", "chagua"), ("nichague", "chagua"), ("itanifaa", "faa"), ("nichukue", "chukua")],
)
def test_a_swahili_verb_is_looked_up_by_its_root(word: str, root: str) -> None:
    assert root in swahili_roots(word)


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=14))
def test_a_root_is_the_words_own_ending_and_never_shorter_than_three(word: str) -> None:
    for root in swahili_roots(word):
        assert len(root) >= 3
        assert word.endswith(root) or word.endswith(root[:-1] + "e")
