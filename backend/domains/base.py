"""The Domain type and its registry: one module per domain registers itself here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from backend.registry import Registry
from backend.types import ObservationKind, PromptContext

MAX_ACTION_CHARS = 100_000


ActionValidator = Callable[[str, PromptContext], str]


@dataclass(frozen=True)
class Domain:
    """Everything the core needs to know about one environment family.

    Attributes:
        name: registry key (`terminal`, `swe`, `mcp`, `search`, `web`, `os`, `android`).
        title: human name shown in the UI.
        observation_kind: representation of observations; picks metrics and renderers.
        action_help: one paragraph on the action format, shown next to the action box.
        example_action: a valid action, used as the UI placeholder and in tests.
        validate: parses an action and returns it in canonical text, or raises BadActionError.
        renderer: name of the UI renderer for observations.
    """

    name: str
    title: str
    observation_kind: ObservationKind
    action_help: str
    example_action: str
    validate: ActionValidator
    renderer: str
    extra: dict[str, Any] = field(default_factory=dict)


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
