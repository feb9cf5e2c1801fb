"""The agent's own finish action per domain: the action that says "I am done".

An episode terminates when the agent takes it, as the recorded harnesses end theirs: terminal's
empty keystroke batch (Terminal-Bench confirms completion with `[]`), SWE-agent's `submit`,
BrowserGym's `send_msg_to_user` / `report_infeasible`, OSWorld's `DONE` / `FAIL`, AndroidWorld's
`status` / `answer`. MCP and search harnesses end with a plain answer outside the tool calls, so
those domains have none: their episodes end by the judge's verdict or the step limit.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable

from backend.registry import Registry

FinishTest = Callable[[str], bool]
"""Says whether a canonical action of the domain is its finish action."""

FINISH: Registry[FinishTest] = Registry("finish action")


def _json(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def _tool_named(*names: str) -> FinishTest:
    def test(action: str) -> bool:
        value = _json(action)
        return isinstance(value, dict) and value.get("name") in names

    return test


def _terminal(action: str) -> bool:
    return _json(action) == []


def _calls(action: str) -> list[str]:
    try:
        module = ast.parse(action)
    except SyntaxError:
        return []
    return [
        node.func.id
        for node in ast.walk(module)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    ]


def _web(action: str) -> bool:
    return any(name in ("send_msg_to_user", "report_infeasible") for name in _calls(action))


def _os(action: str) -> bool:
    return action.strip() in ("DONE", "FAIL")


def _android(action: str) -> bool:
    value = _json(action)
    return isinstance(value, dict) and value.get("action_type") in ("status", "answer")


FINISH.register("terminal", _terminal)
FINISH.register("swe", _tool_named("submit"))
FINISH.register("web", _web)
FINISH.register("os", _os)
FINISH.register("android", _android)


def is_finish(domain: str, action: str) -> bool:
    """Whether `action` (canonical text) ends the episode in `domain`; False where none exists."""
    return domain in FINISH and FINISH.get(domain)(action)
