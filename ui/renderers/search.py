"""Search results as cards: `[n] url / Title / Snippet / Date` blocks or a JSON result payload.

Links are the one place untrusted text becomes an `href`, so only http(s) URLs become links (a
`javascript:` or `data:` URL stays visible as text) and links open with `rel=noopener`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ui.renderers.base import esc, pre, register

_BLOCK_START = re.compile(r"^\s*\[(\d+)\]\s*", re.MULTILINE)
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://\S+|\bjavascript:\S+", re.IGNORECASE)
_FIELD = re.compile(r"^\s*(title|snippet|date|published|url|link|content)\s*:\s*", re.IGNORECASE)
LIST_KEYS = ("search_result", "results", "items", "organic", "data")


@dataclass(frozen=True)
class Result:
    """One search hit."""

    title: str
    url: str = ""
    snippet: str = ""
    date: str = ""


def link(url: str, label: str) -> str:
    """Return an anchor for http(s) URLs; any other scheme stays plain text."""
    if re.match(r"^https?://", url.strip(), re.IGNORECASE):
        return (
            f'<a href="{esc(url.strip())}" target="_blank" '
            f'rel="noopener noreferrer nofollow">{esc(label)}</a>'
        )
    return f"<span>{esc(label)}</span>"


def _from_block(block: str) -> Result:
    """Parse the lines after one `[n]` marker into a result."""
    fields: dict[str, str] = {}
    loose: list[str] = []
    for line in block.strip().split("\n"):
        match = _FIELD.match(line)
        if match:
            fields[match.group(1).lower()] = line[match.end() :].strip()
        elif not fields.get("url") and (found := _URL.search(line)):
            fields["url"] = found.group()
            rest = line.replace(found.group(), "").strip(" -|/")
            loose.extend([rest] if rest else [])
        elif line.strip():
            loose.append(line.strip())
    title = fields.get("title") or (loose.pop(0) if loose else fields.get("url", ""))
    snippet = fields.get("snippet") or fields.get("content") or " ".join(loose)
    url = fields.get("url") or fields.get("link", "")
    return Result(title, url, snippet, fields.get("date") or fields.get("published", ""))


def parse_text(text: str) -> list[Result]:
    """Parse results from numbered text blocks; [] when the text has none."""
    starts = list(_BLOCK_START.finditer(text))
    if not starts:
        return []
    ends = [m.start() for m in starts[1:]] + [len(text)]
    return [_from_block(text[m.end() : end]) for m, end in zip(starts, ends, strict=True)]


def _items(value: Any) -> list[dict[str, Any]]:
    """Return the result dicts inside a JSON payload (top-level list or a known key)."""
    if isinstance(value, dict):
        value = next((value[k] for k in LIST_KEYS if isinstance(value.get(k), list)), [])
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def parse_json(text: str) -> list[Result]:
    """Parse results from a search API payload; [] when the text is not one."""
    try:
        items = _items(json.loads(text))
    except ValueError:
        return []
    return [
        Result(
            title=str(item.get("title") or item.get("name") or ""),
            url=str(item.get("link") or item.get("url") or ""),
            snippet=str(
                item.get("snippet") or item.get("content") or item.get("description") or ""
            ),
            date=str(item.get("publish_date") or item.get("date") or ""),
        )
        for item in items
    ]


def card(result: Result) -> str:
    """Render one result card."""
    date = f'<span class="awp-date">{esc(result.date)}</span>' if result.date else ""
    return (
        '<div class="awp-card">'
        f'<div class="awp-card-title">{link(result.url, result.title or result.url)}</div>'
        f'<div class="awp-card-url">{esc(result.url)} {date}</div>'
        f'<div class="awp-card-snippet">{esc(result.snippet)}</div></div>'
    )


@register("search")
def render_search(text: str, previous: str | None = None) -> str:
    """Render result cards, or the text itself for pages fetched by the extractor (Markdown)."""
    results = parse_json(text) or parse_text(text)
    if not results:
        return pre(text)
    first = _BLOCK_START.search(text)
    preamble = text[: first.start()].strip() if first else ""
    head = pre(preamble) if preamble else ""
    return f'{head}<div class="awp-cards">{"".join(card(r) for r in results)}</div>'
