"""The exact chat each prediction was made from, with every message text stored once.

A prediction's `prompt` column lists `[role, sha256]` pairs; the texts live in `prompt_text`,
keyed by their hash. Steps of one session repeat their history (and every step its system
prompt), so storing each text once keeps the exact prompt of every step at the cost of its new
messages only.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.types import ChatMessage
from storage.models import PromptTextRow
from storage.upsert import dialect_insert

LOOKUP_CHUNK = 500


def text_hash(text: str) -> str:
    """The SHA-256 of a message text (hex), its key in `prompt_text`."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def store_prompt(session: Session, messages: Sequence[ChatMessage]) -> list[list[str]] | None:
    """Store the texts of `messages` not stored yet; returns the value of `prediction.prompt`.

    None for an empty chat (a prediction that was not made from messages, e.g. imported).
    """
    if not messages:
        return None
    pairs = [[message.role, text_hash(message.content)] for message in messages]
    texts = {sha: message.content for (_, sha), message in zip(pairs, messages, strict=True)}
    known = set(
        session.scalars(select(PromptTextRow.sha256).where(PromptTextRow.sha256.in_(list(texts))))
    )
    missing = [{"sha256": sha, "text": text} for sha, text in texts.items() if sha not in known]
    if missing:
        # DO NOTHING: a concurrent writer may store the same text between the read and this.
        statement = dialect_insert(session, PromptTextRow).on_conflict_do_nothing(
            index_elements=["sha256"]
        )
        session.execute(statement, missing)
    return pairs


def store_prompts(
    session: Session, chats: Sequence[Sequence[ChatMessage]]
) -> list[list[list[str]] | None]:
    """`store_prompt` of many chats with one lookup and one insert for all their texts."""
    pairs = [[[m.role, text_hash(m.content)] for m in messages] or None for messages in chats]
    texts = {
        sha: message.content
        for messages, chat_pairs in zip(chats, pairs, strict=True)
        for (_, sha), message in zip(chat_pairs or [], messages, strict=True)
    }
    if not texts:
        return pairs
    known: set[str] = set()
    hashes = list(texts)
    for start in range(0, len(hashes), LOOKUP_CHUNK):
        chunk = hashes[start : start + LOOKUP_CHUNK]
        known.update(
            session.scalars(select(PromptTextRow.sha256).where(PromptTextRow.sha256.in_(chunk)))
        )
    missing = [{"sha256": sha, "text": text} for sha, text in texts.items() if sha not in known]
    if missing:
        statement = dialect_insert(session, PromptTextRow).on_conflict_do_nothing(
            index_elements=["sha256"]
        )
        session.execute(statement, missing)
    return pairs


def load_prompts(
    session: Session, prompts: Iterable[tuple[int, list[list[str]] | None]]
) -> dict[int, list[ChatMessage]]:
    """The chats of many predictions at once: prediction id -> messages (absent when unknown).

    Args:
        session: an open SQLAlchemy session.
        prompts: (prediction id, its `prompt` column value) pairs.
    """
    wanted = [(pid, pairs) for pid, pairs in prompts if pairs]
    hashes = sorted({sha for _, pairs in wanted for _, sha in pairs})
    texts: dict[str, str] = {}
    for start in range(0, len(hashes), LOOKUP_CHUNK):
        chunk = hashes[start : start + LOOKUP_CHUNK]
        rows = session.execute(
            select(PromptTextRow.sha256, PromptTextRow.text).where(PromptTextRow.sha256.in_(chunk))
        )
        texts.update({sha: text for sha, text in rows})
    return {
        pid: [ChatMessage(role=role, content=texts[sha]) for role, sha in pairs]  # type: ignore[arg-type]
        for pid, pairs in wanted
        if all(sha in texts for _, sha in pairs)
    }
