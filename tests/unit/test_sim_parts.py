"""Agent action reading, finish actions and the task judge's verdict parsing."""

from __future__ import annotations

import pytest

from backend.domains.base import get_domain
from backend.envs.sim.agents import AgentView, ReplayAgent, agent_messages, read_action
from backend.envs.sim.episode import EpisodeSpec
from backend.envs.sim.rewards import parse_verdict
from backend.envs.sim.service import make_agent
from backend.errors import BadInputError
from backend.scoring.judge_parse import JudgeParseError
from backend.types import SamplingParams, Turn


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
    assert get_domain(domain).is_finish(action) is finished


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


def test_the_rollout_service_refuses_a_baseline_agent_and_knows_replay() -> None:
    def no_engine(name: str, model: str | None):
        raise AssertionError("no engine is built for replay or a baseline")

    assert isinstance(make_agent("replay", no_engine, SamplingParams()), ReplayAgent)
    with pytest.raises(BadInputError, match="baseline cannot act"):
        make_agent("oracle:whatever", no_engine, SamplingParams())
