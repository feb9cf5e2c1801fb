"""What the Playground shows for a session: the last step's states, diff, scores and timeline."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.domains.base import get_domain
from backend.envs.live.run import live_source
from backend.history import state_before
from backend.sources import reference_provenance
from backend.types import SimRequest
from storage.annotations.types import CorrectionPlace
from storage.trajectories import TrajectoryStore
from ui import views
from ui.play import Partial, Preparing
from ui.provenance import answered_words, real_words
from ui.renderers import render as render_observation
from ui.renderers import render_diff
from ui.renderers.base import esc
from ui.session import LiveView, PlaySession
from ui.views import (
    TIMELINE_HEADERS,
    chip,
    empty,
    scores_html,
    short,
    status_html,
    timeline_rows,
)

TASK_PREVIEW = 70


@dataclass(frozen=True)
class StepView:
    """Components that show one step."""

    before: gr.HTML
    status: gr.HTML
    predicted: gr.HTML
    real: gr.HTML
    reasoning: gr.HTML
    scores: gr.HTML
    diff: gr.HTML
    timeline: gr.Dataframe
    screenshot: gr.HTML

    @property
    def outputs(self) -> list[gr.components.Component]:
        """The components in the order `present` fills them."""
        return [getattr(self, name) for name in self.__dataclass_fields__]


def render(prefix: str, values: list[Any]) -> StepView:
    """Build the step view showing `values` (from `present`); `prefix` keeps ids unique."""
    before, status, predicted, real, reasoning, scores, diff, rows, screenshot = values
    with gr.Accordion("State before the step", open=False):
        before_html = gr.HTML(before, label="State before", elem_id=f"{prefix}-before")
    status_html = gr.HTML(status, label="Status", elem_id=f"{prefix}-status")
    with gr.Row(equal_height=False):
        with gr.Column(min_width=320):
            gr.Markdown("#### Predicted next state")
            predicted_html = gr.HTML(
                predicted,
                label="Predicted",
                elem_id=f"{prefix}-predicted",
                elem_classes="awp-panel",
            )
        with gr.Column(min_width=320):
            gr.Markdown("#### Real next state")
            real_html = gr.HTML(
                real, label="Real", elem_id=f"{prefix}-real", elem_classes="awp-panel"
            )
            # A live web page as a picture, beside its tree (empty for every other domain).
            screenshot_html = gr.HTML(
                screenshot, label="Screenshot", elem_id=f"{prefix}-screenshot"
            )
    with gr.Accordion("Model reasoning", open=False, elem_id=f"{prefix}-reasoning-box"):
        reasoning_html = gr.HTML(reasoning, label="Reasoning", elem_id=f"{prefix}-reasoning")
    scores_div = gr.HTML(scores, label="Scores", elem_id=f"{prefix}-scores")
    with gr.Accordion("Diff: predicted vs real", open=True):
        diff_html = gr.HTML(diff, label="Diff", elem_id=f"{prefix}-diff")
    with gr.Accordion("Timeline", open=True):
        timeline = gr.Dataframe(
            rows,
            headers=TIMELINE_HEADERS,
            interactive=False,
            wrap=True,
            label="Timeline",
            elem_id=f"{prefix}-timeline",
        )
    return StepView(
        before_html,
        status_html,
        predicted_html,
        real_html,
        reasoning_html,
        scores_div,
        diff_html,
        timeline,
        screenshot_html,
    )


def real_of(request: SimRequest) -> str:
    """The source of a streaming step's known reference, in words."""
    return real_words(request.reference_origin, reference_provenance(request))


def source_line(words: str) -> str:
    """Where a panel's observation came from, in words, under its caption (`ui.provenance`)."""
    return f'<div class="awp-source">{esc(words)}</div>'


def caption(index: int, action: str, what: str) -> str:
    """A line naming the step a panel belongs to, so no panel passes for another step's."""
    return (
        f'<div class="awp-caption">{esc(what)} after step {index}: '
        f"<code>{esc(short(action))}</code></div>"
    )


def shown_live(session: PlaySession) -> LiveView | None:
    """The live view that belongs to what the session shows (None after a rewind past it)."""
    view = session.live_view
    return view if view is not None and view.after == len(session.steps) else None


def live_chips(view: LiveView | None) -> str:
    """The live environment's reward and end after a step, as chips ("" before any step)."""
    if view is None or not view.after:
        return ""
    reward = "none" if view.reward is None else f"{view.reward:g}"
    tone = "" if view.reward is None else ("good" if view.reward > 0 else "bad")
    done = chip("episode", "done", "good") if view.done else chip("episode", "goes on")
    return f'<div class="awp-status awp-live">{chip("live reward", reward, tone)}{done}</div>'


def screenshot_html(view: LiveView | None) -> str:
    """The live page as a picture with what it shows ("" where there is no picture)."""
    if view is None:
        return ""
    if view.screenshot is None:
        return empty(view.problem) if view.problem else ""
    when = f"after step {view.after}" if view.after else "at the start"
    data = base64.b64encode(view.screenshot).decode("ascii")
    return (
        f'<figure class="awp-shot"><img src="data:image/png;base64,{data}" '
        f'alt="The live web page {when}"><figcaption>The live page {when}, as the browser '
        "shows it (its accessibility tree is the real state)</figcaption></figure>"
    )


def present(session: PlaySession, places: Mapping[int, CorrectionPlace] | None = None) -> list[Any]:
    """Values for `StepView.outputs` showing the session's last step (or what comes next).

    `places` names the corrections that grounded the last prediction (`ui.provenance`).
    """
    renderer = get_domain(session.domain).renderer
    rows = timeline_rows(session) or [[""] * len(TIMELINE_HEADERS)]
    last = session.steps[-1] if session.steps else None
    if last is None or last.prediction is None:
        hint = "Type an action and press Step."
        if session.recorded_next() is not None:
            hint += " The recording knows the real next state for its next action."
        before = render_observation(renderer, session.previous_observation())
        status = task_html(session) + (status_html(None, session.notice) if session.notice else "")
        picture = screenshot_html(shown_live(session))
        return [
            before,
            status,
            empty(hint),
            empty("Nothing simulated yet."),
            "",
            "",
            "",
            rows,
            picture,
        ]
    index = len(session.steps)
    prior = state_before(session.history()[:-1], session.initial_state)
    prediction = last.prediction
    exact = prediction.answered_by != "model"
    note = (
        f"Stored as prediction #{last.prediction_id}, step {index} of session "
        f"#{session.session_id}: {answered_words(prediction)}, nothing to correct."
        if exact
        else f"Stored as prediction #{last.prediction_id}, step {index} of session "
        f"#{session.session_id}; open it on the Annotate page to correct it."
    )
    if session.notice:
        note = f"{session.notice} {note}"
    if last.real is None:
        unknown = (
            "Not run live: in hybrid backing the world model answers this action."
            if session.hybrid
            else "Unknown: this step is off the recording. Correct it on the Annotate page."
        )
        real = empty(unknown)
    else:
        real = render_observation(renderer, last.real, prior)
    answered = f"Answered exactly ({prediction.answered_by})" if exact else "Predicted"
    live = shown_live(session)
    return [
        render_observation(renderer, prior),
        task_html(session) + live_chips(live) + status_html(prediction, note, places),
        caption(index, last.action, answered)
        + source_line(answered_words(prediction))
        + render_observation(renderer, prediction.observation, prior),
        caption(index, last.action, f"Real ({last.origin or 'unknown'})")
        + (source_line(real_words(last.origin, last.provenance)) if last.real is not None else "")
        + real,
        render_observation("text", prediction.reasoning or "(no reasoning)"),
        scores_html(last.scores, last.real is not None, session.domain),
        render_diff(prediction.observation, last.real, kind=renderer),
        rows,
        screenshot_html(live),
    ]


def streaming(view: StepView, event: Partial | Preparing) -> dict[gr.components.Component, Any]:
    """Updates of `view` while a step is prepared or streams in, each naming its panel.

    The first frame of a step replaces every panel of the previous step (real state, scores,
    diff), so nothing on screen belongs to another step; later frames update the text only.
    """
    if isinstance(event, Preparing):
        cleared: dict[gr.components.Component, Any] = {
            view.real: "",
            view.reasoning: "",
            view.scores: "",
            view.diff: "",
            view.screenshot: "",
        }
        return {
            view.status: status_html(None, event.message),
            view.predicted: empty(event.message),
            **cleared,
        }
    request = event.request
    text = caption(event.index, request.action, "Predicted") + render_observation(
        "text", event.text or "…"
    )
    status = status_html(None, f"Generating step {event.index}…")
    if event.text or event.reasoning:
        frame: dict[gr.components.Component, Any] = {view.status: status, view.predicted: text}
        if event.reasoning:
            frame[view.reasoning] = render_observation("text", event.reasoning)
        return frame
    renderer = get_domain(request.domain).renderer
    previous = state_before(request.history, request.initial_state)
    if request.reference is None:
        real = empty("Unknown: this action is off the recording.")
    else:
        real = render_observation(renderer, request.reference, previous)
    return {
        view.before: render_observation(renderer, previous),
        view.status: status,
        view.predicted: text,
        view.real: caption(event.index, request.action, "Real (recorded)")
        + (source_line(real_of(request)) if request.reference is not None else "")
        + real,
        view.reasoning: "",
        view.scores: empty("Scores appear when the prediction is complete."),
        view.diff: empty("The diff appears when the prediction is complete."),
        view.screenshot: "",
    }


def pending(
    view: StepView, session: PlaySession, action: str
) -> dict[gr.components.Component, Any]:
    """Updates of `view` the moment a step starts: every panel of the previous step cleared.

    A step is a job, and a fast one can end before its first text is read: this frame, not
    the first streamed one, is what hides the previous step's real state, scores and diff.
    """
    index = len(session.steps) + 1
    return {
        view.status: status_html(None, f"Step {index} started: waiting for the engine…"),
        view.predicted: caption(index, action, "Predicted") + empty("…"),
        view.real: caption(index, action, "Real") + empty("Shown with the prediction."),
        view.reasoning: "",
        view.scores: empty("Scores appear when the prediction is complete."),
        view.diff: empty("The diff appears when the prediction is complete."),
        view.screenshot: "",
    }


def failed(
    view: StepView, index: int, action: str, message: str
) -> dict[gr.components.Component, Any]:
    """Updates of `view` after step `index` failed or was cancelled: nothing stale stays."""
    status = status_html(None, f"Step {index} was not taken: {message} Nothing was stored.")
    return {
        view.status: status,
        view.predicted: caption(index, action, "Predicted")
        + empty("No prediction: the step did not finish."),
        view.real: empty("No real state shown: the step did not finish."),
        view.reasoning: "",
        view.scores: "",
        view.diff: "",
        view.screenshot: "",
    }


def action_help(domain: str) -> str:
    """The domain's action format, shown above the action box."""
    spec = get_domain(domain)
    title, text = views.markdown_text(spec.title), views.markdown_text(spec.action_help)
    return f"**{title} actions.** {text}\n\nExample: {views.markdown_code(spec.example_action)}"


def trajectory_choices(store: TrajectoryStore, domain: str) -> list[tuple[str, str]]:
    """Dropdown choices for the stored trajectories of `domain`: recordings, then live runs.

    A live run is stored as a trajectory too, but it is not a recording anyone chose: it is
    listed after the recordings and marked, so it never becomes the domain's default.
    """
    listed = store.list_trajectories(domain=domain, limit=500)
    live = live_source(domain)
    ordered = sorted(listed, key=lambda t: t.source == live)
    return [
        (
            " · ".join(
                filter(
                    None,
                    [
                        "live run" if t.source == live else "",
                        t.id,
                        f"{t.turns} turns",
                        short(t.task, TASK_PREVIEW),
                    ],
                )
            ),
            t.id,
        )
        for t in ordered
    ]


def task_html(session: PlaySession) -> str:
    """The agent's task from the recording or live run ("" when it has none)."""
    task = session.trajectory.task if session.trajectory else ""
    return f'<div class="awp-task"><b>Task:</b> {esc(short(task, 600))}</div>' if task else ""


def next_action(session: PlaySession) -> str:
    """The recording's next action, to pre-fill the action box; "" off the recording."""
    turn = session.recorded_next()
    return turn.action if turn is not None else ""
