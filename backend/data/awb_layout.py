"""The AgentWorldBench layout: the row schema, and the inverse of `backend.domains.turns`.

Importers go from the official rows and turn texts back to actions and observations; the
inverse is tested against `format_user_turn` / `format_assistant_turn` so both stay in step.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, model_validator

from backend.errors import BadInputError
from backend.parsing import MARKER, strip_marker

_USER_TURN = re.compile(
    r"\A### Turn (?P<index>\d+)\n"
    r"(?:\*\*Current State:\*\*\n(?P<state>.*?)\n\n)?"
    r"\*\*Action:\*\*\n```json\n(?P<action>.*)\n```[ \t\r\n]*\Z",
    re.DOTALL,
)


class UserTurn(BaseModel):
    """A parsed user turn: its number, the action and, on a first turn, the state shown."""

    index: int
    action: str
    current_state: str | None = None


def parse_user_turn(text: str) -> UserTurn:
    """Invert `format_user_turn`: recover the turn number, action and optional current state.

    Raises:
        BadInputError: the text does not have the `### Turn N` / `**Action:**` layout.
    """
    match = _USER_TURN.match(text)
    if match is None:
        raise BadInputError(f"not a user turn (### Turn N, **Action:**, ```json): {text[:80]!r}")
    return UserTurn(index=int(match["index"]), action=match["action"], current_state=match["state"])


def observation_text(response: str) -> str:
    """Invert `format_assistant_turn` exactly; text in another layout gets the official strip."""
    prefix = f"{MARKER}\n"
    return response[len(prefix) :] if response.startswith(prefix) else strip_marker(response)


class AgentWorldBenchRow(BaseModel):
    """The official row layout, validated; unknown extra columns are allowed and kept."""

    model_config = ConfigDict(extra="allow")

    task: str
    id: int | str
    prompt: list[str]
    response: list[str]
    current_prompt: str | None = None
    system_str: str
    turn_idx: int = Field(ge=1)
    total_turns: int = Field(ge=1)

    @model_validator(mode="after")
    def _turn_in_range(self) -> AgentWorldBenchRow:
        if min(len(self.prompt), len(self.response)) < self.turn_idx:
            raise ValueError(f"turn_idx {self.turn_idx} is past the prompt/response lists")
        return self

    @property
    def domain(self) -> str:
        """The domain: `task` with any namespace (`org/terminal`) removed."""
        return self.task.rsplit("/", 1)[-1]
