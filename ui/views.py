"""Small HTML builders shared by pages: status chips, score chips, metric strips, tables.

Pure functions over plain data, like the renderers; every value from a model or a user is escaped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from backend.errors import UnknownNameError
from backend.scoring import headline_metric
from backend.scoring.base import METRICS
from backend.types import Prediction
from storage.annotations.types import CorrectionPlace
from ui.provenance import answerer_words, grounding_html, real_words
from ui.renderers.base import esc
from ui.session import PlaySession, Score

ACTION_PREVIEW = 80


def chip(label: str, value: str, tone: str = "") -> str:
    """One labelled value."""
    cls = f"awp-chip awp-chip-{tone}" if tone else "awp-chip"
    return f'<span class="{cls}"><b>{esc(label)}</b> {esc(value)}</span>'


def answered_chip(prediction: Prediction) -> str:
    """Who answered, when it was not the model, and the reality it answered with."""
    if prediction.answered_by == "model":
        return ""
    return chip("answered by", f"{answerer_words(prediction)} (exact, not predicted)", "good")


def cut_chip(dropped: int) -> str:
    """How many of the oldest history turns the prompt left out to fit the context ("" if none)."""
    if not dropped:
        return ""
    turns = "turn" if dropped == 1 else "turns"
    return chip("history", f"{dropped} oldest {turns} cut to fit the context", "warn")


def confidence_chip(confidence: float | None) -> str:
    """The model's confidence in its prediction ("" when unknown)."""
    if confidence is None:
        return ""
    return chip("confidence", f"{confidence:.2f}", tone(confidence))


def status_html(
    prediction: Prediction | None,
    note: str = "",
    places: Mapping[int, CorrectionPlace] | None = None,
) -> str:
    """Engine, finish reason, tokens and latency of a prediction; warns when the budget ran out.

    A grounded prediction also says how many real steps it was shown, each a link to its source
    (`places`: the stored step of each correction among them, to name it by).
    """
    if prediction is None:
        return f'<div class="awp-status">{esc(note)}</div>' if note else ""
    finish_tone = "warn" if prediction.finish_reason == "length" else ""
    chips = [
        chip("engine", f"{prediction.engine} · {prediction.model}"),
        chip("finish", prediction.finish_reason, finish_tone),
        chip("tokens", f"{prediction.prompt_tokens} in / {prediction.completion_tokens} out"),
        chip("latency", f"{prediction.latency_s:.2f} s"),
        grounding_html(prediction.grounded_by, places),
        answered_chip(prediction),
        cut_chip(prediction.history_dropped),
    ]
    if prediction.answered_by == "model":
        chips.append(confidence_chip(prediction.confidence))
    if prediction.diagnostics.empty_extraction:
        chips.append(chip("output", "empty observation", "bad"))
    text = f'<span class="awp-note">{esc(note)}</span>' if note else ""
    return f'<div class="awp-status">{"".join(chips)}{text}</div>'


def empty(message: str) -> str:
    """A muted placeholder line."""
    return f'<div class="awp-empty">{esc(message)}</div>'


def empty_plot(title: str, message: str) -> str:
    """What stands in for a plot with nothing to draw: its title and why it is empty.

    One look for every page, so an empty chart reads as "nothing yet, and here is what fills
    it", never as blank axes or a broken image.
    """
    return (
        f'<div class="awp-empty-plot"><b>{esc(title)}</b>'
        f'<span class="awp-empty">{esc(message)}</span></div>'
    )


TASK_LEAD = 160
"""Characters of a task shown before the rest is folded."""


PREAMBLE = re.compile(
    r"^\s*We're currently solving the following [^.]*\.\s*(Here's the issue text:\s*)?"
    r"(ISSUE:\s*)?",
    re.IGNORECASE,
)
"""The SWE-agent harness's opening, the same on every recorded SWE and CTF task: the lead
skips it, so it names the issue or the challenge instead."""


def task_lead(task: str) -> str:
    """The task's first sentence or line (after a harness preamble), at most `TASK_LEAD` chars."""
    line = (PREAMBLE.sub("", task, count=1).strip() or task.strip()).split("\n", 1)[0]
    found = re.search(r"[.!?](\s|$)", line)
    sentence = line[: found.end()].strip() if found else line
    return short(sentence, TASK_LEAD)


def task_html(task: str) -> str:
    """A task in one short line, the full text folded under it when there is more.

    Recorded tasks run from one instruction to a whole SWE issue; the first sentence says what
    it is about, and a reader who wants the rest opens it.
    """
    if not task.strip():
        return ""
    lead = task_lead(task)
    if " ".join(task.split()) == lead:
        return f'<div class="awp-caption awp-task-line"><b>Task</b> {esc(lead)}</div>'
    return (
        f'<details class="awp-caption awp-task-line"><summary><b>Task</b> {esc(lead)} '
        f'<span class="awp-note">(full task)</span></summary>'
        f'<div class="awp-task-full">{esc(task.strip())}</div></details>'
    )


def tone(value: float) -> str:
    """Colour class of a [0, 1] score."""
    return "good" if value >= 0.8 else "mid" if value >= 0.5 else "bad"


def describe(metric: str) -> str:
    """The metric's one-line meaning from the metric registry; "" for a name it does not know."""
    return METRICS.get(metric).description if metric in METRICS else ""


def _headline(domain: str | None) -> str | None:
    """The domain's headline metric, from the scoring registry (it changes; never hard-coded)."""
    if domain is None:
        return None
    try:
        return headline_metric(domain)
    except UnknownNameError:
        return None


def _score_row(score: Score) -> str:
    """One metric: name, a bar whose empty track stays visible at 0, and the value."""
    tip, name = esc(describe(score.name)), esc(score.name)
    return (
        f'<div class="awp-score awp-{tone(score.value)}" title="{tip}"><span>{name}</span>'
        f'<div class="awp-bar"><i style="width:{round(100 * score.value)}%"></i></div>'
        f"<b>{score.value:.2f}</b></div>"
    )


def scores_html(scores: Sequence[Score], real_known: bool, domain: str | None = None) -> str:
    """Score bars: the domain's headline metric first with its meaning, the others folded.

    Args:
        scores: the step's metric values.
        real_known: whether a real observation exists (without one there is nothing to score).
        domain: the step's domain; names the headline metric. None shows every score alike.
    """
    if not real_known:
        return empty("No real observation for this step, so no scores.")
    if not scores:
        return empty("This step could not be scored.")
    name = _headline(domain)
    top = next((s for s in scores if s.name == name), None)
    if top is None:
        return f'<div class="awp-scores">{"".join(_score_row(s) for s in scores)}</div>'
    rest = [s for s in scores if s is not top]
    headline = (
        f'<div class="awp-headline awp-{tone(top.value)}"><div class="awp-headline-top">'
        f'<span class="awp-headline-name">{esc(top.name)}</span>'
        f'<span class="awp-headline-tag">headline</span><b>{top.value:.2f}</b></div>'
        f'<div class="awp-bar"><i style="width:{round(100 * top.value)}%"></i></div>'
        f'<div class="awp-headline-desc">{esc(describe(top.name))}</div></div>'
    )
    others = (
        f'<details class="awp-more"><summary>Other metrics ({len(rest)})</summary>'
        f'<div class="awp-scores">{"".join(_score_row(s) for s in rest)}</div></details>'
        if rest
        else ""
    )
    return f'<div class="awp-score-block">{headline}{others}</div>'


_MARKDOWN_SPECIAL = re.compile(r"([!-/:-@\[-`{-~])")


def markdown_text(text: str) -> str:
    """Escape text for Markdown so it shows literally.

    Every ASCII punctuation character gets a backslash (CommonMark allows that escape on all of
    them), so `<JSON string>` is not taken for an HTML tag and `*`, `_` or `[` start nothing.
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def markdown_code(text: str) -> str:
    """Text as a Markdown code span, with a fence longer than any backtick run inside it."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return f"{fence} {text} {fence}"


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
        source = "recorded" if step.prediction is None else answerer_words(step.prediction)
        first = f"{step.scores[0].name} {step.scores[0].value:.2f}" if step.scores else ""
        real = real_words(step.origin, step.provenance) if step.real is not None else "unknown"
        rows.append([str(i + 1), short(step.action), source, real, first])
    return rows


TIMELINE_HEADERS = ["#", "action", "by", "real state", "score"]
