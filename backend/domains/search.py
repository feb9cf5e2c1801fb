"""Search domain: web search, page extraction and a key-value memory, as a deep-research agent uses.

The memory tool is ours to define (the benchmark only says "a key-value memory tool"):
`{"operation": "write", "key": k, "value": v}`, `{"operation": "read" | "delete", "key": k}` and
`{"operation": "list"}`. Tools named in the session's definitions but not built in are checked
against their schemas instead, so other research harnesses' tools still validate.
"""

from __future__ import annotations

import reprlib
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from backend.domains import metric_sets
from backend.domains.base import DOMAINS, ActionKind, Domain, PromptContext, builtin_prompts
from backend.domains.tools import check_call, parse_tool_call, tool_schemas
from backend.domains.validation import (
    check_keys,
    clean_action,
    did_you_mean,
    expect_type,
    quoted,
)
from backend.errors import BadActionError
from backend.types import ObservationKind

EXAMPLE = '{"name": "web_search", "arguments": {"queries": ["tallest building in Europe 2024"]}}'
MEMORY_OPERATIONS: dict[str, tuple[str, ...]] = {
    "write": ("key", "value"),
    "read": ("key",),
    "delete": ("key",),
    "list": (),
}


def _web_search(arguments: dict[str, Any]) -> None:
    check_keys(arguments, ("queries",), ("queries",), "web_search's arguments")
    queries = arguments["queries"]
    expect_type(queries, "array", "web_search's 'queries'")
    if not queries:
        raise BadActionError("web_search's 'queries' is empty; give at least one query.")
    for index, query in enumerate(queries, start=1):
        expect_type(query, "string", f"Query {index} of web_search")
        if not query.strip():
            raise BadActionError(f"Query {index} of web_search is empty.")


def _is_http_url(url: str) -> bool:
    try:
        parts = urlsplit(url.strip())
    except ValueError:  # a malformed host, such as an unclosed IPv6 bracket
        return False
    return parts.scheme in ("http", "https") and bool(parts.netloc)


def _web_extractor(arguments: dict[str, Any]) -> None:
    check_keys(arguments, ("url",), ("url", "goal"), "web_extractor's arguments")
    url = arguments["url"]
    expect_type(url, "string", "web_extractor's 'url'")
    if not _is_http_url(url):
        raise BadActionError(
            f"web_extractor's 'url' must be an http(s) URL, not {reprlib.repr(url)}."
        )
    if "goal" in arguments:
        expect_type(arguments["goal"], "string", "web_extractor's 'goal'")


def _memory(arguments: dict[str, Any]) -> None:
    operation = arguments.get("operation")
    if not isinstance(operation, str) or operation not in MEMORY_OPERATIONS:
        hint = did_you_mean(str(operation), MEMORY_OPERATIONS)
        raise BadActionError(
            f"memory's 'operation' must be one of {quoted(MEMORY_OPERATIONS)}, "
            f"not {reprlib.repr(operation)}.{hint}"
        )
    needed = MEMORY_OPERATIONS[operation]
    check_keys(arguments, needed, ("operation", *needed), f"memory {operation}'s arguments")
    if "key" in arguments:
        expect_type(arguments["key"], "string", "memory's 'key'")


BUILTIN_TOOLS: dict[str, Callable[[dict[str, Any]], None]] = {
    "web_search": _web_search,
    "web_extractor": _web_extractor,
    "memory": _memory,
}


def validate(action: str, ctx: PromptContext) -> str:
    """Validate a search tool call and return it as `{"name", "arguments"}`.

    Raises:
        BadActionError: unknown tool (with a suggestion) or arguments that do not fit it.
    """
    call = parse_tool_call(clean_action(action, EXAMPLE))
    schemas = tool_schemas(ctx.tools)
    rule = BUILTIN_TOOLS.get(call.name)
    if rule is not None:
        rule(call.arguments)
    elif call.name in schemas:
        check_call(call, schemas)
    else:
        names = [*BUILTIN_TOOLS, *schemas]
        hint = did_you_mean(call.name, names)
        raise BadActionError(f"Unknown search tool {call.name!r}.{hint} Valid: {quoted(names)}.")
    return call.canonical()


SEARCH = DOMAINS.register(
    "search",
    Domain(
        name="search",
        title="Web search",
        observation_kind=ObservationKind.SEARCH,
        action_kind=ActionKind.TOOL_CALL,
        action_help=(
            'One tool call as JSON {"name": ..., "arguments": {...}}. web_search takes '
            '{"queries": [text, ...]} and returns up to 10 results per query as "[n] url / '
            'Title / Snippet / Date". web_extractor takes {"url": "https://...", "goal": optional '
            "text} and returns the page as Markdown. memory is a key-value store: "
            '{"operation": "write", "key": k, "value": any JSON}, {"operation": "read"} or '
            '{"operation": "delete"} with a "key", and {"operation": "list"}. Other tools are '
            "accepted when the session's tool definitions name them."
        ),
        example_action=EXAMPLE,
        validate=validate,
        renderer="search",
        metrics=metric_sets.SEARCH,
        prompts=builtin_prompts("search"),
    ),
)
