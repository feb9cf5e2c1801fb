"""Agent trajectories in the field's formats, imported as real trajectories.

Each format reads a file into `Trajectory`s (`TRAJECTORY_FORMATS` in
`backend.data.formats.registry`, a registry the contract test walks): Harbor's ATIF, Inspect AI
eval logs, and OpenTelemetry GenAI spans. A record that cannot be read is refused with its place
in the file and what is wrong, and nothing of a file with a bad record is stored. The domain of
an imported trajectory follows from its tools (`domain_for_tools`) unless the caller names one.

This package module holds only what the readers share, so the readers import it and the
registry imports the readers, without a cycle.
"""

from __future__ import annotations

from collections.abc import Iterable

SWE_TOOLS = frozenset(
    {
        "bash",
        "bash_session",
        "execute_bash",
        "python",
        "shell",
        "str_replace_editor",
        "text_editor",
        "submit",
        "run_command",
    }
)
"""Tools of coding agents (SWE-agent, OpenHands, Inspect's bash/python/text_editor)."""
SEARCH_TOOLS = frozenset({"web_search", "web_extractor", "search", "google_search", "memory"})
"""Tools of deep-research agents (the search domain's own)."""
IMPORTED_LICENCE = "as the source file's"
"""Licence recorded for imported trajectories: the importer cannot know it."""


def domain_for_tools(names: Iterable[str]) -> str:
    """The domain a trajectory's tool calls belong to: swe, search, else mcp (any tool)."""
    used = {name for name in names if name}
    if used and used <= SWE_TOOLS:
        return "swe"
    if used and used <= SEARCH_TOOLS:
        return "search"
    return "mcp"


def domain_of_calls(names: Iterable[str]) -> str:
    """The domain of a trajectory's calls: a domain's own name, else its tools' domain.

    ATIF written here names a terminal or web action after its domain, so a trajectory whose
    calls all carry one domain's name is that domain's.
    """
    from backend.domains.base import all_domains

    distinct = set(names)
    text_domains = {domain.name for domain in all_domains() if not domain.tool_calls}
    if len(distinct) == 1:
        (only,) = distinct
        if only in text_domains:
            return only
    return domain_for_tools(distinct)
