"""Agent action reading, finish actions and the task judge's verdict parsing."""

from __future__ import annotations

import pytest

from backend.envs.sim.agents import AgentView, agent_messages, read_action
from backend.envs.sim.episode import EpisodeSpec
from backend.envs.sim.finish import is_finish
from backend.envs.sim.rewards import parse_verdict
from backend.scoring.judge_parse import JudgeParseError
from backend.types import Turn


def test_read_action_takes_the_last_action_block_after_thinking() -> None:
    text = "<think><action>ls</action></think>Plan.\n<action>\n[]\n</action>"
    assert read_action(text) == "[]"
    assert read_action('```json\n{"a": 1}\n```') == '{"a": 1}'
    assert read_action("  DONE ") == "DONE"


@pytest.mark.parametrize(
    ("domain", "action", "finished"),
    [
        ("terminal", "[]", True),
        ("terminal", '[{"keystrokes": "ls\\n", "duration": 1}]', False),
        ("swe", '{"name": "submit", "arguments": {}}', True),
        ("web", "send_msg_to_user('done')", True),
        ("web", "click('12')", False),
        ("os", "DONE", True),
        ("android", '{"action_type": "status", "goal_status": "complete"}', True),
        ("mcp", '{"name": "submit", "arguments": {}}', False),
    ],
)
def test_finish_actions(domain: str, action: str, finished: bool) -> None:
    assert is_finish(domain, action) is finished


def test_verdict_parsing() -> None:
    verdict = parse_verdict(
        '<think>x</think><verdict>{"reasoning": "r", "done": true, "success": false}'
    )
    assert verdict["done"] is True and verdict["success"] is False
    with pytest.raises(JudgeParseError):
        parse_verdict('<verdict>{"done": "yes"}</verdict>')


def test_agent_prompt_carries_task_format_and_history() -> None:
    spec = EpisodeSpec(domain="terminal", task="count files")
    view = AgentView(spec, [Turn(action="[]", observation="$ ls\na")], "$")
    system, user = agent_messages(view)
    assert "count files" in system.content and "keystrokes" in system.content
    assert "Turn 1" in user.content and user.content.endswith("Your next action:")
