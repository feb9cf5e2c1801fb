"""Training examples: transitions of recorded trajectories, or rows of an export.

Recorded trajectories become transitions through the one history rule and the one message
builder (`backend.simulate.build_messages`, teacher-forced), so a model is trained on exactly the
prompts the playground and the benchmark send it. Export rows (a file, or corrections built by
the export formats) are taken as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from backend.errors import AWPError
from backend.export.prompt import answer
from backend.export.rows import Message
from backend.history import state_before
from backend.simulate import build_messages, canonical
from backend.types import HistoryMode, PromptContext, SimRequest, Trajectory

SystemPrompt = Callable[[str, PromptContext], str]


@dataclass(frozen=True)
class Transition:
    """One recorded turn laid out as the model sees it.

    Attributes:
        group: the trajectory it belongs to (the unit of the train/held-out split).
        prompt: system prompt, teacher-forced history and the action.
        truth: the real observation after the action.
        previous: the state before the action, when known.
    """

    group: str
    domain: str
    prompt: list[Message]
    truth: str
    previous: str | None

    @property
    def completion(self) -> list[Message]:
        """The answer the model should give, in its domain's output layout."""
        return answer(self.domain, self.truth)


@dataclass(frozen=True)
class Example:
    """One training row: its split group, its domain and the trainer's columns."""

    group: str
    domain: str
    columns: dict[str, Any]


def transitions(
    trajectories: Iterable[Trajectory], system_prompt: SystemPrompt
) -> Iterator[Transition]:
    """Every turn with a known observation whose action its domain accepts, in order."""
    for trajectory in trajectories:
        context = trajectory.prompt_context()
        system = trajectory.system_prompt or system_prompt(trajectory.domain, context)
        for index, turn in enumerate(trajectory.turns):
            if turn.observation is None:
                continue
            request = SimRequest(
                domain=trajectory.domain,
                system_prompt=system,
                context=context,
                initial_state=trajectory.initial_state,
                history=trajectory.turns[:index],
                action=turn.action,
                history_mode=HistoryMode.TEACHER_FORCED,
            )
            try:
                request = canonical(request)
            except AWPError:
                continue  # the benchmark cannot ask this turn either
            messages = build_messages(request, system)
            yield Transition(
                group=trajectory.id,
                domain=trajectory.domain,
                prompt=[Message(role=m.role, content=m.content) for m in messages],
                truth=turn.observation,
                previous=state_before(trajectory.turns[:index], trajectory.initial_state),
            )


def row_examples(rows: Iterable[Mapping[str, Any]]) -> Iterator[Example]:
    """Examples from export rows; rows of one stored session share a split group."""
    for index, row in enumerate(rows):
        session = row.get("session_id")
        group = f"session-{session}" if session is not None else f"row-{index}"
        yield Example(group=group, domain=str(row.get("domain", "")), columns=dict(row))
