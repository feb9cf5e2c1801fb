"""The hybrid routing policies: data on each domain, asked by the one step path."""

from __future__ import annotations

import json

from backend.domains.base import all_domains, get_domain
from backend.simulate import exact_prediction
from backend.stepping import routed
from backend.types import PromptContext, SimRequest


def action(name: str, **arguments: object) -> str:
    return json.dumps({"name": name, "arguments": arguments}, sort_keys=True)


def test_swe_runs_the_editor_exactly_and_predicts_bash_and_submit() -> None:
    policy = get_domain("swe").hybrid
    for command in ("view", "create", "str_replace", "insert", "undo_edit"):
        editor = action("str_replace_editor", command=command, path="/testbed/a.py")
        assert policy.route(editor, PromptContext()) == "executor"
    assert policy.route(action("bash", command="ls"), PromptContext()) == "model"
    assert policy.route(action("submit"), PromptContext()) == "model"
    unknown = action("str_replace_editor", command="delete", path="/testbed/a.py")
    assert policy.route(unknown, PromptContext()) == "model"


def test_mcp_runs_only_the_tools_its_server_declares_read_only() -> None:
    tools = [
        {"name": "read_file", "annotations": {"readOnlyHint": True}},
        {"name": "write_file", "annotations": {"readOnlyHint": False}},
        {"name": "get_time"},
    ]
    context = PromptContext(tools=tools)
    policy = get_domain("mcp").hybrid
    assert policy.route(action("read_file", path="/a"), context) == "executor"
    assert policy.route(action("write_file", path="/a"), context) == "model"
    assert policy.route(action("get_time"), context) == "model"
    assert policy.route(action("read_file", path="/a"), PromptContext()) == "model"


def test_domains_without_routes_are_answered_by_the_model() -> None:
    routed_domains = {d.name for d in all_domains() if d.hybrid.routes}
    assert routed_domains == {"swe", "mcp"}
    request = SimRequest(domain="terminal", action='[{"keystrokes": "ls\\n", "duration": 0.1}]')
    assert routed(request) == "model"


def test_an_exact_answer_is_reality_with_full_confidence() -> None:
    request = SimRequest(domain="swe", action=action("bash", command="ls"), reference="a.py")
    exact = exact_prediction(request.action, "a.py", "executor", "live:swe")
    assert exact.observation == "a.py" and exact.engine == "executor"
    assert exact.answered_by == "executor" and exact.confidence == 1.0
