"""Search-result metrics: does the predicted result list name the same pages as the real one?

Results are read from the text layout `[n] url / Title / Snippet / Date` (either order of URL
and title) or from a JSON payload whose objects carry a `url`/`link` and a `title`. Snippets and
dates are left to the text metrics: a search engine's snippet wording is not something a world
model can know, the pages it returns are.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from backend.scoring.base import ObservationPair, change_agreement, metric, prf
from backend.scoring.text import delta_of, line_prf, normalise_whitespace

_HEADER = re.compile(r"^\s*\[(\d+)\]\s*(.*)$")
_URL = re.compile(r"https?://[^\s<>\"')\]]+")
_FIELD = re.compile(r"^\s*(title|url|link|snippet|date|source|published)\s*[:：]\s*(.*)$", re.I)
_URL_KEYS = ("url", "link", "href")


@dataclass(frozen=True)
class SearchResult:
    """One result: normalised URL and title (either may be empty)."""

    url: str
    title: str


def normalise_url(url: str) -> str:
    """Scheme, `www.`, trailing slash and fragment do not make a different page."""
    url = re.sub(r"^https?://(www\.)?", "", url.strip().lower())
    return url.split("#", 1)[0].rstrip("/")


def _title(text: str) -> str:
    return " ".join(text.lower().split())


def _from_json(data: Any) -> list[SearchResult]:
    results: list[SearchResult] = []
    stack = [data]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            url = next((current[k] for k in _URL_KEYS if isinstance(current.get(k), str)), None)
            if url:
                results.append(
                    SearchResult(normalise_url(url), _title(str(current.get("title", ""))))
                )
            stack.extend(reversed(list(current.values())))
        elif isinstance(current, list):
            stack.extend(reversed(current))
    return results


def _from_block(lines: list[str]) -> SearchResult:
    url, title, loose = "", "", []
    for line in lines:
        field = _FIELD.match(line)
        if field and field.group(1).lower() == "title":
            title = field.group(2)
        elif field and field.group(1).lower() in ("url", "link"):
            url = url or field.group(2)
        elif not field:
            found = _URL.search(line)
            if found and not url:
                url = found.group(0)
                line = line.replace(found.group(0), "")
            if line.strip(" -|/"):
                loose.append(line.strip(" -|/"))
    return SearchResult(normalise_url(url), _title(title or (loose[0] if loose else "")))


def parse_results(text: str) -> list[SearchResult]:
    """Results in document order; empty when the text is not a result list (a fetched page)."""
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return _from_json(json.loads(stripped))
        except (json.JSONDecodeError, RecursionError):
            pass
    blocks: list[list[str]] = []
    for line in text.split("\n"):
        header = _HEADER.match(line)
        if header:
            blocks.append([header.group(2)])
        elif blocks:
            blocks[-1].append(line)
    return [_from_block(block) for block in blocks]


def hits(pred: list[SearchResult], ref: list[SearchResult]) -> tuple[int, int]:
    """(URL hits, title hits) of a one-to-one matching of results by URL, then by title."""
    pred_free, ref_free = list(range(len(pred))), list(range(len(ref)))
    pairs: list[tuple[int, int]] = []
    for key in ("url", "title"):
        for i in list(ref_free):
            value = getattr(ref[i], key)
            j = next((j for j in pred_free if value and getattr(pred[j], key) == value), None)
            if j is not None:
                pred_free.remove(j)
                ref_free.remove(i)
                pairs.append((i, j))
    url_hits = sum(pred[j].url == ref[i].url for i, j in pairs)
    title_hits = sum(pred[j].title == ref[i].title for i, j in pairs)
    return url_hits, title_hits


def overlap(pred: list[SearchResult], ref: list[SearchResult]) -> tuple[float, dict[str, Any]]:
    """F1 of the two lists, a matched pair earning half per equal field (URL, title)."""
    url_hits, title_hits = hits(pred, ref)
    scores = prf((url_hits + title_hits) / 2, len(pred), len(ref))
    urls = prf(url_hits, len(pred), len(ref))
    titles = prf(title_hits, len(pred), len(ref))
    return scores["f1"], {
        **scores,
        "url_f1": urls["f1"],
        "title_f1": titles["f1"],
        "results_predicted": len(pred),
        "results_reference": len(ref),
    }


@metric("search_overlap", 1, "Per-result URL/title overlap of the result lists.")
def search_overlap(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """Result-list overlap; a reference without results (a fetched page) falls back to line F1."""
    ref = parse_results(pair.reference)
    if not ref:
        value, details = line_prf(
            normalise_whitespace(pair.predicted), normalise_whitespace(pair.reference)
        )
        return value, {**details, "fallback": "line_f1"}
    return overlap(parse_results(pair.predicted), ref)


def _key(result: SearchResult) -> str:
    return result.url or result.title


def result_delta(
    before: list[SearchResult], after: list[SearchResult]
) -> tuple[list[SearchResult], Counter[str]]:
    """The results of `after` that `before` did not list, and the results of `before` it drops.

    Results are the same when their URL is (their title, where there is no URL); repeats count.
    """
    left = Counter(_key(result) for result in before)
    new = []
    for result in after:
        if left[_key(result)] > 0:
            left[_key(result)] -= 1
        else:
            new.append(result)
    return new, +left


@metric("search_delta", 1, "Agreement of the results new since the previous list, by URL/title.")
def search_delta(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """The result-list change of the prediction against the real one.

    The results each list adds to the previous list are matched as in `search_overlap` (half
    per equal URL or title), the dropped results both sides agree on earn nothing and those they
    disagree on are errors, combined by `base.change_agreement`. Plain overlap paid junk: the
    first half of the previous list, which drops the results reality dropped too, scores above
    the whole list whenever the pages reality repeats are near the top. A repeated query returns
    the same list, so there a copy is right and scores 1. An unknown previous state has no
    results; a real observation without results (a fetched page) is compared by `text_delta`.
    """
    ref = parse_results(pair.reference)
    if not ref:
        value, details = delta_of(pair.previous, pair.predicted, pair.reference)
        return value, {**details, "fallback": "text_delta"}
    before = parse_results(pair.previous or "")
    pred_new, pred_dropped = result_delta(before, parse_results(pair.predicted))
    real_new, real_dropped = result_delta(before, ref)
    url_hits, title_hits = hits(pred_new, real_new)
    matched = (url_hits + title_hits) / 2
    disagreement = sum(((pred_dropped - real_dropped) + (real_dropped - pred_dropped)).values())
    return change_agreement(matched, len(pred_new), len(real_new), disagreement), {
        "previous_known": pair.previous is not None,
        "new_predicted": len(pred_new),
        "new_real": len(real_new),
        "matched": matched,
        "dropped_predicted": sum(pred_dropped.values()),
        "dropped_real": sum(real_dropped.values()),
        "dropped_disagreement": disagreement,
    }
