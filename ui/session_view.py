"""A stored session as HTML: each step's action, prediction, truth, diff, scores and judge reasons.

The Sessions browser and the Benchmark drill-down show stored sessions the same way, so what a
benchmark item looks like is what any session step looks like.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from backend.domains.base import get_domain
from backend.scoring.judge import JUDGE_PREFIX
from storage.annotations.types import CorrectionPlace
from storage.records import StoredSession, StoredStep
from ui.provenance import answered_words, real_words
from ui.renderers import render as render_observation
from ui.renderers import render_diff
from ui.renderers.base import esc
from ui.session import Score
from ui.views import empty, scores_html, short, status_html

SHOWN = 20
"""Steps a session shows in full: its last ones."""


def judge_html(step: StoredStep) -> str:
    """The judge's dimensions (1-5) with the strengths and weaknesses it named; "" unjudged."""
    first = step.prediction
    judged = [s for s in first.scores if s.name.startswith(JUDGE_PREFIX)] if first else []
    if not judged:
        return ""
    details = judged[0].details
    dims = " · ".join(f"{esc(s.name[len(JUDGE_PREFIX) :])} {s.value:g}/5" for s in judged)
    reasons = "".join(
        f"<li><b>{label}:</b> {esc(text)}</li>"
        for label, key in (("Strength", "strengths"), ("Weakness", "weaknesses"))
        for text in details.get(key, [])
    )
    judge = esc(f"{details.get('judge_engine', '?')} · {details.get('judge_model', '')}")
    return (
        f'<div class="awp-judge"><b>Judge</b> ({judge}): {dims}'
        f"{f'<ul>{reasons}</ul>' if reasons else ''}</div>"
    )


def step_html(
    session: StoredSession, index: int, places: Mapping[int, CorrectionPlace] | None = None
) -> str:
    """One step in full: action, state before, prediction beside truth, diff, scores, judge.

    `places` names the corrections that grounded its prediction (`grounding_refs`).
    """
    step = session.steps[index]
    renderer = get_domain(session.domain).renderer
    before = session.steps[index - 1].real_observation if index else session.initial_state
    first = step.prediction
    metrics = [
        Score(s.name, s.value)
        for s in (first.scores if first else [])
        if not s.name.startswith(JUDGE_PREFIX)
    ]
    predicted = (
        render_observation(renderer, first.prediction.observation, before)
        if first
        else empty("No prediction at this step (a recorded step).")
    )
    real = (
        render_observation(renderer, step.real_observation, before)
        if step.real_observation is not None
        else empty("The real state is unknown.")
    )
    diff = (
        render_diff(first.prediction.observation, step.real_observation, kind=renderer)
        if first
        else ""
    )
    status = status_html(first.prediction, places=places) if first else ""
    words = answered_words(first.prediction) if first else "predicted"
    predicted_title = words[0].upper() + words[1:]
    score_block = (
        scores_html(metrics, step.real_observation is not None, session.domain) if first else ""
    )
    return (
        f'<div class="awp-item" data-step="{step.index}"><h4>Step {step.index + 1}: '
        f"<code>{esc(short(step.action, 160))}</code></h4>{status}"
        f'<div class="awp-pair"><div><h5>{esc(predicted_title)}</h5>{predicted}</div>'
        f"<div><h5>Real ({esc(real_words(step.origin, step.provenance))})</h5>{real}</div></div>"
        f"{score_block}{judge_html(step)}{diff}</div>"
    )


def history_html(session: StoredSession, upto: int) -> str:
    """The actions before step `upto`, one line each, folded (the history the model saw)."""
    if upto == 0:
        return empty("No earlier steps: this is the session's first.")
    lines = "".join(
        f"<li><code>{esc(short(s.action, 160))}</code></li>" for s in session.steps[:upto]
    )
    return (
        f'<details class="awp-more"><summary>History: {upto} earlier step'
        f"{'s' if upto != 1 else ''}</summary><ol>{lines}</ol></details>"
    )


def header_html(session: StoredSession) -> str:
    """What the session is: id, domain, kind, engine, owner, task, lineage."""
    parts = [
        f"<b>Session #{session.id}</b>",
        esc(get_domain(session.domain).title),
        esc(session.kind),
        esc(f"{session.engine} · {session.model}"),
        esc(session.history_mode.value),
        f"{len(session.steps)} steps",
    ]
    if session.owner:
        parts.append(f"by {esc(session.owner)}")
    if session.parent_session_id:
        parts.append(
            f'branch of <a href="?workspace=explore&amp;tab=sessions&amp;session='
            f'{session.parent_session_id}">#{session.parent_session_id}</a>'
        )
    if session.bench_run_id:
        parts.append(
            f'benchmark <a href="?workspace=evaluate&amp;tab=runs&amp;run={session.bench_run_id}">'
            f"run {session.bench_run_id}</a>"
        )
    task = f'<div class="awp-task"><b>Task:</b> {esc(session.task)}</div>' if session.task else ""
    return f'<div class="awp-session-head">{" · ".join(parts)}</div>{task}'


def shown_steps(session: StoredSession, limit: int = SHOWN) -> range:
    """The indices of the steps `session_html` shows in full: the last `limit`."""
    return range(max(0, len(session.steps) - limit), len(session.steps))


def grounding_refs(session: StoredSession, indices: Iterable[int]) -> list[str]:
    """The provenance ids that grounded the predictions shown at `indices`, all together.

    The page looks every correction among them up in one query (`AnnotationStore.places`).
    """
    return [
        ref
        for index in indices
        if (first := session.steps[index].prediction) is not None
        for ref in first.prediction.grounded_by
    ]


def session_html(
    session: StoredSession,
    limit: int = SHOWN,
    places: Mapping[int, CorrectionPlace] | None = None,
) -> str:
    """The whole session, its last `limit` steps in full (long sessions say what is left out).

    `places` names the corrections that grounded the shown steps' predictions (`grounding_refs`
    of `shown_steps`).
    """
    if not session.steps:
        return header_html(session) + empty("This session has no steps.")
    shown = shown_steps(session, limit)
    skipped = (
        empty(f"The first {shown.start} steps are not shown; open one by its step number.")
        if shown.start
        else ""
    )
    body = "".join(step_html(session, i, places) for i in shown)
    return header_html(session) + skipped + body
