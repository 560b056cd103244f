"""WhatsApp's own markup (*bold*, _italic_, ~strike~, ```monospace```) as safe HTML.

The text is escaped first and only then are the markers turned into tags, so whatever a
customer typed can never become markup of its own. Like WhatsApp, a marker pair must
hug its words (no space just inside) and must not sit inside a word.
"""

from __future__ import annotations

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

_MONO = re.compile(r"```(.+?)```", re.DOTALL)


def _pair(marker: str) -> re.Pattern[str]:
    m = re.escape(marker)
    return re.compile(rf"(?<![\w{m}]){m}(?=\S)([^{m}\n]*?\S){m}(?![\w{m}])")


_STYLES = ((_pair("*"), "strong"), (_pair("_"), "em"), (_pair("~"), "del"))


def whatsapp_html(text: str) -> SafeString:
    html = str(escape(text))
    html = _MONO.sub(r"<code>\1</code>", html)
    for pattern, tag in _STYLES:
        html = pattern.sub(rf"<{tag}>\1</{tag}>", html)
    return mark_safe(html.replace("\n", "<br>"))  # noqa: S308 - escaped above, tags are ours
