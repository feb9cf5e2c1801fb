"""OpenTelemetry GenAI spans (an agent trace exported as JSONL) as trajectories.

The GenAI semantic conventions record each tool an agent runs as an `execute_tool` span
(`gen_ai.operation.name`), naming the tool (`gen_ai.tool.name`), its call id, and, when content
capture is on, the call's arguments and result (`gen_ai.tool.call.arguments`,
`gen_ai.tool.call.result`). Each trace becomes one trajectory, its tool spans in start order the
turns. A line may be a span as the Python SDK writes it (`span.to_json()`: `context.trace_id`,
an attribute object) or an OTLP/JSON export (`resourceSpans`, attributes as key/value lists),
as a collector's file exporter writes it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from backend.data.formats import IMPORTED_LICENCE, domain_of_calls
from backend.data.recorded.common import canonical_turns
from backend.errors import BadInputError
from backend.types import Trajectory, Turn

OPERATION = "gen_ai.operation.name"
TOOL = "gen_ai.tool.name"
ARGUMENTS = "gen_ai.tool.call.arguments"
RESULT = "gen_ai.tool.call.result"
CALL_ID = "gen_ai.tool.call.id"
TASK_KEYS = ("gen_ai.agent.description", "gen_ai.prompt")


def _value(value: Any) -> Any:
    """An OTLP AnyValue (`{"stringValue": ...}`) as a plain value."""
    if isinstance(value, dict) and len(value) == 1:
        ((kind, inner),) = value.items()
        if kind == "arrayValue":
            return [_value(v) for v in inner.get("values", [])]
        if kind in ("intValue",):
            return int(inner)
        return inner
    return value


def _attributes(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, list):
        return {item["key"]: _value(item.get("value")) for item in raw if "key" in item}
    return {}


def _spans(record: Any, where: str) -> Iterator[dict[str, Any]]:
    """The spans of one line, each as {trace, start, name, attributes}.

    Raises:
        BadInputError: the line is neither an SDK span nor an OTLP export.
    """
    if isinstance(record, dict) and "resourceSpans" in record:
        for resource in record["resourceSpans"] or []:
            for scope in resource.get("scopeSpans", []) or []:
                for span in scope.get("spans", []) or []:
                    yield {
                        "trace": span.get("traceId"),
                        "start": int(span.get("startTimeUnixNano") or 0),
                        "name": span.get("name", ""),
                        "attributes": _attributes(span.get("attributes")),
                    }
        return
    if isinstance(record, dict) and isinstance(record.get("context"), dict):
        yield {
            "trace": record["context"].get("trace_id"),
            "start": str(record.get("start_time") or ""),
            "name": record.get("name", ""),
            "attributes": _attributes(record.get("attributes")),
        }
        return
    if isinstance(record, dict) and "traceId" in record:
        yield {
            "trace": record.get("traceId"),
            "start": int(record.get("startTimeUnixNano") or 0),
            "name": record.get("name", ""),
            "attributes": _attributes(record.get("attributes")),
        }
        return
    raise BadInputError(
        f"{where}: not an OpenTelemetry span (no context.trace_id, traceId or resourceSpans)"
    )


def _turn(span: dict[str, Any], where: str) -> tuple[str, Turn]:
    """A tool span as (tool name, turn).

    Raises:
        BadInputError: no tool name, or arguments that are not a JSON object.
    """
    attributes = span["attributes"]
    name = attributes.get(TOOL)
    if not isinstance(name, str) or not name:
        raise BadInputError(f"{where}: an execute_tool span without {TOOL}")
    arguments: Any = attributes.get(ARGUMENTS, "{}")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except json.JSONDecodeError:
            raise BadInputError(f"{where}: {ARGUMENTS} of {name!r} is not JSON") from None
    if not isinstance(arguments, dict):
        raise BadInputError(f"{where}: {ARGUMENTS} of {name!r} is not a JSON object")
    result = attributes.get(RESULT)
    observation = (
        None if result is None else result if isinstance(result, str) else json.dumps(result)
    )
    action = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    return name, Turn(action=action, observation=observation)


def read(path: Path, domain: str | None = None) -> list[Trajectory]:
    """One trajectory per trace of a JSONL file of spans.

    Raises:
        BadInputError: unreadable, a line that is not a span (its number named), a bad tool
            span, or no execute_tool span at all.
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").split("\n")
    except OSError as exc:
        raise BadInputError(f"Cannot read {path}: {exc}") from None
    traces: dict[str, list[tuple[Any, str, Turn]]] = {}
    tasks: dict[str, str] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadInputError(f"{where}: not JSON ({exc.msg})") from None
        for span in _spans(record, where):
            trace = str(span["trace"])
            attributes = span["attributes"]
            task = next(
                (attributes[k] for k in TASK_KEYS if isinstance(attributes.get(k), str)), None
            )
            if task and trace not in tasks:
                tasks[trace] = task
            if attributes.get(OPERATION) == "execute_tool":
                name, turn = _turn(span, where)
                traces.setdefault(trace, []).append((span["start"], name, turn))
    if not traces:
        raise BadInputError(f"{path}: no execute_tool span ({OPERATION} = execute_tool)")
    trajectories = []
    for trace, spans in traces.items():
        spans.sort(key=lambda item: item[0])
        chosen = domain or domain_of_calls(name for _, name, _ in spans)
        turns = [turn for _, _, turn in spans]
        trajectories.append(
            Trajectory(
                id=f"otel:{trace}",
                domain=chosen,
                task=tasks.get(trace, ""),
                turns=canonical_turns(chosen, turns, f"{path}: trace {trace}"),
                source=str(path),
                licence=IMPORTED_LICENCE,
                metadata={"format": "otel", "trace_id": trace},
            )
        )
    return trajectories
