"""Rollouts page: run a few agent episodes in the world model, open one step by step, list runs.

A run is a job (`ui.pages.job_panel`): the line counts the steps taken (of at most episodes x
step limit: an episode may end sooner), the time so far and what is left; a reload reopens it,
and Cancel stops it before the next step (the engine stops mid-prediction), the run recorded as
interrupted with the episodes it finished.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.domains.base import all_domains, get_domain
from backend.envs.live import cgroups
from backend.envs.sim.defaults import REPLAY
from backend.envs.sim.report import Summary
from backend.envs.sim.service import RolloutOutcome
from backend.jobs import Job
from ui.errors import guarded
from ui.pages import job_panel, rollouts_honesty
from ui.renderers import render as render_observation
from ui.rollouts import MAX_EPISODES, PAST_HEADERS, RolloutRequest, Rollouts
from ui.services import Services
from ui.views import empty

SUMMARY_HEADERS = ["domain", "episodes", "mean reward", "mean steps", "invalid %", "fidelity"]
STEP_HEADERS = ["step", "action", "reward", "fidelity", "invalid"]
NOTHING_YET = (
    "**No rollout yet.** Choose a domain and an agent, then press **Run rollout**: the "
    "summary of its episodes, and each step's prediction beside the real state, appear here."
)
NO_PAST_RUNS = "No past runs yet: each rollout is listed here with how it ended."


@dataclass(frozen=True)
class RolloutsPage:
    """The page's components."""

    domain: gr.Dropdown
    agent: gr.Dropdown
    engine: gr.Dropdown
    episodes: gr.Number
    max_steps: gr.Number
    env: gr.Radio
    run: gr.Button
    job: job_panel.JobPanel
    status: gr.Markdown
    summary: gr.Dataframe
    opened: gr.Column
    episode: gr.Dropdown
    steps: gr.Dataframe
    step: gr.Number
    action: gr.Code
    predicted: gr.HTML
    real: gr.HTML
    past: gr.Dataframe
    past_empty: gr.HTML
    refresh: gr.Button
    rows: gr.State
    honesty: rollouts_honesty.HonestySection


def render(services: Services) -> RolloutsPage:
    """Build the page (inside the caller's Tab)."""
    domains = [domain.name for domain in all_domains()]
    engines = list(services.engines)
    with gr.Row(equal_height=False):
        with gr.Column(scale=1, min_width=280):
            domain = gr.Dropdown(domains, value="terminal", label="Domain", elem_id="ro-domain")
            agent = gr.Dropdown(
                [REPLAY, *engines],
                value=REPLAY,
                label="Agent",
                info="replay: the recordings' actions",
                elem_id="ro-agent",
            )
            engine = gr.Dropdown(
                engines, value=services.defaults.engine, label="World model", elem_id="ro-engine"
            )
            episodes = gr.Number(
                2,
                label="Episodes",
                precision=0,
                minimum=1,
                maximum=MAX_EPISODES,
                elem_id="ro-episodes",
            )
            max_steps = gr.Number(5, label="Step limit", precision=0, minimum=1, maximum=20)
            env = gr.Radio(
                ["sim", "shadow", "hybrid"],
                value="sim",
                label="Environment",
                info="shadow: the agent acts live, the model predicts each step; hybrid: exact "
                "executors where the domain allows (swe edits), the model elsewhere",
                elem_id="ro-env",
            )
            run = gr.Button("Run rollout", variant="primary", elem_id="ro-run")
            if services.live is not None:  # shadow and hybrid runs start live sandboxes
                gr.Markdown(
                    f"Shadow and hybrid runs act in live sandboxes. "
                    f"{cgroups.limits_held(services.live.config)}",
                    elem_id="ro-live-limits",
                )
            job = job_panel.render("ro", "rollout", "rollouts")
        with gr.Column(scale=2):
            status = gr.Markdown(NOTHING_YET, elem_id="ro-status")
            # Hidden until a run finishes: before one, its empty tables would fill the page.
            summary = gr.Dataframe(
                None,
                headers=SUMMARY_HEADERS,
                interactive=False,
                label="Summary",
                visible=False,
                elem_id="ro-summary",
            )
    opened, episode, step, steps, action, predicted, real = _render_opened()
    past, past_empty, refresh = _render_past(services)
    honesty = rollouts_honesty.render()
    return RolloutsPage(
        domain,
        agent,
        engine,
        episodes,
        max_steps,
        env,
        run,
        job,
        status,
        summary,
        opened,
        episode,
        steps,
        step,
        action,
        predicted,
        real,
        past,
        past_empty,
        refresh,
        gr.State([]),
        honesty,
    )


def _render_opened() -> tuple[
    gr.Column, gr.Dropdown, gr.Number, gr.Dataframe, gr.Code, gr.HTML, gr.HTML
]:
    """A finished run's episodes, hidden until one exists: its steps, one step's panels."""
    with gr.Column(visible=False, elem_id="ro-opened") as opened:
        with gr.Row():
            episode = gr.Dropdown([], label="Episode", elem_id="ro-episode", scale=3)
            step = gr.Number(1, label="Step", precision=0, minimum=1, elem_id="ro-step", scale=1)
        steps = gr.Dataframe(
            None,
            headers=STEP_HEADERS,
            interactive=False,
            label="Steps",
            wrap=True,
            elem_id="ro-steps",
        )
        action = gr.Code(label="Action", elem_id="ro-action")
        with gr.Row(equal_height=False):
            with gr.Column():
                gr.Markdown("**Predicted** (the world model)")
                predicted = gr.HTML(elem_id="ro-predicted")
            with gr.Column():
                gr.Markdown("**Real** (the recording, or the live environment in shadow mode)")
                real = gr.HTML(elem_id="ro-real")
    return opened, episode, step, steps, action, predicted, real


def _render_past(services: Services) -> tuple[gr.Dataframe, gr.HTML, gr.Button]:
    """The past runs (or a line saying there are none yet) and Refresh."""
    listed = Rollouts(services).listing()
    with gr.Accordion("Past runs", open=True):
        past = gr.Dataframe(
            listed or None,
            headers=PAST_HEADERS,
            interactive=False,
            label="Past runs",
            show_label=False,
            visible=bool(listed),
            elem_id="ro-past",
        )
        past_empty = gr.HTML(empty(NO_PAST_RUNS), visible=not listed, elem_id="ro-past-empty")
        refresh = gr.Button("Refresh", size="sm", elem_id="ro-refresh")
    return past, past_empty, refresh


def _label(row: dict[str, Any]) -> str:
    return f"{row['episode']}: {row['domain']} {row['start']} ({len(row['steps'])} steps)"


def step_view(rows: list[dict[str, Any]], label: str, number: float | None) -> list[Any]:
    """The chosen episode's steps, and its chosen step's action, prediction and real state."""
    row = next((r for r in rows if _label(r) == label), None)
    if row is None or not row["steps"]:
        return [gr.Dataframe(None), "", "", ""]
    table = [
        [i, s["action"][:120], round(s["reward"], 3), s["fidelity"], s["invalid"]]
        for i, s in enumerate(row["steps"], start=1)
    ]
    index = min(max(int(number or 1), 1), len(row["steps"])) - 1
    chosen = row["steps"][index]
    renderer = get_domain(row["domain"]).renderer
    previous = row["steps"][index - 1]["observation"] if index else None
    predicted = chosen["predicted"] if chosen["predicted"] is not None else chosen["observation"]
    real = chosen["reference"]
    real_html = (
        render_observation(renderer, real, previous)
        if real is not None
        else "<p>No real state.</p>"
    )
    return [
        gr.Dataframe(table, headers=STEP_HEADERS),
        chosen["action"],
        render_observation(renderer, predicted, previous),
        real_html,
    ]


def summary_rows(summary: Summary) -> list[list[Any]]:
    """The summary table's rows: one a domain, in `SUMMARY_HEADERS`' order."""
    return [
        [
            name,
            f.episodes,
            round(f.mean_reward, 3),
            round(f.mean_steps, 2),
            round(100 * f.invalid_rate, 1),
            None if f.fidelity is None else round(f.fidelity, 3),
        ]
        for name, f in summary.domains.items()
    ]


def wire(page: RolloutsPage, services: Services) -> None:
    """Bind the page's events to the rollout service."""
    rollouts = Rollouts(services)
    rollouts_honesty.wire(page.honesty, services)
    views = [page.steps, page.action, page.predicted, page.real]

    def start(
        domain: str,
        agent: str,
        engine: str,
        episodes: float | None,
        max_steps: float | None,
        env: str,
        request: gr.Request,
    ) -> Job:
        user = services.identify(request)
        owner = services.identify(request, individual=True).name
        ask = RolloutRequest(domain, agent, engine, int(episodes or 1), int(max_steps or 5), env)
        rollouts.check(ask)  # refused at once, before a job starts

        def roll(job: Job) -> tuple[RolloutOutcome, str]:
            return rollouts.run(user, ask), env

        title = f"{ask.episodes} {env} episode(s) of {domain}"
        total = ask.episodes * ask.max_steps
        return services.jobs.submit("rollout", owner, title, roll, total=total, unit="steps")

    def finished(result: tuple[RolloutOutcome, str]) -> dict[Any, Any]:
        outcome, env = result
        rows, table = outcome.rows, summary_rows(outcome.summary)
        dumped = [row.model_dump() for row in rows]
        labels = [_label(row) for row in dumped]
        note = f"Finished {len(rows)} {env} episode(s); each is stored as a rollout session."
        shown = step_view(dumped, labels[0] if labels else "", 1)
        return {
            page.status: note,
            page.summary: gr.Dataframe(table, headers=SUMMARY_HEADERS, visible=True),
            page.opened: gr.Column(visible=True),
            page.rows: dumped,
            page.episode: gr.Dropdown(labels, value=labels[0] if labels else None),
            **dict(zip(views, shown, strict=True)),
            **listing(),
        }

    def listing() -> dict[Any, Any]:
        rows = rollouts.listing()
        return {
            page.past: gr.Dataframe(rows or None, headers=PAST_HEADERS, visible=bool(rows)),
            page.past_empty: gr.HTML(visible=not rows),
        }

    inputs = [page.domain, page.agent, page.engine, page.episodes, page.max_steps, page.env]
    past = [page.past, page.past_empty]
    job_panel.wire(
        page.job,
        services,
        page.run,
        start,
        inputs,
        finished,
        [page.status, page.summary, page.opened, page.rows, page.episode, *views, *past],
        api_name="rollout_run",
        stopped=listing,  # a cancelled or failed run is listed as it ended
        form=True,  # a reopened job shows the settings it runs with
    )
    page.refresh.click(
        guarded(listing), None, past, api_name="rollout_past", concurrency_limit=None
    )
    shown = [page.rows, page.episode, page.step]
    page.episode.change(
        guarded(step_view), shown, views, api_name="rollout_episode", concurrency_limit=None
    )
    page.step.change(
        guarded(step_view), shown, views, api_name="rollout_step", concurrency_limit=None
    )
