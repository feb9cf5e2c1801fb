"""The Domain type and its registry: one module per domain registers itself here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from backend.domains.routing import RoutingPolicy
from backend.registry import Registry
from backend.types import ObservationKind, PromptContext

MAX_ACTION_CHARS = 100_000


ActionValidator = Callable[[str, PromptContext], str]


class ActionKind(StrEnum):
    """What an agent's action is, which decides how trajectories carry and export it.

    TOOL_CALL actions are one named call with JSON arguments (exports write them as tool calls,
    imported tool-call trajectories belong to these domains); the others travel as plain text.
    """

    KEYSTROKES = "keystrokes"
    TOOL_CALL = "tool_call"
    UI = "ui"


@dataclass(frozen=True)
class MetricSet:
    """The metrics computed for a domain, in display order, and the headline among them.

    Names only: the metrics themselves live in backend.scoring, which domains must not import;
    the contract (backend.contract) checks that each name is a registered metric.
    """

    metrics: tuple[str, ...]
    headline: str


def packaged_prompt(*parts: str) -> Traversable:
    """A prompt file shipped in the `backend` package, e.g. `("domains", "prompts", "os.md")`.

    Resolved from `backend` itself so that naming a judge prompt imports no scoring module.
    """
    return resources.files("backend").joinpath(*parts)


@dataclass(frozen=True)
class DomainPrompts:
    """A domain's built-in prompt files; an override folder may replace either by name.

    Attributes:
        system: the world model's system prompt template (None: none yet, so a step fails).
        judge: the judge's per-domain section, after the shared rubric (None: none yet).
    """

    system: Traversable | None = None
    judge: Traversable | None = None


def builtin_prompts(name: str) -> DomainPrompts:
    """The system and judge prompt files a built-in domain ships under its own name."""
    return DomainPrompts(
        system=packaged_prompt("domains", "prompts", f"{name}.md"),
        judge=packaged_prompt("scoring", "judge_prompts", f"{name}.md"),
    )


FinishTest = Callable[[str], bool]
"""Says whether a canonical action of the domain is its finish action."""


@dataclass(frozen=True)
class Finish:
    """A domain's own finish action: how to recognise it, and how the agent prompt names it.

    The two travel together so that an agent is never held to a finish action it was not told.

    Attributes:
        test: whether a canonical action is the finish action (backend.domains.finish).
        hint: one sentence for the agent prompt saying how to finish.
        action: the finish action itself, canonical, where it needs no arguments: what a
            harness sends for an episode that stopped short of it, so that the live check runs
            on the state the episode ended in ("": it takes arguments, so none is sent).
    """

    test: FinishTest
    hint: str
    action: str = ""


@dataclass(frozen=True)
class Domain:
    """Everything the core needs to know about one environment family.

    Attributes:
        name: registry key (`terminal`, `swe`, `mcp`, `search`, `web`, `os`, `android`).
        title: human name shown in the UI.
        observation_kind: representation of observations; picks metrics and renderers.
        action_kind: what an action is (`ActionKind.TOOL_CALL`: the tool-call domains).
        action_help: one paragraph on the action format, shown next to the action box.
        example_action: a valid action, used as the UI placeholder and in tests.
        validate: parses an action and returns it in canonical text, or raises BadActionError.
        renderer: name of the UI renderer for observations (a ui.renderers RENDERERS key; a
            string, because backend must not import ui).
        finish: the agent's own finish action, None where the harness ends with a plain answer
            (its episodes end by the judge or the step limit).
        block_observation: the official prompt asks for one closed `<predicted_observation>`
            block; text domains answer after the `**Environment Observation:**` marker instead.
            Exports write ground truth in that form.
        live: `backend.envs.live.<name>` registers a live environment for the domain.
        recorded_only: why the domain can never run live (said by `awp live tasks`); "" when it
            can, or when it simply has no live environment yet.
        hybrid: who answers each action in hybrid backing (`backend.domains.routing`); empty:
            the world model answers every action.
        metrics: the metric set scored on every prediction, with its headline (None: not
            declared yet, which the contract reports).
        prompts: its built-in system and judge prompts (none declared: the contract reports
            each one missing).

    backend.contract checks every fact; tests/unit/test_registries.py runs it.
    """

    name: str
    title: str
    observation_kind: ObservationKind
    action_kind: ActionKind
    action_help: str
    example_action: str
    validate: ActionValidator
    renderer: str
    finish: Finish | None = None
    block_observation: bool = False
    live: bool = False
    recorded_only: str = ""
    hybrid: RoutingPolicy = field(default_factory=RoutingPolicy)
    metrics: MetricSet | None = None
    prompts: DomainPrompts = field(default_factory=DomainPrompts)
    extra: dict[str, Any] = field(default_factory=dict)

    def is_finish(self, action: str) -> bool:
        """Whether `action` (canonical text) is the finish action; False where none exists."""
        return self.finish is not None and self.finish.test(action)

    @property
    def tool_calls(self) -> bool:
        """Whether the domain's actions are tool calls (mcp, search, swe)."""
        return self.action_kind is ActionKind.TOOL_CALL


DOMAINS: Registry[Domain] = Registry("domain")


def get_domain(name: str) -> Domain:
    """Return a registered domain, importing the built-in modules on first use."""
    from backend.domains import load_builtin_domains

    load_builtin_domains()
    return DOMAINS.get(name)


def all_domains() -> list[Domain]:
    """All registered domains, built-ins first."""
    from backend.domains import load_builtin_domains

    load_builtin_domains()
    return [domain for _, domain in DOMAINS.items()]


def tool_call_domains() -> tuple[str, ...]:
    """The names of the registered domains whose actions are tool calls."""
    return tuple(domain.name for domain in all_domains() if domain.tool_calls)
