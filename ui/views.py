"""Small HTML builders shared by pages: status chips, score chips, metric strips, tables.

Pure functions over plain data, like the renderers; every value from a model or a user is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence

from backend.types import Prediction
from ui.renderers.base import esc
from ui.session import PlaySession, Score

ACTION_PREVIEW = 80


def chip(label: str, value: str, tone: str = "") -> str:
    """One labelled value."""
    cls = f"awp-chip awp-chip-{tone}" if tone else "awp-chip"
    return f'<span class="{cls}"><b>{esc(label)}</b> {esc(value)}</span>'


def status_html(prediction: Prediction | None, note: str = "") -> str:
    """Engine, finish reason, tokens and latency of a prediction; warns when the budget ran out."""
    if prediction is None:
        return f'<div class="awp-status">{esc(note)}</div>' if note else ""
    finish_tone = "warn" if prediction.finish_reason == "length" else ""
    chips = [
        chip("engine", f"{prediction.engine} · {prediction.model}"),
        chip("finish", prediction.finish_reason, finish_tone),
        chip("tokens", f"{prediction.prompt_tokens} in / {prediction.completion_tokens} out"),
        chip("latency", f"{prediction.latency_s:.2f} s"),
    ]
    if prediction.diagnostics.empty_extraction:
        chips.append(chip("output", "empty observation", "bad"))
    text = f'<span class="awp-note">{esc(note)}</span>' if note else ""
    return f'<div class="awp-status">{"".join(chips)}{text}</div>'


def empty(message: str) -> str:
    """A muted placeholder line."""
    return f'<div class="awp-empty">{esc(message)}</div>'


def tone(value: float) -> str:
    """Colour class of a [0, 1] score."""
    return "good" if value >= 0.8 else "mid" if value >= 0.5 else "bad"


def scores_html(scores: Sequence[Score], real_known: bool) -> str:
    """Score chips with a bar each; explains why there are none."""
    if not real_known:
        return empty("No real observation for this step, so no scores.")
    if not scores:
        return empty("This step could not be scored.")
    items = "".join(
        f'<div class="awp-score awp-{tone(s.value)}"><span>{esc(s.name)}</span>'
        f'<div class="awp-bar"><i style="width:{round(100 * s.value)}%"></i></div>'
        f"<b>{s.value:.2f}</b></div>"
        for s in scores
    )
    return f'<div class="awp-scores">{items}</div>'


def metric_strip(values: Sequence[float | None], label: str) -> str:
    """One cell per step coloured by its score; shows where a run diverges from reality."""
    cells = "".join(
        f'<span class="awp-cell awp-{tone(v)}" title="step {i + 1}: {v:.2f}">{i + 1}</span>'
        if v is not None
        else f'<span class="awp-cell" title="step {i + 1}: not scored">{i + 1}</span>'
        for i, v in enumerate(values)
    )
    return f'<div class="awp-strip"><span class="awp-strip-label">{esc(label)}</span>{cells}</div>'


def short(text: str, limit: int = ACTION_PREVIEW) -> str:
    """One line of at most `limit` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def timeline_rows(session: PlaySession) -> list[list[str]]:
    """One row per step for the timeline table."""
    rows = []
    for i, step in enumerate(session.steps):
        source = "recorded" if step.prediction is None else step.prediction.engine
        first = f"{step.scores[0].name} {step.scores[0].value:.2f}" if step.scores else ""
        real = step.origin or "unknown"
        rows.append([str(i + 1), short(step.action), source, real, first])
    return rows


TIMELINE_HEADERS = ["#", "action", "by", "real state", "score"]
