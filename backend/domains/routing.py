"""Hybrid backing's routing policy: per domain, who answers each action.

A policy is data on the `Domain` (`Domain.hybrid`): an ordered tuple of routes, each naming who
answers the actions it matches. The first route that matches wins; an action no route matches is
answered by the world model. There is no per-domain branching in the step path: `backend.stepping`
asks the domain's policy and runs the answerer it names.

The routes follow SWE-World's split: where an action's outcome is deterministic and safe to
compute, an exact executor computes it in the task's live environment (the swe editor's calls;
the MCP tools their server declares read-only); where it is not (running tests, a shell), the
model predicts it from the true state the exact steps produced. Exact matches in the record of
real data (`backend.grounding.record`) and selective simulation (a confidence below a threshold
sends the step to the live environment) are asked by the step path for every domain.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from backend.errors import BadActionError
from backend.types import AnsweredBy, PromptContext

ActionTest = Callable[[str, PromptContext], bool]
"""Whether a canonical action (with its session's tools and task) matches a route."""


@dataclass(frozen=True)
class Route:
    """One rule of a policy: the actions it matches, and who answers them.

    Attributes:
        answered_by: `executor` (run exactly in the live environment) or `live`.
        matches: the test of a canonical action.
        description: what it matches, in one line (the manual and `awp domains` show it).
    """

    answered_by: AnsweredBy
    matches: ActionTest
    description: str


@dataclass(frozen=True)
class RoutingPolicy:
    """A domain's hybrid routing: routes tried in order; the world model answers the rest."""

    routes: tuple[Route, ...] = ()

    def route(self, action: str, context: PromptContext) -> AnsweredBy:
        """Who answers `action` (canonical text) in hybrid backing."""
        for rule in self.routes:
            if rule.matches(action, context):
                return rule.answered_by
        return "model"


def tool_commands(tool: str, commands: Sequence[str]) -> ActionTest:
    """Matches calls of `tool` whose `command` argument is one of `commands`."""
    allowed = frozenset(commands)

    def matches(action: str, context: PromptContext) -> bool:
        call = _call(action)
        return call is not None and call[0] == tool and call[1].get("command") in allowed

    return matches


def read_only_tool(action: str, context: PromptContext) -> bool:
    """Matches calls of a tool the session's tool list declares read-only.

    The list is what the live server answered to `tools/list`: MCP's `annotations.readOnlyHint`
    is the server's own statement that a call changes nothing, so running it for real is as
    safe as predicting it, and exact.
    """
    call = _call(action)
    if call is None:
        return False
    for tool in context.tools or []:
        if tool.get("name") == call[0]:
            annotations = tool.get("annotations") or {}
            return bool(isinstance(annotations, dict) and annotations.get("readOnlyHint"))
    return False


def _call(action: str) -> tuple[str, dict[str, Any]] | None:
    from backend.domains.tools import parse_tool_call  # tools imports the domain base

    try:
        call = parse_tool_call(action)
    except BadActionError:
        return None
    return call.name, call.arguments
