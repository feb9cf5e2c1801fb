"""Chat messages for export rows: the prompt the model saw and the answer it should give."""

from __future__ import annotations

from backend.domains.base import get_domain
from backend.domains.turns import format_assistant_turn
from backend.export.records import ExportRecord
from backend.export.rows import Message
from backend.parsing import BLOCK_CLOSE, BLOCK_OPEN
from backend.simulate import build_messages
from backend.types import SimRequest


def prompt_messages(record: ExportRecord, system_prompt: str) -> list[Message]:
    """The messages the model was given for this step: the stored chat, exactly.

    A prediction stored before chats were kept gets its chat rebuilt with the one history rule
    and its own history mode, which is what the model saw unless the prompt library changed.
    Either way a prediction is paired with the prompt that produced it (what preference
    training needs).
    """
    if record.messages is not None:
        return [Message(role=m.role, content=m.content) for m in record.messages]
    request = SimRequest(
        domain=record.domain,
        system_prompt=system_prompt,
        context=record.context,
        initial_state=record.initial_state,
        history=record.history,
        action=record.action,
        history_mode=record.history_mode,
    )
    return [Message(role=m.role, content=m.content) for m in build_messages(request, system_prompt)]


def answer(domain: str, observation: str) -> list[Message]:
    """An assistant answer holding `observation` the way the domain's prompt asks for it.

    The official output rules (`backend.parsing.parse_output`) recover `observation` from it.
    """
    if get_domain(domain).block_observation:
        text = f"{BLOCK_OPEN}\n{observation}\n{BLOCK_CLOSE}"
    else:
        text = format_assistant_turn(observation)
    return [Message(role="assistant", content=text)]


def transition_text(prompt: list[Message], completion: list[Message]) -> str:
    """One transition as plain text: every message's content, in order, a blank line apart.

    The continual pre-training corpus (the seed recipe's first stage) is made of these: no chat
    template, so the model learns the environment's language before it learns the dialogue.
    """
    return "\n\n".join(message.content for message in [*prompt, *completion])
