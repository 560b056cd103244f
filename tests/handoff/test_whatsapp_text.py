"""WhatsApp markup in the desk: escaped first, then formatted, so typed HTML stays text."""

from __future__ import annotations

import html
import re

from hypothesis import given
from hypothesis import strategies as st

from tulia.handoff.whatsapp_text import whatsapp_html

OUR_TAGS = re.compile(r"</?(strong|em|del|code)>|<br>")


def test_the_four_styles() -> None:
    assert whatsapp_html("*Bei* _leo_ ~jana~ ```x```") == (
        "<strong>Bei</strong> <em>leo</em> <del>jana</del> <code>x</code>"
    )


def test_markers_inside_words_and_loose_stars_stay_text() -> None:
    assert whatsapp_html("snake_case_name 2*3*4 a * b") == "snake_case_name 2*3*4 a * b"


@given(st.text(alphabet=st.sampled_from(list("ab <>&\"'*_~`/\n")), max_size=60))
def test_no_markup_but_ours_and_the_text_survives(text: str) -> None:
    rendered = whatsapp_html(text)
    plain = OUR_TAGS.sub("", rendered)
    assert "<" not in plain
    assert ">" not in plain
    kept = html.unescape(plain)
    assert kept.replace("*", "").replace("_", "").replace("~", "").replace("`", "") == (
        text.replace("\n", "").replace("*", "").replace("_", "").replace("~", "").replace("`", "")
    )
