"""Web domain: BrowserGym high-level actions in, the page's accessibility tree (or HTML) out.

BrowserGym actions are Python calls, so Python's own parser reads them; each call is then checked
against a table of BrowserGym's function signatures (name, arity, literal argument kinds).
"""

from __future__ import annotations

import ast
import reprlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from backend.domains import metric_sets
from backend.domains.base import DOMAINS, ActionKind, Domain, Finish, PromptContext, builtin_prompts
from backend.domains.finish import message_or_infeasible
from backend.domains.validation import clean_action, did_you_mean, parse_python, quoted
from backend.errors import BadActionError
from backend.types import ObservationKind

EXAMPLE = "click('12')"
_BUTTONS = ("left", "middle", "right")
_MODIFIERS = ("Alt", "Control", "ControlOrMeta", "Meta", "Shift")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_texts(value: Any) -> bool:
    items = value if isinstance(value, list) else [value]
    return all(isinstance(item, str) for item in items)


# kind -> (description for messages, test). BrowserGym refuses numeric bids, hence "string".
KINDS: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "bid": ("a bid string such as '12'", lambda v: isinstance(v, str)),
    "text": ("a string", lambda v: isinstance(v, str)),
    "number": ("a number", _is_number),
    "int": ("an integer", lambda v: isinstance(v, int) and not isinstance(v, bool)),
    "bool": ("True or False", lambda v: isinstance(v, bool)),
    "texts": ("a string or a list of strings", _is_texts),
    "button": (f"one of {quoted(_BUTTONS)}", lambda v: v in _BUTTONS),
    "modifiers": (
        f"a list drawn from {quoted(_MODIFIERS)}",
        lambda v: isinstance(v, list) and all(m in _MODIFIERS for m in v),
    ),
}


@dataclass(frozen=True)
class Param:
    """One parameter of a BrowserGym action function."""

    name: str
    kind: str
    required: bool = True


_BID = Param("bid", "bid")
_X, _Y = Param("x", "number"), Param("y", "number")
_BUTTON = Param("button", "button", required=False)
_CLICK = (_BID, _BUTTON, Param("modifiers", "modifiers", required=False))
_MOUSE = (_X, _Y, _BUTTON)

SIGNATURES: dict[str, tuple[Param, ...]] = {
    "noop": (Param("wait_ms", "number", required=False),),
    "send_msg_to_user": (Param("text", "text"),),
    "report_infeasible": (Param("reason", "text"),),
    "scroll": (Param("delta_x", "number"), Param("delta_y", "number")),
    "fill": (_BID, Param("value", "text"), Param("enable_autocomplete_menu", "bool", False)),
    "select_option": (_BID, Param("options", "texts")),
    "click": _CLICK,
    "dblclick": _CLICK,
    "hover": (_BID,),
    "press": (_BID, Param("key_comb", "text")),
    "focus": (_BID,),
    "clear": (_BID,),
    "drag_and_drop": (Param("from_bid", "bid"), Param("to_bid", "bid")),
    "upload_file": (_BID, Param("file", "texts")),
    "mouse_move": (_X, _Y),
    "mouse_up": _MOUSE,
    "mouse_down": _MOUSE,
    "mouse_click": _MOUSE,
    "mouse_dblclick": _MOUSE,
    "mouse_drag_and_drop": tuple(
        Param(name, "number") for name in ("from_x", "from_y", "to_x", "to_y")
    ),
    "keyboard_down": (Param("key", "text"),),
    "keyboard_up": (Param("key", "text"),),
    "keyboard_press": (Param("key", "text"),),
    "keyboard_type": (Param("text", "text"),),
    "keyboard_insert_text": (Param("text", "text"),),
    "goto": (Param("url", "text"),),
    "go_back": (),
    "go_forward": (),
    "new_tab": (),
    "tab_close": (),
    "tab_focus": (Param("index", "int"),),
}


def _literal(node: ast.expr, what: str) -> Any:
    """Evaluate a literal argument; names, calls and arithmetic are refused (no code runs)."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise BadActionError(f"{what} must be a literal such as '12', 5 or ['a'].") from None


def _bind(call: ast.Call, name: str, params: tuple[Param, ...], at: str) -> dict[str, Any]:
    """Match positional and keyword arguments to parameters, as Python would."""
    if len(call.args) > len(params):
        raise BadActionError(
            f"{name}() takes at most {len(params)} argument(s), {len(call.args)} given ({at})."
        )
    bound = {
        param.name: _literal(arg, f"Argument {param.name!r} of {name}() ({at})")
        for param, arg in zip(params, call.args, strict=False)
    }
    names = [param.name for param in params]
    for keyword in call.keywords:
        if keyword.arg is None:
            raise BadActionError(f"{name}() does not take **kwargs ({at}).")
        if keyword.arg not in names:
            hint = did_you_mean(keyword.arg, names)
            raise BadActionError(f"{name}() has no parameter {keyword.arg!r} ({at}).{hint}")
        if keyword.arg in bound:
            raise BadActionError(f"{name}() got {keyword.arg!r} twice ({at}).")
        bound[keyword.arg] = _literal(keyword.value, f"Argument {keyword.arg!r} of {name}() ({at})")
    return bound


def _check_statement(statement: ast.stmt) -> None:
    at = f"line {statement.lineno}, column {statement.col_offset + 1}"
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        raise BadActionError(
            f"Expected an action call such as {EXAMPLE} at {at}; only calls, one per line or "
            "separated by ';', are allowed."
        )
    name = call.func.id
    params = SIGNATURES.get(name)
    if params is None:
        hint = did_you_mean(name, SIGNATURES)
        raise BadActionError(f"Unknown web action {name}() at {at}.{hint}")
    bound = _bind(call, name, params, at)
    for param in params:
        if param.name not in bound:
            if param.required:
                raise BadActionError(f"{name}() is missing argument {param.name!r} ({at}).")
            continue
        description, test = KINDS[param.kind]
        if not test(bound[param.name]):
            raise BadActionError(
                f"Argument {param.name!r} of {name}() must be {description}, "
                f"not {reprlib.repr(bound[param.name])} ({at})."
            )


def validate(action: str, ctx: PromptContext) -> str:
    """Validate one or more BrowserGym calls; the canonical text is the action as given.

    Raises:
        BadActionError: syntax error, non-call statement, unknown function, wrong arity or kind.
    """
    text = clean_action(action, EXAMPLE)
    module = parse_python(text)
    if not module.body:
        raise BadActionError(f"The action holds no call (only comments?). Try {EXAMPLE}.")
    for statement in module.body:
        _check_statement(statement)
    return text


WEB = DOMAINS.register(
    "web",
    Domain(
        name="web",
        title="Web browser",
        observation_kind=ObservationKind.AXTREE,
        action_kind=ActionKind.UI,
        action_help=(
            "BrowserGym actions written as Python calls with literal arguments, one per line: "
            "click('12'), fill('45', \"text\"), select_option('3', [\"a\", \"b\"]), hover('7'), "
            "press('9', 'Enter'), scroll(0, 200), keyboard_press('Enter'), keyboard_type('abc'), "
            "goto('https://...'), go_back(), go_forward(), new_tab(), tab_focus(1), tab_close(), "
            "noop(500), send_msg_to_user('...'), report_infeasible('...'), and mouse_click(x, y) "
            "with the other mouse_* actions. Element ids (bids) are the strings in [brackets] of "
            "the accessibility tree. The observation is the page in the same representation."
        ),
        example_action=EXAMPLE,
        validate=validate,
        renderer="axtree",
        finish=Finish(
            message_or_infeasible,
            "When done, call send_msg_to_user('...') with your answer, "
            "or report_infeasible('...').",
        ),
        block_observation=True,
        live=True,
        metrics=metric_sets.TREE,
        prompts=builtin_prompts("web"),
    ),
)
