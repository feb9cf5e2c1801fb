"""Turn text in the AgentWorldBench layout, shared by every domain."""

from __future__ import annotations

from backend.parsing import MARKER


def format_user_turn(index: int, action: str, current_state: str | None = None) -> str:
    """The user message for turn `index` (1-based).

    Args:
        index: 1-based turn number.
        action: the canonical action text (a domain's validator output).
        current_state: the observation before the action, given only on a first terminal turn.
    """
    parts = [f"### Turn {index}"]
    if current_state is not None:
        parts.append(f"**Current State:**\n{current_state}\n")
    parts.append(f"**Action:**\n```json\n{action}\n```")
    return "\n".join(parts)


def format_assistant_turn(observation: str) -> str:
    """The assistant message holding an observation, behind the official marker."""
    return f"{MARKER}\n{observation}"
