"""AgentWorldBench rows: import from files, folders or the hub; export trajectories as rows.

A row is one evaluated turn: parallel `prompt`/`response` turn texts, `turn_idx` (1-based) the
turn under test, earlier turns the history; rows of one `id` share a trajectory. The row schema
and the turn-text parsing live in `awb_layout`; this module reads, groups and writes rows.

The turn under test is `prompt[turn_idx-1]`, as the release's `eval.py infer` reads it, even
where a row's `current_prompt` says something else; an item keeps the row's texts
(`VerbatimChat`) so that a benchmark sends them exactly as the official harness does.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from backend.data.awb_layout import AgentWorldBenchRow, observation_text, parse_user_turn
from backend.data.rows import read_rows
from backend.domains import BUILTIN
from backend.domains.turns import format_assistant_turn, format_user_turn
from backend.errors import BadInputError
from backend.parsing import strip_marker
from backend.types import SimRequest, Trajectory, Turn, VerbatimChat

HUB_DATASET = "Qwen/AgentWorldBench"
LICENCE = "Apache-2.0"


class AgentWorldBenchItem(BaseModel):
    """One evaluated turn, ready to simulate: history, current action and ground truth."""

    id: str
    domain: str
    turn_idx: int
    total_turns: int
    system_prompt: str
    initial_state: str | None = None
    history: list[Turn]
    action: str
    ground_truth: str = Field(description="response[turn_idx-1] with the marker stripped.")
    raw: dict[str, Any]

    @property
    def verbatim(self) -> VerbatimChat:
        """The row's own texts of this turn, as the official harness sends them."""
        return verbatim_chat(AgentWorldBenchRow.model_validate(self.raw))

    def to_request(self) -> SimRequest:
        """The simulation request of this turn (teacher-forced history, truth as reference).

        It is sent as the official harness sends the row (`verbatim`).
        """
        return SimRequest(
            domain=self.domain,
            system_prompt=self.system_prompt,
            initial_state=self.initial_state,
            history=self.history,
            action=self.action,
            reference=self.ground_truth,
            verbatim=self.verbatim,
        )


def verbatim_chat(row: AgentWorldBenchRow) -> VerbatimChat:
    """A row's turn texts as `eval.py infer` sends them: earlier pairs, `prompt[turn_idx-1]`."""
    turn = row.turn_idx - 1
    pairs = list(zip(row.prompt[:turn], row.response[:turn], strict=True))
    return VerbatimChat(turns=pairs, current=row.prompt[turn])


class AgentWorldBenchImport(BaseModel):
    """The result of an import: the items, and what was skipped."""

    items: list[AgentWorldBenchItem]
    duplicates: list[str] = Field(default_factory=list, description="Where each skipped row was.")
    source: str

    def trajectories(self) -> list[Trajectory]:
        """The items grouped by `id` into trajectories."""
        return group_trajectories(self.items, self.source)


def _turns(row: AgentWorldBenchRow) -> tuple[str | None, list[Turn]]:
    """The initial state and every turn the row's lists hold (observations where present)."""
    parsed = [parse_user_turn(text) for text in row.prompt]
    observations: list[str | None] = [observation_text(text) for text in row.response]
    observations += [None] * (len(parsed) - len(observations))
    turns = [
        Turn(action=t.action, observation=o) for t, o in zip(parsed, observations, strict=False)
    ]
    return parsed[0].current_state, turns


def validate_row(raw: dict[str, Any], where: str) -> AgentWorldBenchRow:
    """Check one row against the official layout and the known domains.

    Raises:
        BadInputError: the row is malformed; the message starts with `where`.
    """
    try:
        row = AgentWorldBenchRow.model_validate(raw)
    except ValidationError as exc:
        problems = (f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise BadInputError(f"{where}: {'; '.join(problems)}") from None
    if row.domain not in BUILTIN:
        valid = ", ".join(BUILTIN)
        raise BadInputError(f"{where}: unknown domain {row.domain!r} (valid: {valid})")
    return row


def parse_row(raw: dict[str, Any], where: str) -> AgentWorldBenchItem:
    """Validate one row and split it into history, current action and ground truth.

    Raises:
        BadInputError: the row is malformed; the message starts with `where`.
    """
    row = validate_row(raw, where)
    try:
        initial_state, turns = _turns(row)
        current = parse_user_turn(row.prompt[row.turn_idx - 1])
    except BadInputError as exc:
        raise BadInputError(f"{where}: {exc}") from None
    return AgentWorldBenchItem(
        id=str(row.id),
        domain=row.domain,
        turn_idx=row.turn_idx,
        total_turns=row.total_turns,
        system_prompt=row.system_str,
        initial_state=initial_state,
        history=turns[: row.turn_idx - 1],
        action=current.action,
        ground_truth=strip_marker(row.response[row.turn_idx - 1]),
        raw=raw,
    )


def unique_items(path: Path, duplicates: list[str]) -> Iterator[tuple[str, AgentWorldBenchItem]]:
    """Every row of `path` as an item with where it is, read lazily, once per `(id, turn_idx)`.

    A repeated `(id, turn_idx)` is skipped and where it was appended to `duplicates`; the
    official data has one such duplicate in android.

    Raises:
        BadInputError: a row is malformed; the message names the file and line or row.
    """
    seen: set[tuple[str, int]] = set()
    for where, raw in read_rows(path):
        item = parse_row(raw, where)
        key = (item.id, item.turn_idx)
        if key in seen:
            duplicates.append(where)
        else:
            seen.add(key)
            yield where, item


def load_agentworldbench(path: Path, source: str | None = None) -> AgentWorldBenchImport:
    """Import AgentWorldBench rows from a JSONL/Parquet file or a folder, all in memory.

    A folder is either a `datasets.save_to_disk` folder or any folder of `*.jsonl` /
    `*.parquet` files (the hub layout is `{domain}_test.jsonl`). Repeated `(id, turn_idx)` rows
    are skipped and reported. What needs every item at once (a benchmark) uses this; storing
    trajectories uses `backend.data.awb_import`, whose memory does not grow with the file.

    Args:
        path: the file or folder.
        source: provenance given to the trajectories (default: the path).

    Raises:
        BadInputError: a row is malformed; the message names the file and line or row.
    """
    duplicates: list[str] = []
    items = [item for _, item in unique_items(path, duplicates)]
    return AgentWorldBenchImport(items=items, duplicates=duplicates, source=source or str(path))


def group_trajectories(items: list[AgentWorldBenchItem], source: str) -> list[Trajectory]:
    """One trajectory per row `id`, built from the row whose lists reach furthest."""
    groups: dict[str, list[AgentWorldBenchItem]] = {}
    for item in items:
        groups.setdefault(item.id, []).append(item)
    trajectories = []
    for group in groups.values():
        longest = AgentWorldBenchRow.model_validate(max(group, key=reach).raw)
        trajectories.append(row_trajectory(longest, [item.turn_idx for item in group], source))
    return trajectories


def reach(item: AgentWorldBenchItem) -> tuple[int, int]:
    """How far an item's row goes: of one trajectory's rows, the furthest holds all of it."""
    return len(item.raw["prompt"]), item.turn_idx


def row_trajectory(row: AgentWorldBenchRow, evaluated: list[int], source: str) -> Trajectory:
    """The trajectory a row's lists hold, with the turns evaluated in its rows as metadata."""
    initial_state, turns = _turns(row)
    return Trajectory(
        id=str(row.id),
        domain=row.domain,
        system_prompt=row.system_str,
        initial_state=initial_state,
        turns=turns,
        source=source,
        licence=LICENCE,
        metadata={"evaluated_turns": sorted(evaluated)},
    )


def trajectory_to_rows(
    traj: Trajectory, system_prompt: str, turn_indices: list[int] | None = None
) -> list[dict[str, Any]]:
    """Official rows for turns of a trajectory (every turn when `turn_indices` is None).

    Each row's lists stop at its turn, as in the published data. The initial state, when the
    trajectory has one, goes in the first user turn's `**Current State:**` block (the terminal
    layout) so that it survives a round trip for every domain.

    Raises:
        BadInputError: a turn index is out of range, or a turn up to it has no observation.
    """
    count = len(traj.turns)
    prompts = [
        format_user_turn(i, turn.action, traj.initial_state if i == 1 else None)
        for i, turn in enumerate(traj.turns, start=1)
    ]
    rows = []
    for index in turn_indices or range(1, count + 1):
        if not 1 <= index <= count:
            raise BadInputError(f"{traj.id}: turn {index} is not in 1..{count}")
        observations = [turn.observation for turn in traj.turns[:index]]
        if any(observation is None for observation in observations):
            raise BadInputError(f"{traj.id}: a turn up to {index} has no observation")
        rows.append(
            {
                "task": traj.domain,
                "id": traj.id,
                "prompt": prompts[:index],
                "response": [format_assistant_turn(str(obs)) for obs in observations],
                "current_prompt": prompts[index - 1],
                "system_str": system_prompt,
                "turn_idx": index,
                "total_turns": count,
            }
        )
    return rows


def load_hub_dataset(
    name: str = HUB_DATASET,
    revision: str | None = None,
    cache_dir: Path | None = None,
    timeout_s: float = 10.0,
) -> AgentWorldBenchImport:
    """Download (or reuse the cached copy of) a hub dataset and import it.

    Raises:
        BadInputError: the hub cannot be reached (offline, timeout, not found) and no cached
            copy exists; the message says how to import a local copy instead.
    """
    from huggingface_hub import snapshot_download

    try:
        folder = snapshot_download(
            name,
            repo_type="dataset",
            revision=revision,
            cache_dir=cache_dir,
            etag_timeout=timeout_s,
            allow_patterns=["*.jsonl", "*.parquet"],
        )
    except OSError as exc:  # the hub's offline, HTTP and missing-cache errors are all OSErrors
        how = f"`hf download {name} --repo-type dataset --local-dir DIR`"
        raise BadInputError(
            f"Cannot download the dataset {name!r} from the Hugging Face hub (offline or "
            f"unreachable, and no cached copy): {type(exc).__name__}. Download it where the "
            f"hub is reachable ({how}) and import the folder instead."
        ) from exc
    return load_agentworldbench(Path(str(folder)), source=name)
