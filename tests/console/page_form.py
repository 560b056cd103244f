"""What a browser would submit from an admin page's form, untouched: every input,
textarea and chosen option by name, in page order (repeated names are lists)."""

from __future__ import annotations

from html.parser import HTMLParser


class BrowserForm(HTMLParser):
    """What a browser would submit from the settings page's form, untouched."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, list[str]] = {}
        self._textarea: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        name = a.get("name") or ""
        if tag == "input" and name and a.get("type") not in ("submit", "button"):
            if a.get("type") in ("checkbox", "radio"):
                if "checked" in a:  # a ticked box without a value sends "on"
                    self.data.setdefault(name, []).append(a.get("value") or "on")
                return
            self.data.setdefault(name, []).append(a.get("value") or "")
        elif tag == "textarea":
            self._textarea = name
            self.data.setdefault(name, []).append("")
        elif tag == "select":
            self._select = name
        elif tag == "option" and self._select and "selected" in a:
            self.data.setdefault(self._select, []).append(a.get("value") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "textarea":
            self._textarea = None
        elif tag == "select":
            self._select = None

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.data[self._textarea][-1] += data.removeprefix("\n")


def browser_form(html: str, form_id: str) -> dict[str, list[str]]:
    parser = BrowserForm()
    parser.feed(html.split(f'id="{form_id}"')[1].split("</form>", maxsplit=1)[0])
    return parser.data
