"""Normalise Markdown-shaped text and cut it into heading-aware, overlapping chunks.

A chunk never spans two sections, so its section path is exact and a citation points
at one place. Long sections are split on paragraph, then sentence, then word
boundaries, and each piece repeats the tail of the one before it (the overlap) so a fact
that straddles a cut is still whole in at least one chunk.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

TARGET_CHARS = 900
OVERLAP_CHARS = 150
MAX_SECTION_DEPTH = 3

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


@dataclass(frozen=True)
class ChunkDraft:
    section_path: str
    text: str


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text.replace("\u00a0", " ").replace("\u00ad", ""))
    text = re.sub(r"<!--.*?-->", "", text, flags=re.DOTALL)
    text = re.sub(r"(\w)-\n(\w)", r"\1\2", text)  # words hyphenated across PDF lines
    lines = [_table_row(line) for line in text.split("\n") if not _TABLE_RULE.match(line)]
    text = "\n".join(re.sub(r"[ \t]+", " ", line).strip() for line in lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _table_row(line: str) -> str:
    stripped = line.strip()
    if stripped.startswith("|") and stripped.endswith("|"):
        return " — ".join(cell.strip() for cell in stripped.strip("|").split("|"))
    return line


def sections(text: str) -> list[tuple[str, str]]:
    """(section path, body) for every heading that has text under it, in order."""
    stack: list[tuple[int, str]] = []
    body: list[str] = []
    out: list[tuple[str, str]] = []

    def flush() -> None:
        content = "\n".join(body).strip()
        if content:
            out.append((" > ".join(t for _, t in stack[-MAX_SECTION_DEPTH:]), content))
        body.clear()

    for line in text.split("\n"):
        match = _HEADING.match(line)
        if match is None:
            body.append(line)
            continue
        flush()
        level = len(match.group(1))
        stack = [(lvl, title) for lvl, title in stack if lvl < level]
        stack.append((level, match.group(2).strip()))
    flush()
    return out


def chunk(text: str) -> list[ChunkDraft]:
    drafts: list[ChunkDraft] = []
    for path, body in sections(normalise(text)):
        drafts.extend(ChunkDraft(path, piece) for piece in split_body(body))
    return drafts


def split_body(body: str, target: int = TARGET_CHARS, overlap: int = OVERLAP_CHARS) -> list[str]:
    units = _units(body, target)
    pieces: list[str] = []
    current = ""
    for unit in units:
        if current and len(current) + 1 + len(unit) > target:
            pieces.append(current)
            current = _tail(current, overlap)
        current = f"{current}\n{unit}" if current else unit
    if current and (not pieces or current != _tail(pieces[-1], overlap)):
        pieces.append(current)
    return pieces


def _units(body: str, target: int) -> list[str]:
    """Paragraphs, with any paragraph longer than the target cut into sentences or words."""
    units: list[str] = []
    for raw in re.split(r"\n\s*\n", body):
        paragraph = raw.strip()
        if len(paragraph) <= target:
            units.extend([paragraph] if paragraph else [])
            continue
        for sentence in re.split(r"(?<=[.!?])\s+", paragraph):
            units.extend(_words(sentence, target))
    return units


def _words(sentence: str, target: int) -> list[str]:
    if len(sentence) <= target:
        return [sentence]
    out: list[str] = []
    line = ""
    for word in sentence.split():
        if line and len(line) + 1 + len(word) > target:
            out.append(line)
            line = ""
        line = f"{line} {word}" if line else word[:target]
    return [*out, line] if line else out


def _tail(text: str, overlap: int) -> str:
    """The last `overlap` characters, starting at a word boundary."""
    if len(text) <= overlap:
        return text
    cut = text[-overlap:]
    space = cut.find(" ")
    return cut[space + 1 :] if 0 <= space < len(cut) - 1 else cut
