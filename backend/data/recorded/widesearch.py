"""WideSearch run log: one kimi-k2.5 trajectory whose tool results came from real search APIs.

The file is concatenated pretty-printed JSON objects (a run-config object, then trajectories),
not one object per line, so it is read with `json.JSONDecoder.raw_decode` in a loop. Each
assistant message holds `tool_calls` and their `tool_call_results`; every call becomes a turn.

Actions are mapped to the search domain's tools: `web_search_chinese` and
`web_search_internationl` (spelled so in the source) become `web_search` with a one-query
`queries` list; `get_content` becomes `web_extractor` with the same `url`. Observation: the
recorded result object serialised as JSON with `ensure_ascii=False` and two-space indentation,
the file's own layout (minus the nesting depth); a result stored as a string is kept as is.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from backend.data.recorded.common import Provenance, parse_arguments, read_text, tool_call_action
from backend.errors import BadInputError
from backend.types import Trajectory, Turn

FILE = "search/widesearch_exp/20260210_175701.jsonl"
PROVENANCE = Provenance(
    "runshengdu/widesearch_exp", "358e453789edf202b6c425d83271a598981d3f39", "MIT"
)
NOTES = (
    "WideSearch (kimi-k2.5) run with real search APIs. Recorded web_search_chinese / "
    "web_search_internationl calls are mapped to web_search {queries: [query]}, get_content to "
    "web_extractor {url}. Observations are the recorded tool results as JSON text. The search "
    "results are raw API payloads; the extractor texts were summarised by the source's pipeline."
)


def _search(arguments: dict[str, Any]) -> str:
    return tool_call_action("web_search", {"queries": [arguments["query"]]})


def _extract(arguments: dict[str, Any]) -> str:
    return tool_call_action("web_extractor", {"url": arguments["url"]})


TOOL_MAP: dict[str, Callable[[dict[str, Any]], str]] = {
    "web_search_chinese": _search,
    "web_search_internationl": _search,
    "get_content": _extract,
}
"""Recorded tool name -> the search-domain action built from its arguments."""


def iter_objects(text: str, where: str) -> Iterator[Any]:
    """Yield each JSON value of a file of concatenated JSON values."""
    decoder = json.JSONDecoder()
    position = 0
    while True:
        while position < len(text) and text[position].isspace():
            position += 1
        if position >= len(text):
            return
        try:
            value, position = decoder.raw_decode(text, position)
        except json.JSONDecodeError as exc:
            raise BadInputError(f"{where}:{exc.lineno}: not valid JSON: {exc.msg}") from exc
        yield value


def result_text(content: Any) -> str:
    """The observation text of one recorded tool result."""
    return (
        content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, indent=2)
    )


def _turns(messages: list[dict[str, Any]]) -> list[Turn]:
    turns = []
    for message in messages:
        content = message["content"]
        if not isinstance(content, dict):
            continue
        results = {r["tool_call_id"]: r["content"] for r in content.get("tool_call_results") or []}
        for call in content.get("tool_calls") or []:
            where = f"{FILE} call {call['tool_call_id']}"
            to_action = TOOL_MAP.get(call["tool_name"])
            if to_action is None or call["tool_call_id"] not in results:
                raise BadInputError(f"{where}: unknown tool or no recorded result")
            action = to_action(parse_arguments(call["arguments"], where))
            turns.append(
                Turn(action=action, observation=result_text(results[call["tool_call_id"]]))
            )
    return turns


def convert(root: Path) -> list[Trajectory]:
    """Every trajectory object of the WideSearch log (the run-config object is skipped)."""
    trajectories = []
    for record in iter_objects(read_text(root / FILE), FILE):
        if "messages" not in record:
            continue
        task = next((m["content"] for m in record["messages"] if m["role"] == "user"), "")
        trajectories.append(
            PROVENANCE.trajectory(
                id=f"widesearch/{record['instance_id']}/trial{record['trial_idx']}",
                domain="search",
                path="data/kimi-k2.5/response/20260210_175701.jsonl",
                files=[FILE],
                turns=_turns(record["messages"]),
                task=task,
                notes=NOTES,
                metadata={"instance_id": record["instance_id"], "agent_model": "kimi-k2.5"},
            )
        )
    return trajectories
