"""Benchmark items and the datasets they come from.

An item is one evaluated turn: the history before it, the action, the real observation and the
state before the action (for change F1 and the judge's stale-copy cap). Named datasets are
registered; any other name is read as a path to AgentWorldBench rows.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from backend.data.agentworldbench import load_agentworldbench
from backend.data.bundled import load_bundled
from backend.domains.turns import format_assistant_turn, format_user_turn
from backend.errors import BadInputError
from backend.grounding.fingerprint import step_path
from backend.grounding.transitions import own_recording
from backend.history import state_before
from backend.provenance import Provenance, Recorded
from backend.registry import Registry
from backend.sources import turn_provenance
from backend.types import (
    HistoryMode,
    PromptContext,
    SamplingParams,
    SimRequest,
    Trajectory,
    Turn,
    VerbatimChat,
)


class BenchItem(BaseModel):
    """One evaluated turn.

    Attributes:
        item_id: stable id within the dataset (`<trajectory>#<turn>`), the resume key.
        domain: the domain name.
        trajectory_key: the id its recording is stored under (`awp import` stores a row's
            `id`), so the leakage guard finds it by id; its items share a stored session.
        turn_index: the turn's 0-based position in its trajectory.
        system_prompt: the recorded system prompt; None means the domain's built-in one.
        context: the recording's task and tool definitions (fill the built-in prompt).
        initial_state: the state before the first action, where recorded.
        history: the turns before this one with their REAL observations (teacher forcing).
        action: the agent's action of this turn.
        reference: the real observation after the action.
        verbatim: an official row's texts, sent as they are when teacher-forced.
        row: the official row the item came from (what the official judge reads).
        own_path: the content fingerprints of its recording up to this turn, where its history
            no longer starts at the recording's start (cut to a token budget); empty: read
            from its history.
        source: where `reference` came from (`backend.provenance`); left out of the item's
            dump, so a dataset's digest is its content's alone.
    """

    item_id: str
    domain: str
    trajectory_key: str
    turn_index: int
    system_prompt: str | None = None
    context: PromptContext = Field(default_factory=PromptContext)
    initial_state: str | None = None
    history: list[Turn] = Field(default_factory=list)
    action: str
    reference: str
    verbatim: VerbatimChat | None = None
    row: dict[str, Any] | None = None
    own_path: tuple[str, ...] = ()
    source: Provenance | None = Field(default=None, exclude=True)

    def official_row(self) -> dict[str, Any]:
        """The item as an AgentWorldBench row: its own, or one laid out from its turns."""
        if self.row is not None:
            return self.row
        turns = [*self.history, Turn(action=self.action, observation=self.reference)]
        prompts = [
            format_user_turn(i, turn.action, self.initial_state if i == 1 else None)
            for i, turn in enumerate(turns, start=1)
        ]
        return {
            "task": self.domain,
            "id": self.trajectory_key,
            "prompt": prompts,
            "response": [format_assistant_turn(turn.observation or "") for turn in turns],
            "current_prompt": prompts[-1],
            "system_str": self.system_prompt or "",
            "turn_idx": len(turns),
            "total_turns": len(turns),
        }

    @property
    def previous(self) -> str | None:
        """The state before the action (None when unknown), by the one history rule."""
        return state_before(self.history, self.initial_state)

    def request(self, params: SamplingParams, history_mode: HistoryMode) -> SimRequest:
        """The simulation request; the reference rides along for the oracle baseline only.

        Grounding and the record never show an item its own recording, by id
        (`grounding_exclude`) or by content (`own_path`): not the answer, not the turns after it.
        """
        return SimRequest(
            domain=self.domain,
            system_prompt=self.system_prompt,
            context=self.context,
            initial_state=self.initial_state,
            history=self.history,
            action=self.action,
            history_mode=history_mode,
            params=params,
            reference=self.reference,
            reference_provenance=self.source,
            grounding_exclude=own_recording(self.trajectory_key),
            own_path=self.own_path
            or step_path(self.domain, self.initial_state, self.history, self.action),
            verbatim=self.verbatim,
        )


def items_from_trajectories(trajectories: list[Trajectory]) -> list[BenchItem]:
    """Every turn with a known observation becomes an item with teacher-forced history."""
    items = []
    for trajectory in trajectories:
        for index, turn in enumerate(trajectory.turns):
            if turn.observation is not None:
                items.append(
                    BenchItem(
                        item_id=f"{trajectory.id}#{index + 1}",
                        domain=trajectory.domain,
                        trajectory_key=trajectory.id,
                        turn_index=index,
                        system_prompt=trajectory.system_prompt,
                        context=trajectory.prompt_context(),
                        initial_state=trajectory.initial_state,
                        history=trajectory.turns[:index],
                        action=turn.action,
                        reference=turn.observation,
                        source=turn_provenance(trajectory, index),
                    )
                )
    return items


def items_from_agentworldbench(path: Path) -> list[BenchItem]:
    """Items from AgentWorldBench rows (a JSONL/Parquet file or a folder of them)."""
    loaded = load_agentworldbench(path)
    return [
        BenchItem(
            item_id=f"{item.domain}/{item.id}#{item.turn_idx}",
            domain=item.domain,
            trajectory_key=item.id,
            turn_index=item.turn_idx - 1,
            system_prompt=item.system_prompt,
            initial_state=item.initial_state,
            history=item.history,
            action=item.action,
            reference=item.ground_truth,
            verbatim=item.verbatim,
            row=item.raw,
            source=Recorded(
                dataset="agentworldbench",
                file=str(path),
                row_id=f"{item.domain}/{item.id}",
                turn=item.turn_idx,
            ),
        )
        for item in loaded.items
    ]


DATASETS: Registry[Callable[[], list[BenchItem]]] = Registry("dataset")
DATASETS.register("bundled", lambda: items_from_trajectories(load_bundled()))


def load_items(dataset: str) -> list[BenchItem]:
    """The items of a named dataset, or of AgentWorldBench rows at the path `dataset`.

    Raises:
        BadInputError: neither a dataset name nor an existing path, or malformed rows.
    """
    if dataset in DATASETS:
        return DATASETS.get(dataset)()
    path = Path(dataset)
    if not path.exists():
        raise BadInputError(
            f"{dataset!r} is neither a dataset name ({', '.join(DATASETS.names())}) "
            "nor an existing file or folder of AgentWorldBench rows."
        )
    return items_from_agentworldbench(path)
