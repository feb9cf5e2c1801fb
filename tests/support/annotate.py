"""Driving the Annotate page's endpoints with gradio_client, outputs read by name."""

from __future__ import annotations

from typing import Any

from gradio_client import Client

from tests.support.app_server import named

ANNOTATE_OUTPUTS = (
    "browser",
    "open_note",
    "queue",
    "header",
    "action",
    "context",
    "reasoning",
    "before",
    "predicted",
    "real_origin",
    "real",
    "editor",
    "editor_note",
    "preview",
    "diff",
    "format",
    "factuality",
    "consistency",
    "realism",
    "quality",
    "verdict",
    "tags",
    "notes",
    "message",
    "progress",
    "judge",
)
"""Outputs of /annotate_next, /annotate_open, /annotate_skip and /annotate_submit (the draft
state, the accordion title and the button visibility are not part of the API)."""
RATED = dict.fromkeys(("format", "factuality", "consistency", "realism", "quality"), "3")


def unchanged(value: Any) -> bool:
    """Whether an endpoint left this output as it was (a Gradio update with no value)."""
    return isinstance(value, dict) and value.get("__type__") == "update" and "value" not in value


def value_of(output: Any) -> Any:
    """An output's value, also where it came as an update (the editor sets its language too)."""
    if isinstance(output, dict) and output.get("__type__") == "update" and "value" in output:
        return output["value"]
    return output


def annotate(client: Client, endpoint: str, *args: Any, **kwargs: Any) -> dict[str, Any]:
    """Call an annotate endpoint (`next`, `open`, `skip`, `submit`); outputs by name."""
    values = named(
        client.predict(*args, **kwargs, api_name=f"/annotate_{endpoint}"), ANNOTATE_OUTPUTS
    )
    return {**values, "editor": value_of(values["editor"])}


def submit(client: Client, corrected: str, verdict: str | None, **fields: Any) -> dict[str, Any]:
    """Submit the open item: every rating 3 unless given, no tags or notes unless given."""
    values = {**RATED, "tags": [], "notes": "", "domain": "", **fields}
    return annotate(client, "submit", corrected=corrected, verdict=verdict, **values)
