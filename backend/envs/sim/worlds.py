"""Pinned worlds: one file that fixes everything an episode's world model depends on.

A world file (YAML or JSON) names the domain, the task and the live task whose check decides
success, the initial state, the tools, a system-prompt override, fictional-world notes, the
seed and temperature, and perturbation presets. This is the one loader: `awp simulate --world`,
`awp rollout --world`, Gymnasium's `world=`, the OpenEnv reset's `world` and the Playground's
"Load a world" all read a world through `load_world` / `parse_world` and turn it into an
`EpisodeSpec` with `world_spec`, so a world means the same everywhere. The Playground's "Save
this world" writes one with `dump_world`.

RL needs a world that answers the same way twice: a world defaults to temperature 0 and seed 0,
and `rl_warnings` names a world that does not (a warning, not a refusal: sampling worlds are a
legitimate experiment, but their rewards are noisy).
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from backend.domains.base import get_domain, tool_call_domains
from backend.domains.prompts import PromptLibrary, fill
from backend.envs.sim.episode import EpisodeSpec
from backend.errors import BadInputError
from backend.registry import Registry
from backend.types import PromptContext, SamplingParams, Trajectory

WORLD_SCHEMA_VERSION = 1


class UnpinnedWorldWarning(UserWarning):
    """An RL edge runs a world that may answer the same actions differently."""


@dataclass(frozen=True)
class Perturbation:
    """A preset change of how the world's tools behave, told to the world model.

    Attributes:
        name: the preset's name, as world files list it.
        description: one line for people.
        instruction: the section the world model's system prompt gets.
        domains: the domains it applies to (by default every tool-call domain).
    """

    name: str
    description: str
    instruction: str
    domains: tuple[str, ...] = field(default_factory=tool_call_domains)


PERTURBATIONS: Registry[Perturbation] = Registry("perturbation")
for _preset in (
    Perturbation(
        "errors",
        "some tool calls fail with an error response",
        "About one tool call in three fails: answer it with the tool's realistic error response "
        "(an error object or message naming the cause) instead of its result.",
    ),
    Perturbation(
        "timeouts",
        "some tool calls time out",
        "The tool backend is slow: about one call in four times out. Answer such a call with the "
        "tool's timeout error (for example `Error: request timed out after 30s`) and no result.",
    ),
    Perturbation(
        "rate_limits",
        "repeated calls hit a rate limit",
        "The tools are rate limited: from the third call on, every other call is refused with "
        "an HTTP 429 style error saying `rate limit exceeded, retry after 10s`.",
    ),
    Perturbation(
        "empty_results",
        "queries and reads come back empty",
        "Lookups come back empty: searches return no results, listings are empty and reads of "
        "anything not written during this episode find nothing, in the tool's normal format.",
    ),
    Perturbation(
        "schema_drift",
        "results use renamed fields",
        "The tools' response schema has drifted from its documentation: field names are "
        "renamed (camelCase instead of snake_case, `items` instead of `results`) and one field "
        "the documentation promises is missing, consistently for the whole episode.",
    ),
):
    PERTURBATIONS.register(_preset.name, _preset)


class World(BaseModel):
    """A pinned world, as a world file holds it.

    Attributes:
        schema_version: the file format's version.
        name: what the world is called (runs and sessions show it).
        domain: the domain.
        task: the agent's task.
        live_task: the live environment's task, whose check decides real success.
        check: what the check verifies, in words (the live task's check, for people).
        initial_state: the observation before the first action.
        tools: tool definitions (mcp, swe, search) the prompt shows and actions are checked by.
        system_prompt: a system-prompt template replacing the domain's (slots are filled).
        notes: fictional-world notes: facts of this world the model must keep to.
        target_query: search: the query the research is after (the prompt's simulation slot).
        reference_answer: search: the answer the pages must support.
        seed: the world model's sampling seed.
        temperature: the world model's temperature.
        perturbations: preset names (`PERTURBATIONS`), tool domains only.
        recording: a recorded episode the world follows (reference and replay actions).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = WORLD_SCHEMA_VERSION
    name: str = "world"
    domain: str
    task: str = ""
    live_task: str | None = None
    check: str | None = None
    initial_state: str | None = None
    tools: list[dict[str, Any]] | None = None
    system_prompt: str | None = None
    notes: str = ""
    target_query: str | None = None
    reference_answer: str | None = None
    seed: int | None = 0
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    perturbations: list[str] = Field(default_factory=list)
    recording: Trajectory | None = None

    def context(self) -> PromptContext:
        """What the domain prompt is filled with: task, tools and the search instruction."""
        return PromptContext(
            tools=self.tools, task=self.task or None, simulation_instruction=self.instruction()
        )

    def instruction(self) -> str | None:
        """The search domain's simulation instruction (None without a target query)."""
        if self.target_query is None:
            return None
        lines = [f"Target query: {self.target_query}"]
        if self.reference_answer:
            lines.append(
                f"Reference answer: {self.reference_answer}. Pages and snippets relevant to the "
                "target query must be consistent with it; never state it outright unless a page "
                "would."
            )
        return "\n".join(lines)

    def sampling(self) -> dict[str, Any]:
        """The sampling fields the world pins: temperature and seed."""
        return {"temperature": self.temperature, "seed": self.seed}

    def params(self, base: SamplingParams) -> SamplingParams:
        """`base` with the world's temperature and seed."""
        return base.model_copy(update=self.sampling())


def _check(world: World) -> World:
    domain = get_domain(world.domain)
    for name in world.perturbations:
        preset = PERTURBATIONS.get(name)
        if world.domain not in preset.domains:
            raise BadInputError(
                f"The perturbation {name!r} is for tool domains ({', '.join(preset.domains)}), "
                f"not {domain.name}."
            )
    if (world.target_query or world.reference_answer) and world.domain != "search":
        raise BadInputError("target_query and reference_answer belong to search worlds.")
    if world.recording is not None and world.recording.domain != world.domain:
        raise BadInputError(f"The world's recording is not in the {world.domain} domain.")
    if world.schema_version > WORLD_SCHEMA_VERSION:
        raise BadInputError(
            f"World file version {world.schema_version} is newer than this version reads "
            f"({WORLD_SCHEMA_VERSION})."
        )
    return world


def parse_world(value: dict[str, Any] | str) -> World:
    """A world from a mapping, or from YAML or JSON text (JSON is YAML too).

    Raises:
        BadInputError: not a mapping, an unknown field or domain, a bad perturbation.
    """
    if isinstance(value, str):
        try:
            value = yaml.safe_load(value)
        except yaml.YAMLError as exc:
            raise BadInputError(f"The world file is neither YAML nor JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise BadInputError("A world file holds one mapping (domain, task, seed, ...).")
    try:
        world = World.model_validate(value)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'world'}: {e['msg']}" for e in exc.errors()
        )
        raise BadInputError(f"Not a valid world file: {problems}") from None
    return _check(world)


def load_world(path: Path | str) -> World:
    """The world in the YAML or JSON file at `path`.

    Raises:
        BadInputError: the file cannot be read or is not a valid world.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise BadInputError(f"Cannot read the world file {path}: {exc}") from exc
    return parse_world(text)


def dump_world(world: World, fmt: str = "yaml") -> str:
    """The world file's text, YAML (the default) or JSON; `parse_world` reads either back."""
    data = world.model_dump(mode="json", exclude_none=True)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def world_prompt(world: World, prompts: PromptLibrary) -> str | None:
    """The world model's system prompt, filled; None when the domain's stands unchanged.

    The world's override (or the domain's template) is filled with the world's context, then
    the fictional-world notes and each perturbation become sections of their own.
    """
    if not (world.system_prompt or world.notes or world.perturbations or world.target_query):
        return None
    context = world.context()
    base = (
        fill(world.system_prompt, context)
        if world.system_prompt
        else prompts.system_prompt(world.domain, context)
    )
    sections = [base.rstrip()]
    if world.notes.strip():
        sections.append(
            "## Fictional-world notes\n\nThis world is fictional. Keep to these facts in every "
            f"observation, even where the real world differs:\n\n{world.notes.strip()}"
        )
    for name in world.perturbations:
        sections.append(f"## Perturbation: {name}\n\n{PERTURBATIONS.get(name).instruction}")
    return "\n\n".join(sections) + "\n"


def world_spec(world: World, prompts: PromptLibrary) -> EpisodeSpec:
    """The episode start the world pins: its state, context, prompt, sampling and live task."""
    recording = world.recording
    return EpisodeSpec(
        domain=world.domain,
        task=world.task or (recording.task if recording else ""),
        initial_state=world.initial_state
        if world.initial_state is not None
        else (recording.initial_state if recording else None),
        context=world.context(),
        trajectory=recording,
        live_task=world.live_task,
        system_prompt=world_prompt(world, prompts),
        sampling=world.sampling(),
        world=world.name,
    )


def world_trajectory(world: World, prompts: PromptLibrary) -> Trajectory:
    """The world as a recording to start a session from (Playground, `awp simulate --world`).

    Its turns are the world's recording's (none without one); its system prompt is the world's
    filled prompt, so a session started from it asks the world model exactly what an episode
    of the world asks.
    """
    recording = world.recording
    spec = world_spec(world, prompts)
    metadata = {
        **(recording.metadata if recording else {}),
        "world": world.name,
        "world_file": world.model_dump(mode="json", exclude_none=True),
    }
    if world.tools is not None:
        metadata["tools"] = world.tools
    return Trajectory(
        id=f"world:{world.name}",
        domain=world.domain,
        system_prompt=spec.system_prompt or (recording.system_prompt if recording else None),
        task=spec.task,
        initial_state=spec.initial_state,
        turns=list(recording.turns) if recording else [],
        source=recording.source if recording else "world",
        licence=recording.licence if recording else "user",
        metadata=metadata,
    )


def session_world(
    name: str,
    trajectory: Trajectory | None,
    domain: str,
    initial_state: str | None,
    temperature: float,
    seed: int | None,
) -> World:
    """The world a Playground session stands in: its start, tools, prompt and sampling.

    A session started from a world keeps that world's settings (its file is in the recording's
    metadata); any other session pins its recording, or its blank start, with its sampling.
    """
    pinned = trajectory.metadata.get("world_file") if trajectory else None
    if isinstance(pinned, dict):
        return parse_world({**pinned, "name": name, "temperature": temperature, "seed": seed})
    context = trajectory.prompt_context() if trajectory else PromptContext()
    return parse_world(
        {
            "name": name,
            "domain": domain,
            "task": context.task or "",
            "initial_state": initial_state,
            "tools": context.tools,
            "system_prompt": trajectory.system_prompt if trajectory else None,
            "temperature": temperature,
            "seed": seed,
            "recording": trajectory.model_dump(mode="json") if trajectory else None,
        }
    )


def world_starts(world: Path | str | dict[str, Any], prompts: PromptLibrary) -> list[EpisodeSpec]:
    """The one start a world file (its path or its mapping) pins; warned of when not pinned.

    Raises:
        BadInputError: the file cannot be read or is not a valid world.
    """
    loaded = parse_world(world) if isinstance(world, dict) else load_world(world)
    return [world_spec(warn_unpinned(loaded), prompts)]


def rl_warnings(world: World) -> list[str]:
    """Why the world does not answer the same way twice (empty when it does)."""
    warnings = []
    if world.temperature > 0:
        warnings.append(
            f"World {world.name!r} samples at temperature {world.temperature}: the same actions "
            "can be answered differently, so its rewards are noisy; RL wants temperature 0."
        )
    if world.seed is None:
        warnings.append(
            f"World {world.name!r} has no seed: episodes cannot be repeated; RL wants a fixed seed."
        )
    return warnings


def warn_unpinned(world: World) -> World:
    """Warn (`UnpinnedWorldWarning`) about each way `world` is not pinned; returns it."""
    for message in rl_warnings(world):
        warnings.warn(message, UnpinnedWorldWarning, stacklevel=2)
    return world
