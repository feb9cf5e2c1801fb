"""SWE domain: tool calls on a repository in a container, raw tool output back."""

from __future__ import annotations

from backend.domains import metric_sets
from backend.domains.base import DOMAINS, ActionKind, Domain, Finish, PromptContext, builtin_prompts
from backend.domains.finish import tool_named
from backend.domains.routing import Route, RoutingPolicy
from backend.domains.tool_routes import tool_commands
from backend.domains.tools import validate_tool_call
from backend.types import ObservationKind

EDITOR_COMMANDS = ("view", "create", "str_replace", "insert", "undo_edit")
"""The editor's calls: deterministic file reads and edits, run exactly in hybrid backing."""

HYBRID = RoutingPolicy(
    (
        Route(
            "executor",
            tool_commands("str_replace_editor", EDITOR_COMMANDS),
            "str_replace_editor view/create/str_replace/insert/undo_edit run in the task's "
            "sandbox; bash and submit are predicted from the true file state",
        ),
    )
)

SUBMIT = '{"name": "submit", "arguments": {}}'
EXAMPLE = '{"name": "bash", "arguments": {"command": "python -m pytest tests/test_api.py -x -q"}}'


def validate(action: str, ctx: PromptContext) -> str:
    """Validate a tool call (plain or OpenAI-style) and return it as `{"name", "arguments"}`.

    Raises:
        BadActionError: malformed call, or one that does not fit the session's tool definitions.
    """
    return validate_tool_call(action, ctx, EXAMPLE)


SWE = DOMAINS.register(
    "swe",
    Domain(
        name="swe",
        title="Software engineering",
        observation_kind=ObservationKind.TEXT,
        action_kind=ActionKind.TOOL_CALL,
        action_help=(
            'One tool call as JSON: {"name": tool, "arguments": {...}}, for example a shell '
            "command, a file view or an edit. The OpenAI shape "
            '{"function": {"name": ..., "arguments": "<JSON string>"}} is accepted and rewritten '
            "to the first. When the session has tool definitions, the tool must exist and its "
            "required arguments must be present. The observation is the raw tool output: exit "
            "codes, file listings, tracebacks."
        ),
        example_action=EXAMPLE,
        validate=validate,
        renderer="text",
        finish=Finish(
            tool_named("submit"),
            f"When done, call {SUBMIT}.",
            action=SUBMIT,
        ),
        live=True,
        hybrid=HYBRID,
        metrics=metric_sets.TEXT,
        prompts=builtin_prompts("swe"),
    ),
)
