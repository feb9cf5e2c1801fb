"""Android domain: AndroidWorld JSON actions in, the next UI hierarchy (uiautomator XML) out.

Each action type has a rule (required fields, whether it needs an on-screen target); aliases that
agents commonly write (tap, type, back, home) are rewritten to AndroidWorld's names.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from backend.domains import metric_sets
from backend.domains.base import DOMAINS, ActionKind, Domain, Finish, PromptContext, builtin_prompts
from backend.domains.finish import status_or_answer
from backend.domains.validation import (
    canonical_json,
    check_keys,
    clean_action,
    did_you_mean,
    expect_object,
    parse_json,
    quoted,
)
from backend.errors import BadActionError
from backend.types import ObservationKind

EXAMPLE = '{"action_type": "click", "x": 540, "y": 1200}'
_DIRECTIONS = ("up", "down", "left", "right")
_GOAL_STATUSES = ("complete", "infeasible")
_TARGET = ("x", "y", "index", "element")


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


# field -> (description for messages, test)
FIELDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "x": ("a pixel coordinate (integer >= 0)", _is_count),
    "y": ("a pixel coordinate (integer >= 0)", _is_count),
    "index": ("an element index (integer >= 0)", _is_count),
    "element": ("a non-empty element description", _is_name),
    "text": ("a string", lambda v: isinstance(v, str)),
    "direction": (f"one of {quoted(_DIRECTIONS)}", lambda v: v in _DIRECTIONS),
    "app_name": ("a non-empty app name", _is_name),
    "goal_status": (f"one of {quoted(_GOAL_STATUSES)}", lambda v: v in _GOAL_STATUSES),
    "clear_text": ("true or false", lambda v: isinstance(v, bool)),
    "description": ("a non-empty description of the action", _is_name),
}


@dataclass(frozen=True)
class Rule:
    """What one action type needs: required fields, optional ones, and an on-screen target.

    target: "required" (x+y, index or element), "optional", or "none".
    """

    required: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    target: str = "none"


_ON_TARGET = Rule(target="required")
RULES: dict[str, Rule] = {
    "click": _ON_TARGET,
    "double_tap": _ON_TARGET,
    "long_press": _ON_TARGET,
    "input_text": Rule(required=("text",), optional=("clear_text",), target="optional"),
    "scroll": Rule(required=("direction",), target="optional"),
    "swipe": Rule(required=("direction",), target="optional"),
    "navigate_back": Rule(),
    "navigate_home": Rule(),
    "keyboard_enter": Rule(),
    "wait": Rule(),
    "open_app": Rule(required=("app_name",)),
    "status": Rule(required=("goal_status",)),
    "answer": Rule(required=("text",)),
    # Recorded dumps whose action nobody logged: the action is described, never invented.
    "inferred": Rule(required=("description",)),
}
ALIASES = {"tap": "click", "type": "input_text", "back": "navigate_back", "home": "navigate_home"}


def _action_type(value: Any) -> str:
    if not isinstance(value, str):
        raise BadActionError(
            f"'action_type' must be a string such as 'click', not {reprlib.repr(value)}."
        )
    name = ALIASES.get(value, value)
    if name not in RULES:
        hint = did_you_mean(value, [*RULES, *ALIASES])
        raise BadActionError(
            f"Unknown action_type {reprlib.repr(value)}.{hint} Valid: {quoted(RULES)}."
        )
    return name


def _check_target(action: dict[str, Any], name: str, rule: Rule) -> None:
    if ("x" in action) != ("y" in action):
        raise BadActionError(f"{name} needs both 'x' and 'y', not only one of them.")
    if rule.target == "required" and not any(key in action for key in ("x", "index", "element")):
        raise BadActionError(
            f"{name} needs a target: 'x' and 'y' coordinates, an 'index' or an 'element'."
        )


def validate(action: str, ctx: PromptContext) -> str:
    """Validate an AndroidWorld action and return it with its canonical action_type first.

    Raises:
        BadActionError: not a JSON object, unknown action_type, missing, foreign or bad fields.
    """
    value = expect_object(parse_json(clean_action(action, EXAMPLE)), "The action")
    check_keys(value, ("action_type",), ("action_type", *FIELDS), "The action")
    name = _action_type(value["action_type"])
    rule = RULES[name]
    fields = {key: item for key, item in value.items() if key != "action_type"}
    targets = _TARGET if rule.target != "none" else ()
    check_keys(fields, rule.required, (*rule.required, *rule.optional, *targets), name)
    _check_target(fields, name, rule)
    for key, item in fields.items():
        description, test = FIELDS[key]
        if not test(item):
            raise BadActionError(
                f"{name}'s {key!r} must be {description}, not {reprlib.repr(item)}."
            )
    return canonical_json({"action_type": name, **fields})


ANDROID = DOMAINS.register(
    "android",
    Domain(
        name="android",
        title="Android",
        observation_kind=ObservationKind.ANDROID_XML,
        action_kind=ActionKind.UI,
        action_help=(
            'A JSON object with an "action_type" (AndroidWorld names). click, double_tap and '
            'long_press need a target: "x" and "y" pixels, an element "index" or an "element" '
            'description. input_text needs "text" (target optional); scroll and swipe need a '
            '"direction" (up, down, left, right); open_app needs "app_name"; status needs '
            '"goal_status" (complete or infeasible); answer needs "text"; navigate_back, '
            "navigate_home, keyboard_enter and wait take nothing. tap, type, back and home are "
            'accepted as aliases. "inferred" with a "description" marks an action reconstructed '
            "from before/after dumps of a recording. The observation is the next UI hierarchy."
        ),
        example_action=EXAMPLE,
        validate=validate,
        renderer="android",
        finish=Finish(
            status_or_answer,
            'When done, send {"action_type": "status", "goal_status": "complete"}.',
        ),
        block_observation=True,
        recorded_only="No live Android: no emulator or system image can be obtained offline.",
        metrics=metric_sets.TREE,
        prompts=builtin_prompts("android"),
    ),
)
