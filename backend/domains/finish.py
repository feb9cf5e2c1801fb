"""Finish tests: the action that says "I am done", as the recorded harnesses end their episodes.

Terminal's empty keystroke batch (Terminal-Bench confirms completion with `[]`), SWE-agent's
`submit`, BrowserGym's `send_msg_to_user` / `report_infeasible`, OSWorld's `DONE` / `FAIL`,
AndroidWorld's `status` / `answer`. MCP and search harnesses end with a plain answer outside the
tool calls, so those domains declare none: their episodes end by the judge's verdict or the step
limit. Each domain module names its test in its `Domain(finish=...)`.
"""

from __future__ import annotations

import ast
import json

from backend.domains.base import FinishTest


def _json(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def tool_named(*names: str) -> FinishTest:
    """A finish test for tool-call domains: the call of one of `names` ends the episode."""

    def test(action: str) -> bool:
        value = _json(action)
        return isinstance(value, dict) and value.get("name") in names

    return test


def empty_batch(action: str) -> bool:
    """Terminal: the empty keystroke batch `[]` confirms the task is complete."""
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


def message_or_infeasible(action: str) -> bool:
    """Web: BrowserGym ends with `send_msg_to_user(...)` or `report_infeasible(...)`."""
    return any(name in ("send_msg_to_user", "report_infeasible") for name in _calls(action))


def done_or_fail(action: str) -> bool:
    """OS: OSWorld's agent answers `DONE` or `FAIL` alone."""
    return action.strip() in ("DONE", "FAIL")


def status_or_answer(action: str) -> bool:
    """Android: AndroidWorld ends with a `status` or an `answer` action."""
    value = _json(action)
    return isinstance(value, dict) and value.get("action_type") in ("status", "answer")
