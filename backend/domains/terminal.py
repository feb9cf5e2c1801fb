"""Terminal domain: tmux keystroke batches in, the visible screen out (Terminal-Bench style)."""

from __future__ import annotations

from typing import Any

from backend.domains import metric_sets
from backend.domains.base import DOMAINS, ActionKind, Domain, Finish, PromptContext, builtin_prompts
from backend.domains.finish import empty_batch
from backend.domains.validation import (
    canonical_json,
    check_keys,
    clean_action,
    expect_object,
    expect_type,
    parse_json,
)
from backend.errors import BadActionError
from backend.types import ObservationKind

# A wait longer than an hour is a typo (ms for s); the cap also keeps float() from overflowing.
MAX_DURATION_S = 3600
_KEYS = ("keystrokes", "duration")
EXAMPLE = '[{"keystrokes": "ls -la\\n", "duration": 0.1}]'


def _command(item: Any, index: int) -> dict[str, Any]:
    """Check one `{"keystrokes", "duration"}` entry and give its duration as a float."""
    what = f"Command {index}"
    command = expect_object(item, what)
    check_keys(command, _KEYS, _KEYS, what)
    expect_type(command["keystrokes"], "string", f"{what}'s 'keystrokes'")
    duration = command["duration"]
    expect_type(duration, "number", f"{what}'s 'duration'")
    if not 0 <= duration <= MAX_DURATION_S:
        raise BadActionError(
            f"{what}'s 'duration' must be between 0 and {MAX_DURATION_S} seconds, not {duration}."
        )
    return {"keystrokes": command["keystrokes"], "duration": float(duration)}


def validate(action: str, ctx: PromptContext) -> str:
    """Validate a keystroke batch and return it as AgentWorldBench writes it (indented JSON).

    Raises:
        BadActionError: not a JSON array of `{"keystrokes": str, "duration": number >= 0}`.
    """
    value = parse_json(clean_action(action, EXAMPLE))
    expect_type(value, "array", 'The action (a list of {"keystrokes", "duration"} objects)')
    commands = [_command(item, index) for index, item in enumerate(value, start=1)]
    return canonical_json(commands, indent=2)


TERMINAL = DOMAINS.register(
    "terminal",
    Domain(
        name="terminal",
        title="Terminal",
        observation_kind=ObservationKind.SCREEN,
        action_kind=ActionKind.KEYSTROKES,
        action_help=(
            'A JSON array of {"keystrokes": text, "duration": seconds} objects, sent to a tmux '
            'pane in order. Keystrokes use tmux notation: end a command with "\\n", send C-c or '
            'C-d for control keys, "\\u001b" for Escape; "" with a duration just waits for '
            "output. The duration (0 to 3600 s) is how long to wait after the keys. An empty "
            "array [] confirms the task is complete. The observation is the visible screen."
        ),
        example_action=EXAMPLE,
        validate=validate,
        renderer="terminal",
        finish=Finish(
            empty_batch,
            "When the task is complete, send the empty action [] to confirm.",
            action="[]",
        ),
        live=True,
        metrics=metric_sets.SCREEN,
        prompts=builtin_prompts("terminal"),
    ),
)
