"""Heading-aware chunking: nothing lost, nothing too long, sections exact, overlap present."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from kb.chunking import OVERLAP_CHARS, TARGET_CHARS, chunk, normalise, split_body
from tests.hypothesis_profiles import examples

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12)
PARAGRAPH = st.lists(WORD, min_size=1, max_size=80).map(" ".join)
SECTION = st.tuples(
    st.integers(min_value=1, max_value=3), WORD, st.lists(PARAGRAPH, min_size=0, max_size=5)
)


def _markdown(sections: list[tuple[int, str, list[str]]]) -> str:
    return "\n\n".join(
        f"{'#' * level} {title}\n\n" + "\n\n".join(paras) for level, title, paras in sections
    )


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(SECTION, min_size=1, max_size=6))
def test_every_body_word_lands_in_a_chunk_of_bounded_size(sections) -> None:
    drafts = chunk(_markdown(sections))
    chunk_words = [set(d.text.split()) for d in drafts]
    titles = {title for _level, title, _paras in sections}
    assert all(d.section_path.split(" > ")[-1] in titles for d in drafts)
    assert all(len(d.text) <= TARGET_CHARS + OVERLAP_CHARS for d in drafts)
    for _level, _title, paras in sections:
        for word in " ".join(paras).split():
            assert any(word in words for words in chunk_words), word


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(PARAGRAPH, min_size=1, max_size=12))
def test_long_sections_overlap_between_neighbours(paras) -> None:
    pieces = split_body("\n\n".join(paras))
    for before, after in itertools.pairwise(pieces):
        assert after.split()[0] in before.split()


def test_section_path_keeps_the_last_three_headings() -> None:
    text = "# A\n## B\n### C\n#### D\nbody\n## E\nmore"
    assert [(d.section_path, d.text) for d in chunk(text)] == [
        ("B > C > D", "body"),
        ("A > E", "more"),
    ]


def test_normalise_cleans_pdf_and_unicode_noise() -> None:
    raw = "Deliv-\nery\u00a0fee\x07 is   KES\u00ad 200\r\n\n\n\n<!-- note -->End"
    assert normalise(raw) == "Delivery fee is KES 200\n\nEnd"
