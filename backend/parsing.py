"""The official output rules: strip thinking, take the last observation block, drop the marker.

The rules follow the public AgentWorldBench evaluation so that our scores compare with published
ones. One extension: an orphan `</think>` (a chat template that opened the thinking block in the
prompt) makes everything before it reasoning, as vLLM's qwen3 reasoning parser does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from backend.types import Diagnostics

THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"
BLOCK_OPEN = "<predicted_observation>"
BLOCK_CLOSE = "</predicted_observation>"
MARKER = "**Environment Observation:**"

_SPECULATIVE = re.compile(
    r"\b(would|could|might|likely|probably|perhaps|possibly|presumably|hypothetically)\b",
    re.IGNORECASE,
)
_THINK_TAG = re.compile(r"</?think>")


@dataclass(frozen=True)
class ParsedOutput:
    """The result of applying the output rules to one raw completion."""

    observation: str
    reasoning: str
    diagnostics: Diagnostics


def _orphan_close(text: str) -> bool:
    """Whether the text opens with thinking whose `<think>` was in the prompt.

    Only a `</think>` before any `<think>` and before the first observation block counts: a
    literal `</think>` inside an observation (an HTML page, a log) is content.
    """
    close = text.find(THINK_CLOSE)
    if close < 0:
        return False
    opened = text.find(THINK_OPEN)
    block = text.find(BLOCK_OPEN)
    return (opened < 0 or close < opened) and (block < 0 or close < block)


def strip_thinking(text: str) -> tuple[str, str]:
    """Remove every `<think>` block, nested or unclosed.

    An unclosed `<think>` is cut up to the first `<predicted_observation>` after it (or to the
    end when there is none), so a model that ran out of budget mid-thought yields no fake answer.

    Returns:
        (text without thinking, the removed thinking joined by blank lines).
    """
    reasoning: list[str] = []
    if _orphan_close(text):
        head, text = text.split(THINK_CLOSE, 1)
        reasoning.append(head.strip())
    out: list[str] = []
    pos = 0
    while True:
        start = text.find(THINK_OPEN, pos)
        if start < 0:
            out.append(text[pos:])
            break
        out.append(text[pos:start])
        depth = 0
        end = -1
        for match in _THINK_TAG.finditer(text, start):
            depth += 1 if match.group() == THINK_OPEN else -1
            if depth == 0:
                end = match.end()
                break
        if end < 0:
            block = text.find(BLOCK_OPEN, start)
            cut = block if block >= 0 else len(text)
            reasoning.append(_THINK_TAG.sub("", text[start:cut]).strip())
            pos = cut
            continue
        reasoning.append(_THINK_TAG.sub("", text[start:end]).strip())
        pos = end
    return "".join(out), "\n\n".join(r for r in reasoning if r)


def strip_marker(text: str) -> str:
    """Remove the `**Environment Observation:**` marker and the whitespace around the text."""
    return text.replace(MARKER, "").strip()


def _last_block(text: str) -> tuple[str, int, int] | None:
    """Content and span of the last observation block; a missing closing tag is tolerated."""
    start = text.rfind(BLOCK_OPEN)
    if start < 0:
        return None
    content_start = start + len(BLOCK_OPEN)
    close = text.find(BLOCK_CLOSE, content_start)
    if close < 0:
        return text[content_start:], start, len(text)
    return text[content_start:close], start, close + len(BLOCK_CLOSE)


def whole_completion(content: str, reasoning: str) -> str:
    """The completion as the model wrote it, from the two halves a reasoning parser split it into.

    A server started with `--reasoning-parser` (vLLM, SGLang) sends what came before `</think>`
    as `reasoning` and the rest as `content`; a completion that never closes `</think>` arrives
    whole in `reasoning`, with no content. The output rules must see the whole completion
    whatever the server split, or every answer of a model that does not think (or runs out of
    budget thinking) would be read as empty: so the thinking goes back in a closed `<think>`
    block before the content, and with no content the reasoning is the text itself, which is
    what the same server sends without the parser.

    Args:
        content: the `content` field (empty when the server sent none).
        reasoning: the `reasoning` (or `reasoning_content`) field.
    """
    if not reasoning.strip():
        return content
    if not content.strip():
        return reasoning
    return f"{THINK_OPEN}{reasoning}{THINK_CLOSE}{content}"


def parse_output(raw: str, reasoning: str = "") -> ParsedOutput:
    """Apply the official output rules to a raw completion.

    Args:
        raw: the model's text (the `content` field when a reasoning parser split it off).
        reasoning: reasoning that arrived separately (`reasoning_content`): the rules read it
            together with `raw` (`whole_completion`).

    Returns:
        The extracted observation, all reasoning, and the judges' diagnostics.
    """
    cleaned, thought = strip_thinking(whole_completion(raw, reasoning))
    block = _last_block(cleaned)
    if block is None:
        observation = strip_marker(cleaned)
        outside = 0
    else:
        content, start, end = block
        observation = strip_marker(content)
        outside = len((cleaned[:start] + cleaned[end:]).strip())
    diagnostics = Diagnostics(
        open_tags=cleaned.count(BLOCK_OPEN),
        close_tags=cleaned.count(BLOCK_CLOSE),
        speculative_words=len(_SPECULATIVE.findall(observation)),
        chars_outside_block=outside,
        extracted_length=len(observation),
        empty_extraction=not observation.strip(),
    )
    return ParsedOutput(observation=observation, reasoning=thought, diagnostics=diagnostics)
