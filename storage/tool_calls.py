"""Earlier real answers to tool calls: the record the MCP mirror answers identical calls from.

A mirrored server's real answers are stored as the live steps of `mcp` sessions, so the record
needs no table of its own: an identical call (the same canonical `{"name", "arguments"}` text)
answered for real before is found among those steps, with the tool definitions its session was
started with, so that a caller can tell one server's `read_file` from another's.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from backend.provenance import Provenance
from storage.convert import read_provenance
from storage.db import SessionFactory, session_scope
from storage.models import ObservationOrigin, SessionRow, StepRow

RECENT = 20
"""How many earlier answers of one call are read (the latest first)."""


class ToolCallRecord:
    """Reads the real answers stored for a tool call.

    Args:
        factory: the session factory of a `storage.db.Database`.
    """

    def __init__(self, factory: SessionFactory) -> None:
        self._factory = factory

    def answers(
        self, kind: str, domain: str, action: str
    ) -> list[tuple[str, list[Any], Provenance | None]]:
        """The latest real answers of `action` in sessions of `kind`, with their tool lists.

        Returns:
            (observation, the session's tool definitions, the answer's source), latest first.
        """
        query = (
            select(StepRow.real_observation, SessionRow.prompt_context, StepRow.provenance)
            .join(SessionRow, StepRow.session_id == SessionRow.id)
            .where(
                SessionRow.kind == kind,
                SessionRow.domain == domain,
                StepRow.action == action,
                StepRow.origin == ObservationOrigin.LIVE.value,
                StepRow.real_observation.is_not(None),
            )
            .order_by(StepRow.id.desc())
            .limit(RECENT)
        )
        with session_scope(self._factory) as session:
            rows = session.execute(query).all()
        return [
            (str(text), list((context or {}).get("tools") or []), read_provenance(source))
            for text, context, source in rows
        ]
