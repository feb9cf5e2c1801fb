"""JSON metrics (mcp tool results): validity, structural key/value F1 and its delta version.

A tool result is compared as a set of (path, leaf value) pairs, so key order and formatting do
not matter while every wrong field costs. MCP wraps results as JSON text inside a string
(`{"content": [{"type": "text", "text": "{...}"}]}`), so a string leaf that is itself a JSON
object or array is compared by its structure too. A prediction that does not parse scores 0 and
says so; a reference that is not JSON (plain error text from a tool) is compared as text.
"""

from __future__ import annotations

import json
from typing import Any

from backend.scoring.base import ObservationPair, change_agreement, metric, prf
from backend.scoring.text import delta_of, normalise_whitespace

Leaf = tuple[str, Any]
_MISSING = object()


def load(text: str) -> tuple[Any, str | None]:
    """Parse JSON text; returns (value, None) or (_MISSING, reason) without raising."""
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return _MISSING, f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
    except RecursionError:
        return _MISSING, "invalid JSON: nested too deeply"


def _embedded(value: str) -> Any:
    """A string holding a JSON object or array, decoded; otherwise the string itself."""
    stripped = value.strip()
    if stripped[:1] in ("{", "[") and stripped[-1:] in ("}", "]"):
        decoded, error = load(stripped)
        if error is None:
            return decoded
    return value


def flatten(value: Any) -> dict[str, Any]:
    """Map each leaf's path (`$.a.b[0]`) to its value; empty containers are leaves too.

    Iterative, so a deeply nested document cannot exhaust the stack.
    """
    leaves: dict[str, Any] = {}
    stack: list[tuple[str, Any, bool]] = [("$", value, True)]
    while stack:
        path, current, decode = stack.pop()
        if isinstance(current, str) and decode:
            current = _embedded(current)
            if not isinstance(current, str):
                stack.append((path, current, False))
                continue
        if isinstance(current, dict) and current:
            stack.extend((f"{path}.{key}", item, True) for key, item in current.items())
        elif isinstance(current, list) and current:
            stack.extend((f"{path}[{i}]", item, True) for i, item in enumerate(current))
        else:
            leaves[path] = current
    return leaves


def leaves_equal(a: Any, b: Any, tolerance: float) -> bool:
    """Type-aware equality; numbers within `tolerance` relative to the larger magnitude.

    Booleans are never numbers here (`True == 1` in Python, not in a tool result).
    """
    if type(a) is type(b) and a == b:
        return True
    a_num = isinstance(a, int | float) and not isinstance(a, bool)
    b_num = isinstance(b, int | float) and not isinstance(b, bool)
    if a_num and b_num:
        if a != a or b != b:  # NaN (JSON's non-standard literal) equals only NaN
            return a != a and b != b
        return a == b or abs(a - b) <= tolerance * max(abs(a), abs(b))
    return type(a) is type(b) and a == b


def key_value_f1(predicted: str, reference: str, tolerance: float) -> tuple[float, dict[str, Any]]:
    """Structural F1 over (path, value) pairs, with key-only F1 beside it."""
    ref_value, ref_error = load(reference)
    if ref_error is not None:
        same = normalise_whitespace(predicted) == normalise_whitespace(reference)
        return float(same), {"reference_is_json": False, "fallback": "text_exact"}
    pred_value, pred_error = load(predicted)
    if pred_error is not None:
        return 0.0, {"invalid_json": True, "error": pred_error}
    pred, ref = flatten(pred_value), flatten(ref_value)
    common = pred.keys() & ref.keys()
    wrong = [path for path in common if not leaves_equal(pred[path], ref[path], tolerance)]
    matched = len(common) - len(wrong)
    scores = prf(matched, len(pred), len(ref))
    keys = prf(len(common), len(pred), len(ref))
    return scores["f1"], {
        **scores,
        "key_f1": keys["f1"],
        "leaves_predicted": len(pred),
        "leaves_reference": len(ref),
        "matched": matched,
        "tolerance": tolerance,
        "wrong_values": sorted(wrong)[:20],
        "missing": sorted(ref.keys() - pred.keys())[:20],
    }


@metric("json_valid", 1, "Prediction is JSON exactly when the real result is.", symmetric=True)
def json_valid(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """1.0 when the prediction parses as JSON exactly when the reference does."""
    _, pred_error = load(pair.predicted)
    _, ref_error = load(pair.reference)
    details: dict[str, Any] = {"reference_is_json": ref_error is None}
    if pred_error is not None:
        details["error"] = pred_error
    return float((pred_error is None) == (ref_error is None)), details


@metric("json_kv_f1", 1, "Key/value F1 of the JSON leaves, exact values.", symmetric=True)
def json_kv_f1(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """Structural key/value F1 with exact leaf equality."""
    return key_value_f1(pair.predicted, pair.reference, tolerance=0.0)


@metric("json_kv_f1_tol10", 1, "Key/value F1, numbers within 10%.", symmetric=True)
def json_kv_f1_tol10(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """Key/value F1 where numbers within 10% count as equal (the MCP judges' tolerance)."""
    return key_value_f1(pair.predicted, pair.reference, tolerance=0.10)


def leaf_changes(before: dict[str, Any], after: dict[str, Any]) -> tuple[dict[str, Any], set[str]]:
    """The leaves `after` adds or changes relative to `before`, and the paths it drops."""
    changed = {
        path: value
        for path, value in after.items()
        if path not in before or not leaves_equal(before[path], value, 0.0)
    }
    return changed, set(before.keys() - after.keys())


def key_value_delta(
    previous: str | None, predicted: str, reference: str
) -> tuple[float, dict[str, Any]]:
    """Agreement of the leaves the prediction adds or changes with those reality adds or changes.

    `base.change_agreement` over leaves: matched changed leaves, against the changed leaves of
    each side and the dropped paths on which the two disagree, with the prediction's wrong
    leaves and wrong drops charged against its right ones (version 2; version 1 was the plain
    F1, which paid junk for coincidences). The change-F1 idea (backend.scoring.tree_change) on
    (path, value) leaves. A copy of the previous result changes nothing and scores 0 unless
    reality changed nothing too (then 1). Leaves both keep earn nothing; dropping a path both
    drop costs nothing, as in `delta.delta_similarity`. A previous result that is unknown or not
    JSON has no leaves, so every leaf of a new result counts as added.
    """
    ref_value, ref_error = load(reference)
    if ref_error is not None:
        value, details = delta_of(previous, predicted, reference)
        return value, {**details, "reference_is_json": False, "fallback": "text_delta"}
    prev_value, prev_error = load(previous or "")
    before = {} if prev_error is not None else flatten(prev_value)
    real, real_dropped = leaf_changes(before, flatten(ref_value))
    pred_value, pred_error = load(predicted)
    if pred_error is not None:
        real_changed = bool(real or real_dropped)
        return 0.0, {"invalid_json": True, "error": pred_error, "real_changed": real_changed}
    pred, pred_dropped = leaf_changes(before, flatten(pred_value))
    matched = sum(
        1 for path in pred.keys() & real.keys() if leaves_equal(pred[path], real[path], 0.0)
    )
    disagreement = len(pred_dropped ^ real_dropped)
    return change_agreement(matched, len(pred), len(real), disagreement), {
        "previous_known": previous is not None,
        "previous_is_json": prev_error is None,
        "real_changed": bool(real or real_dropped),
        "changed_predicted": len(pred),
        "changed_real": len(real),
        "matched": matched,
        "dropped_disagreement": disagreement,
        "missed": sorted(real.keys() - pred.keys())[:20],
        "spurious": sorted(pred.keys() - real.keys())[:20],
    }


@metric("json_delta_f1", 2, "Agreement of the leaves changed from the previous result.")
def json_delta_f1(pair: ObservationPair) -> tuple[float, dict[str, Any]]:
    """Key/value agreement over what changed since the previous result (unknown: empty)."""
    return key_value_delta(pair.previous, pair.predicted, pair.reference)
