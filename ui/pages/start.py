"""Start page: what a world model is, three demos that succeed in seconds, the next step per role.

Each demo goes through the same services the workspaces use (the Playground's step path, the
live pool), stores what it made as a session, and links to it in the Sessions browser, so the
first success is also the first thing to browse.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace

import gradio as gr

from backend.engines.base import engine_spec
from backend.engines.transformers_engine import TransformersEngine
from backend.provenance import Live, describe
from backend.simulate import Simulator
from backend.spec import Purpose, WorldSpec
from storage.models import SessionKind
from ui.errors import inline
from ui.play import Done, Playground, live_closure
from ui.provenance import answered_words, real_words
from ui.queueing import blocking_turn
from ui.renderers.base import esc
from ui.replay import run_trajectory
from ui.services import EngineChoice, Services
from ui.session import PlaySession
from ui.users import User
from ui.views import empty, short

INTRO = """\
A **world model** predicts what an agent's environment shows next: given what the agent has
seen so far and the action it takes (a shell command, a click, a tool call), it writes the next
observation, without running anything. Here you act, watch a model predict, compare the
prediction with what really happened, and turn the differences into data to train a better one.
"""

DEMO_DOMAIN = "terminal"
DEMO_TASK = "shell"
DEMO_SHELL = '[{"keystrokes": "echo hello from a live shell && ls /\\n", "duration": 0.5}]'
DEMO_RECORDING = "mkrww/git"
EMBEDDED = "transformers"
DEMO_TOKENS = 32
"""The embedded demo writes at most this many tokens: enough to show what the model makes of a
terminal step, few enough that decoding on a CPU adds seconds, not minutes, to the prompt."""


@dataclass(frozen=True)
class StartPage:
    """The page's components."""

    oracle: gr.Button
    shell: gr.Button
    embedded: gr.Button
    result: gr.HTML
    next_step: gr.Markdown


def render(services: Services) -> StartPage:
    """Build the page (inside the caller's Tab)."""
    gr.Markdown(INTRO, elem_id="st-intro")
    gr.Markdown("### Try it: each demo takes seconds and stores a session you can open")
    # Not equal heights: a column with a shorter text would stretch its button taller.
    with gr.Row(equal_height=False):
        with gr.Column(min_width=240):
            oracle = gr.Button("1 · Replay a terminal session", elem_id="st-oracle")
            gr.Markdown(
                "The *oracle* engine answers with the recorded truth, so a whole recorded shell "
                "session replays in about a second: the page layout without waiting for a model."
            )
        with gr.Column(min_width=240):
            shell = gr.Button("2 · A live shell beside a prediction", elem_id="st-shell")
            gr.Markdown(
                f"Runs a command in a real sandboxed shell and asks "
                f"`{shell_engine(services)}` to predict its output; both appear side by side."
            )
        with gr.Column(min_width=240):
            embedded = gr.Button("3 · One embedded-model prediction", elem_id="st-embedded")
            gr.Markdown(
                "The bundled SmolLM2 model predicts one terminal step on this machine's CPU "
                f"from the official prompt (about 760 tokens), writing at most {DEMO_TOKENS}. "
                "It loads while you read this page; on the project's 2 shared test cores under "
                "load it took 17-30 s once loaded, about 50 s if pressed as the app opens. The "
                "time is shown."
            )
    result = gr.HTML(empty("Pick a demo."), elem_id="st-result")
    gr.Markdown("### Your next step")
    next_step = gr.Markdown(elem_id="st-next")
    return StartPage(oracle, shell, embedded, result, next_step)


def engine_choice(services: Services, engine: str) -> EngineChoice:
    """The configured settings on `engine` (its configured model only if it is the default)."""
    base = services.defaults
    model = base.model if engine == base.engine else ""
    return EngineChoice(engine, model, base.base_url, base.history_mode, base.params)


def ungrounded(services: Services) -> Services:
    """The services with simulators that show the model no demonstrations.

    The embedded demo sends the domain's official prompt (about 760 tokens on terminal), not
    the grounded one, which adds up to 2,000 tokens of stored real transitions: on a CPU the
    prompt, not the few tokens written, is most of the wait.
    """

    def simulator(spec: WorldSpec) -> Simulator:
        # The spec says so too: the demo's session states it ran ungrounded.
        return services.simulator(spec.model_copy(update={"grounding": False}))

    return replace(services, simulator=simulator)


def warm(services: Services) -> bool:
    """Start loading the embedded demo's model in the background, if it is on disk already.

    Called when someone opens the app, so the load (tens of seconds on a busy CPU) is paid while
    they read, not after they press the demo. Returns whether a load started.
    """
    choice = engine_choice(services, EMBEDDED)
    engine = services.simulator(choice.world(services.world_spec, Purpose.PLAYGROUND)).engine
    return isinstance(engine, TransformersEngine) and engine.warm()


def demo_choice(choice: EngineChoice) -> EngineChoice:
    """The configured engine settings with at most `DEMO_TOKENS` new tokens."""
    tokens = min(choice.params.max_new_tokens, DEMO_TOKENS)
    return replace(choice, params=choice.params.model_copy(update={"max_new_tokens": tokens}))


def shell_engine(services: Services) -> str:
    """The live-shell demo's engine: the default one, or persistence when it runs in-process.

    An in-process model takes a minute to load on a CPU; the demo must succeed in seconds.
    """
    default = services.defaults.engine
    return "persistence" if engine_spec(default).capabilities.in_process else default


def next_step_text(services: Services, user: User) -> str:
    """What the signed-in person does next, by role, with the numbers that make it concrete."""
    waiting = services.queue.count_pending(user.name)
    lines = [
        f"- **You are an annotator:** {waiting} prediction{'s' if waiting != 1 else ''} wait for "
        "your review in [Human feedback ▸ Annotate](?workspace=feedback&tab=annotate).",
        "- **You are exploring:** act in a domain of your choice in "
        "[Explore ▸ Playground](?workspace=explore&tab=playground), or browse stored sessions in "
        "[Explore ▸ Sessions](?workspace=explore&tab=sessions).",
        "- **You are a researcher:** score engines on recorded steps in "
        "[Evaluate ▸ Benchmark](?workspace=evaluate&tab=benchmark); every run is listed in "
        "[Evaluate ▸ Runs](?workspace=evaluate&tab=runs).",
    ]
    if user.is_admin:
        lines.append(
            "- **You are an admin:** export reviewed data or fine-tune a model in "
            "[Data and training](?workspace=data)."
        )
    return "\n".join(lines)


def _done(title: str, session: PlaySession, took: float, extra: str = "") -> str:
    """The demo's outcome line with a link to its stored session."""
    link = (
        f' <a href="?workspace=explore&amp;tab=sessions&amp;session={session.session_id}">'
        f"Open session #{session.session_id}</a>"
        if session.session_id
        else ""
    )
    return (
        f'<div class="awp-demo-ok"><b>{title}</b> · {len(session.steps)} step'
        f"{'s' if len(session.steps) != 1 else ''} in {took:.1f} s. {extra}{link}</div>"
    )


def _last_step(session: PlaySession) -> str:
    """The last step's action, then its prediction beside its real output, each with its source.

    Both sources come from the stored provenance (`ui.provenance`): who answered and from
    where on the left, where the real state came from on the right.
    """
    step = session.steps[-1]
    predicted = step.prediction.observation if step.prediction else ""
    left = answered_words(step.prediction) if step.prediction else "no prediction"
    right = real_words(step.origin, step.provenance) if step.real is not None else "unknown"
    return (
        f'<div class="awp-demo-action">Action: <code>{esc(short(step.action, 160))}</code></div>'
        '<div class="awp-demo-pair">'
        f'<div><h4>Predicted</h4><p class="awp-demo-source">{esc(left)}</p>'
        f'<pre class="awp-text">{esc(predicted[-1200:])}</pre></div>'
        f'<div><h4>Real</h4><p class="awp-demo-source">{esc(right)}</p>'
        f'<pre class="awp-text">{esc((step.real or "")[-1200:])}</pre></div></div>'
    )


def shell_title(services: Services, session: PlaySession, owner: str) -> str:
    """What answered the live-shell demo, in words from the prediction's provenance.

    A repeat press finds the first press's live run in the record, which then answers instead
    of the engine: the title says so ("answered by the record of your earlier live run"), and
    names the engine only when the engine predicted.
    """
    made = session.steps[-1].prediction if session.steps else None
    if made is None:
        return "A live shell ran the command"
    source = made.provenance
    if made.answered_by == "record" and isinstance(source, Live) and source.run:
        whose = "your" if services.sessions.owns_recording(owner, source.run) else "an"
        return (
            f"A live shell ran the command; answered by the record of {whose} earlier live "
            f"run ({describe(source)})"
        )
    return f"A live shell ran the command; {answered_words(made)}"


def wire(page: StartPage, services: Services) -> None:
    """Bind the demos; each shows its result or its error in the one result component."""
    playground = Playground(services, SessionKind.PLAYGROUND)
    official = Playground(ungrounded(services), SessionKind.PLAYGROUND)

    def choice(engine: str) -> EngineChoice:
        return engine_choice(services, engine)

    def oracle(request: gr.Request) -> dict:
        user = services.identify(request)
        recording = services.trajectories.get(DEMO_RECORDING)
        started = time.perf_counter()
        runs = run_trajectory(playground, recording, choice("oracle"), user.name)
        session = deque(runs, maxlen=1)[0]  # each yield is the run so far; keep the last
        return {
            page.result: _done(
                "The oracle replayed a recorded terminal session",
                session,
                time.perf_counter() - started,
                "Each prediction equals the recorded output, so every score is perfect.",
            )
            + _last_step(session)
        }

    def shell(request: gr.Request) -> dict:
        user = services.identify(request)
        started = time.perf_counter()
        session = playground.start_live(DEMO_DOMAIN, DEMO_TASK, request.session_hash or user.name)
        try:
            for event in playground.step(
                session, DEMO_SHELL, choice(shell_engine(services)), user.name
            ):
                if isinstance(event, Done):
                    session = event.session
        finally:
            if services.live is not None and session.live is not None:
                services.live.close(session.live)
        view = session.live_view
        closure = live_closure(view) if view is not None and view.after else ""
        return {
            page.result: _done(
                esc(shell_title(services, session, user.name)),
                session,
                time.perf_counter() - started,
                " ".join(filter(None, [closure, session.notice])),
            )
            + _last_step(session)
        }

    def embedded(request: gr.Request) -> dict:
        user = services.identify(request)
        recording = services.trajectories.get(DEMO_RECORDING)
        started = time.perf_counter()
        session = official.start(DEMO_DOMAIN, recording.id, 0)
        for event in official.step(
            session, recording.turns[0].action, demo_choice(choice(EMBEDDED)), user.name
        ):
            if isinstance(event, Done):
                session = event.session
        made = session.steps[-1].prediction
        read, wrote = (made.prompt_tokens, made.completion_tokens) if made else (0, 0)
        return {
            page.result: _done(
                "The embedded model predicted one step",
                session,
                time.perf_counter() - started,
                f"It read a {read}-token prompt and wrote {wrote} tokens on this machine.",
            )
            + _last_step(session)
        }

    def in_turn(fn: Callable[[gr.Request], dict], engine: str) -> Callable[[gr.Request], dict]:
        # `services.fair` queues a model demo behind other model steps; the oracle's runs at once.
        def taken(request: gr.Request) -> dict:
            with blocking_turn(services, request, engine):
                return fn(request)

        return taken

    for button, fn, engine, name in (
        (page.oracle, oracle, "oracle", "demo_oracle"),
        (page.shell, shell, shell_engine(services), "demo_shell"),
        (page.embedded, embedded, EMBEDDED, "demo_embedded"),
    ):
        button.click(
            inline(in_turn(fn, engine), page.result),
            None,
            page.result,
            api_name=name,
            concurrency_limit=None,
        )
