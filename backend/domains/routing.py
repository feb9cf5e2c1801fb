"""Hybrid backing's routing policy: per domain, who answers each action.

A policy is data on the `Domain` (`Domain.hybrid`): an ordered tuple of routes, each naming who
answers the actions it matches. The first route that matches wins; an action no route matches is
answered by the world model (the tests on tool calls are in `backend.domains.tool_routes`, which
can import the tool-call parser: this module is imported by the domain base, which the parser
imports). There is no per-domain branching in the step path: `backend.stepping`
asks the domain's policy and runs the answerer it names.

The routes follow SWE-World's split: where an action's outcome is deterministic and safe to
compute, an exact executor computes it in the task's live environment (the swe editor's calls;
the MCP tools their server declares read-only); where it is not (running tests, a shell), the
model predicts it from the true state the exact steps produced. Exact matches in the record of
real data (`backend.grounding.record`) and selective simulation (a confidence below a threshold
sends the step to the live environment) are asked by the step path for every domain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

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
