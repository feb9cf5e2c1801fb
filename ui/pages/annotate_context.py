"""What a prediction is judged against: the chat the model saw, its reasoning, the truth's source.

"Consistency" means consistent with what the model was shown, so the earlier turns are shown
exactly as the model saw them (the stored chat, message by message), not rebuilt. Pure functions
from plain data to escaped HTML, like the renderers.
"""

from __future__ import annotations

from backend.types import ChatMessage
from ui.renderers.base import esc
from ui.views import empty

CONTEXT_TITLE = "What the model saw"
NO_CHAT = (
    "This prediction predates stored prompts: the exact chat the model saw was not kept. "
    "The state before the action (above) is the best context there is."
)
ORIGINS = {
    "recorded": ("recorded", "from the recorded trajectory"),
    "live": ("live", "observed in a live environment"),
    "annotator": ("annotator", "written by an annotator; nobody recorded the real state"),
}
UNKNOWN_REAL = (
    "Unknown: nobody recorded what really happened. If you accept, the prediction becomes the "
    "real state; if you reject, your correction does; cannot tell leaves it unknown."
)
WITHHELD_REAL = (
    "Another annotator's correction of this step is not trusted yet, so it is not shown: judge "
    "the prediction on your own. If you give the same truth, it becomes trusted."
)
PRE = (
    "white-space:pre-wrap;word-break:break-word;max-height:260px;overflow:auto;margin:4px 0 0;"
    "padding:6px 8px;border-radius:6px;background:var(--background-fill-secondary);"
    "font-family:ui-monospace,Menlo,monospace;font-size:12px"
)
BOX = "border:1px solid var(--border-color-primary);border-radius:8px;padding:8px 10px;margin:6px 0"
LABEL = "font-size:11px;text-transform:uppercase;letter-spacing:.05em;opacity:.7"


def _pre(text: str) -> str:
    return f'<pre style="{PRE}">{esc(text)}</pre>'


def _part(label: str, text: str) -> str:
    title = f'<span style="{LABEL}">{esc(label)}</span>'
    return f'<div style="margin-top:6px">{title}{_pre(text)}</div>'


def conversation_html(messages: list[ChatMessage] | None, history_mode: str) -> str:
    """The stored chat as a conversation: the system prompt folded, then turn by turn.

    Each earlier turn shows the agent's action (the user message) and the observation the model
    was shown for it (the assistant message, which the history mode decided); the last user
    message is the action this prediction answers.
    """
    if messages is None:
        return empty(NO_CHAT)
    parts: list[str] = []
    rest = list(messages)
    if rest and rest[0].role == "system":
        system = rest.pop(0).content
        parts.append(
            f'<details style="{BOX}"><summary><b>System prompt</b> '
            f"({len(system):,} characters)</summary>{_pre(system)}</details>"
        )
    current = rest.pop() if rest and rest[-1].role == "user" else None
    turns: list[list[str]] = []
    for message in rest:
        if message.role == "user" or not turns:
            turns.append([_part("action", message.content)])
        else:
            turns[-1].append(_part(f"observation shown ({history_mode})", message.content))
    parts += [
        f'<div style="{BOX}"><b>Turn {number}</b>{"".join(shown)}</div>'
        for number, shown in enumerate(turns, start=1)
    ]
    if not turns:
        parts.append(empty("No earlier turns: this is the first step the model saw."))
    if current is not None:
        parts.append(
            f'<div style="{BOX}"><b>This step</b>{_part("action predicted", current.content)}</div>'
        )
    return "".join(parts)


def conversation_title(messages: list[ChatMessage] | None) -> str:
    """The accordion title: how much history the model saw."""
    if messages is None:
        return f"{CONTEXT_TITLE} (not stored for this prediction)"
    turns = sum(m.role == "assistant" for m in messages)
    return f"{CONTEXT_TITLE}: system prompt and {turns} earlier turn{'s' * (turns != 1)}"


def reasoning_html(reasoning: str) -> str:
    """The model's reasoning, or a note that it gave none."""
    return _pre(reasoning) if reasoning.strip() else empty("The model gave no reasoning.")


def origin_html(origin: str | None, known: bool, withheld: bool = False) -> str:
    """One line saying where the real state shown comes from (or why none is shown)."""
    if not known:
        words = WITHHELD_REAL if withheld else UNKNOWN_REAL
        return f'<div class="awp-status">{empty(words)}</div>'
    tone, words = ORIGINS.get(origin or "", (origin or "unknown", "of unknown origin"))
    return (
        f'<div class="awp-status"><span class="awp-chip"><b>source</b> {esc(tone)}</span>'
        f'<span class="awp-note">{esc(words)}</span></div>'
    )
