"""`awp simulate` (one step, streamed or as JSON) and `awp domains`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from app.commands.live import open_run, resume_run
from app.commands.options import GroundingK, GroundingTokens
from app.context import build_context
from app.settings import Settings
from backend.domains.base import all_domains
from backend.envs.live.run import LiveRun
from backend.envs.sim.worlds import World, load_world, world_trajectory
from backend.errors import BadInputError
from backend.grounding.transitions import own_recording
from backend.provenance import Recorded, stored
from backend.recording import NewSession, SessionTarget
from backend.sources import reference_provenance, turn_provenance
from backend.spec import Purpose
from backend.stepping import Reality, StepOutcome, run_step
from backend.types import HistoryMode, Prediction, PromptContext, SimRequest, Trajectory, Turn
from storage.models import SessionKind
from storage.records import StoredSession


def read_history(path: Path) -> tuple[list[Turn], Trajectory | None]:
    """Read a history file: a JSON list of `{action, observation}` turns or a Trajectory object.

    Raises:
        BadInputError: the file is missing, not JSON, or neither shape.
    """
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadInputError(f"History file not found: {path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadInputError(f"History file {path} is not valid JSON: {exc}") from None
    try:
        if isinstance(data, list):
            return [Turn.model_validate(item) for item in data], None
        trajectory = Trajectory.model_validate(data)
    except ValueError as exc:
        raise BadInputError(
            f"History file {path} must hold a list of {{action, observation}} turns or a "
            f"trajectory object: {exc}"
        ) from None
    return trajectory.turns, trajectory


def sourced_turns(
    turns: list[Turn], trajectory: Trajectory | None, path: Path | None
) -> list[Turn]:
    """The turns of a history file (or a world) with each real observation's source.

    A recording's turn keeps its own (`turn_provenance`); a bare list of turns is a recording
    of that file.
    """
    out = []
    for index, turn in enumerate(turns):
        if turn.observation is not None and turn.provenance is None:
            if trajectory is not None:
                found = turn_provenance(trajectory, index)
            else:
                found = Recorded(dataset="history file", row_id=str(path), turn=index + 1)
            if path is not None and isinstance(found, Recorded) and found.file is None:
                found = found.model_copy(update={"file": str(path)})
            turn = turn.model_copy(update={"provenance": found})
        out.append(turn)
    return out


def build_request(
    settings: Settings,
    domain: str | None,
    action: str | None,
    history_file: Path | None,
    turn: int | None,
    history_mode: HistoryMode,
    system_prompt_file: Path | None,
    world: tuple[World, Trajectory] | None = None,
) -> SimRequest:
    """Assemble a SimRequest from CLI options.

    With `--turn N` and a trajectory file, the history is turns 1..N-1, the action is turn N's and
    its recorded observation becomes the reference (so the oracle baseline and scores work). A
    trajectory file's task and tool definitions fill the prompt, as they do on the Playground.
    A pinned world (`--world`, as `world_trajectory` turns it into a recording) stands in for
    the trajectory file and pins the sampling.
    """
    if world is not None and history_file is not None:
        raise BadInputError("--world pins the start; leave out --history.")
    turns, trajectory = read_history(history_file) if history_file else ([], None)
    if world is not None:
        turns, trajectory = list(world[1].turns), world[1]
        if domain is not None and domain != trajectory.domain:
            raise BadInputError(f"The world is in the {trajectory.domain} domain, not {domain}.")
    turns = sourced_turns(turns, trajectory, history_file)
    reference = None
    source = None
    if turn is not None:
        if not 1 <= turn <= len(turns):
            raise BadInputError(f"--turn must be between 1 and {len(turns)}, got {turn}.")
        reference = turns[turn - 1].observation
        source = turns[turn - 1].provenance
        action = action or turns[turn - 1].action
        turns = turns[: turn - 1]
    domain = domain or (trajectory.domain if trajectory else None)
    if not domain:
        raise BadInputError("Give --domain (or a trajectory file, which names its domain).")
    if action is None:
        raise BadInputError("Give --action (or --turn with a trajectory file).")
    system_prompt = system_prompt_file.read_text(encoding="utf-8") if system_prompt_file else None
    return SimRequest(
        domain=domain,
        system_prompt=system_prompt or (trajectory.system_prompt if trajectory else None),
        context=trajectory.prompt_context() if trajectory else PromptContext(),
        initial_state=trajectory.initial_state if trajectory else None,
        history=turns,
        action=action,
        history_mode=history_mode,
        params=world[0].params(settings.sampling()) if world else settings.sampling(),
        reference=reference,
        reference_provenance=source,
        grounding_exclude=own_recording(trajectory.id if trajectory else None),
    )


def prediction_json(prediction: Prediction, request: SimRequest) -> dict[str, Any]:
    """The JSON object `awp simulate --json` prints (`messages`: exactly what the engine got).

    `reference` is the truth the prediction was scored against and `reference_source` where it
    came from (`recorded`, or `live` when the action also ran in a live environment).
    """
    out = prediction.model_dump(mode="json")
    out["domain"] = request.domain
    out["history_mode"] = request.history_mode.value
    out["reference"] = request.reference
    out["reference_source"] = request.reference_origin if request.reference is not None else None
    source = reference_provenance(request)
    out["reference_provenance"] = stored(source) if source is not None else None
    return out


def simulate(
    action: Annotated[
        str | None, typer.Option(help="The agent action, in the domain's format.")
    ] = None,
    domain: Annotated[str | None, typer.Option(help="Domain name (see `awp domains`).")] = None,
    history: Annotated[
        Path | None, typer.Option(help="JSON file: list of {action, observation} or a trajectory.")
    ] = None,
    turn: Annotated[
        int | None, typer.Option(help="With a trajectory file: predict this 1-based turn.")
    ] = None,
    system_prompt: Annotated[
        Path | None, typer.Option(help="File with a system prompt replacing the domain's.")
    ] = None,
    engine: Annotated[str | None, typer.Option(help="Engine name (default from settings).")] = None,
    model: Annotated[str | None, typer.Option(help="Model id or path for the engine.")] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")] = None,
    history_mode: Annotated[
        HistoryMode | None, typer.Option(help="teacher_forced, closed_loop or blind.")
    ] = None,
    max_new_tokens: Annotated[int | None, typer.Option(help="Completion token budget.")] = None,
    temperature: Annotated[float | None, typer.Option(help="Sampling temperature.")] = None,
    seed: Annotated[int | None, typer.Option(help="Sampling seed.")] = None,
    session: Annotated[
        int | None, typer.Option(help="Continue this stored session (see `awp sessions list`).")
    ] = None,
    live: Annotated[
        bool,
        typer.Option(help="Also run the action in a live environment: its result is the truth."),
    ] = False,
    backing: Annotated[
        str | None,
        typer.Option(
            help="shadow: the same as --live; hybrid: a live environment, but only the actions "
            "the domain's routing policy sends to an exact executor run in it (swe editor "
            "calls, read-only MCP tools); the model answers the rest."
        ),
    ] = None,
    task: Annotated[
        str | None, typer.Option(help="With --live: the start state (see `awp live tasks`).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    grounding: Annotated[
        bool | None,
        typer.Option(
            help="Show the model the most similar real transitions (default: AWP_GROUNDING, on)."
        ),
    ] = None,
    grounding_k: GroundingK = None,
    grounding_tokens: GroundingTokens = None,
    record_answers: Annotated[
        bool | None,
        typer.Option(
            help="Answer a step that exactly matches a real transition from it, without the "
            "model (default: AWP_RECORD_ANSWERS, on)."
        ),
    ] = None,
    world: Annotated[
        Path | None,
        typer.Option(help="A world file (YAML or JSON): its start, prompt, seed, temperature."),
    ] = None,
) -> None:
    """Predict the environment's next observation after one action."""
    context = build_context(
        max_new_tokens=max_new_tokens,
        temperature=temperature,
        seed=seed,
        grounding=grounding,
        grounding_k=grounding_k,
        grounding_tokens=grounding_tokens,
        record_answers=record_answers,
    )
    settings = context.settings
    run: LiveRun | None = None
    hybrid = backing == "hybrid"
    if backing not in (None, "sim", "shadow", "hybrid"):
        context.close()
        raise BadInputError(f"--backing must be sim, shadow or hybrid, not {backing!r}.")
    live = live or backing in ("shadow", "hybrid")
    try:
        spec = context.world_spec(
            Purpose.PLAYGROUND,
            engine=engine,
            model=model,
            base_url=base_url,
            history_mode=history_mode,
            hybrid=hybrid,
        )
        simulator = context.simulator(spec)
        if session is None:
            mode = history_mode or settings.history_mode
            if live:
                if history is not None or turn is not None:
                    raise BadInputError(
                        "--live starts from the live environment's own state; "
                        "leave out --history and --turn."
                    )
                if not domain or action is None:
                    raise BadInputError("--live needs --domain and --action.")
                run = open_run(settings, domain, task)
                request = live_request(settings, run, action, mode, system_prompt)
                context.trajectories.upsert(run.trajectory())
                base = {"base_trajectory_id": run.trajectory_id}
            else:
                pinned = None
                if world is not None:
                    loaded = load_world(world)
                    pinned = loaded, world_trajectory(loaded, context.prompts)
                request = build_request(
                    settings, domain, action, history, turn, mode, system_prompt, pinned
                )
                base = {}
            target: SessionTarget = NewSession.for_request(request, SessionKind.CLI.value, **base)
            prefix = request.history
        else:
            stored = context.sessions.load_session(session)
            request = continue_request(stored, action, history, turn, domain, history_mode)
            if live:
                run = resume_run(settings, context, stored)
            target, prefix = session, []
        reality = None if run is None else live_observation(run)
        outcome = None
        steps = run_step(simulator, context.sessions, target, request, prefix, reality, hybrid)
        for item in steps:
            if isinstance(item, StepOutcome):
                outcome = item
            elif not as_json:
                typer.echo(item.reasoning_delta + item.content_delta, nl=False)
        if run is not None:
            context.trajectories.upsert(run.trajectory())
    finally:
        if run is not None:
            run.close()
        context.close()
    if outcome is None:
        raise BadInputError("The engine finished without a completion.")
    print_outcome(outcome, as_json)


def live_request(
    settings: Settings,
    run: LiveRun,
    action: str,
    mode: HistoryMode,
    system_prompt_file: Path | None,
) -> SimRequest:
    """The first request of a live session: the environment's start state, task and tools."""
    system_prompt = system_prompt_file.read_text(encoding="utf-8") if system_prompt_file else None
    return SimRequest(
        domain=run.domain,
        system_prompt=system_prompt,
        context=run.prompt_context(),
        initial_state=run.initial_state or None,
        action=action,
        history_mode=mode,
        params=settings.sampling(),
        grounding_exclude=own_recording(run.trajectory_id),
    )


def live_observation(run: LiveRun) -> Reality:
    """Run an action in `run` and return the real observation after it."""
    return lambda action: run.act(action).observation


def continue_request(
    stored: StoredSession,
    action: str | None,
    history: Path | None,
    turn: int | None,
    domain: str | None,
    history_mode: HistoryMode | None,
) -> SimRequest:
    """The next step of a stored session, with its own prompt settings, history and sampling.

    Raises:
        BadInputError: no action, or options that would contradict the stored session.
    """
    session_id = stored.id
    if action is None:
        raise BadInputError("Give --action to continue a session.")
    if history is not None or turn is not None:
        raise BadInputError("--session continues a stored session; leave out --history and --turn.")
    if domain is not None and domain != stored.domain:
        raise BadInputError(f"Session {session_id} is in the {stored.domain} domain, not {domain}.")
    if history_mode is not None and history_mode is not stored.history_mode:
        raise BadInputError(
            f"Session {session_id} runs {stored.history_mode.value}; its steps keep that history "
            "mode. Start a new session for another one."
        )
    return stored.request(action)


def print_outcome(outcome: StepOutcome, as_json: bool) -> None:
    """Print a stored step as one JSON object or as readable text."""
    prediction = outcome.prediction
    if outcome.live_error:
        typer.secho(
            f"The live environment failed: {outcome.live_error} The prediction is stored "
            "without a real state.",
            fg=typer.colors.YELLOW,
            err=True,
        )
    if as_json:
        out = prediction_json(prediction, outcome.request)
        out["scores"] = [score.model_dump(mode="json") for score in outcome.scores.results]
        out.update(
            session_id=outcome.session_id,
            step_id=outcome.step_id,
            prediction_id=outcome.prediction_id,
        )
        typer.echo(json.dumps(out, ensure_ascii=False))
        return
    typer.echo("\n\n--- predicted observation ---")
    typer.echo(prediction.observation)
    for score in outcome.scores.results:
        typer.echo(f"{score.name}: {score.value:.3f}")
    if prediction.answered_by != "model":
        typer.echo(f"(answered by the {prediction.answered_by}, not predicted)")
    if prediction.history_dropped:
        typer.echo(
            f"(the {prediction.history_dropped} oldest history turns were cut from the prompt "
            "to fit the model's context)"
        )
    typer.echo(
        f"--- {prediction.engine}/{prediction.model}: {prediction.finish_reason}, "
        f"{prediction.completion_tokens} tokens, {prediction.latency_s:.1f}s; "
        f"session {outcome.session_id}, step {outcome.step_id} ---"
    )


def domains() -> None:
    """List the domains with their observation kind."""
    for domain in all_domains():
        typer.echo(f"{domain.name:<10} {domain.observation_kind.value:<12} {domain.title}")


def register(cli: typer.Typer) -> None:
    """Add `simulate` and `domains` to the CLI."""
    cli.command()(simulate)
    cli.command()(domains)
