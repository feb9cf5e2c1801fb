"""Leakage guarded by content, not by ids: through the real CLI, over real SQLite.

Real rows (the bundled recordings, written as AgentWorldBench rows where a file is needed) are
imported with `awp import`, then benchmarked with `awp bench --grounding --record-answers` and
the `persistence` engine: the tests are about which real transitions each item is shown (its
stored prompt, its `grounded_by`, the record's answer), not about generation. Every copy of an
item's recording (the bundled one, an import under a renamed id, a duplicate row in a second
file) is its own recording: none of its steps may reach the item, by grounding or the record.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

from sqlalchemy import select
from transformers import AutoTokenizer

from app.context import AppContext
from backend.benchmark.items import BenchItem, load_items
from backend.benchmark.store import ItemRow, ItemStore
from backend.data.agentworldbench import trajectory_to_rows
from backend.data.bundled import load_bundled
from backend.domains.prompts import PromptLibrary
from backend.envs.sim.episode import EnvOptions, EpisodeSpec
from backend.envs.sim.rewards import RewardOptions, build_reward
from backend.envs.sim.world import WorldEnv
from backend.grounding.grounder import HEADER
from backend.scoring.text import normalise_whitespace
from backend.spec import Purpose
from backend.training.evaluate import eval_params, run_eval
from backend.training.methods import METHODS
from backend.training.sources import from_trajectories
from backend.training.truncate import fit_items
from backend.types import HistoryMode, SamplingParams, Trajectory
from storage.annotations import AnnotationInput, AnnotationStore, Ratings
from storage.db import session_scope
from storage.models import PredictionRow, PromptTextRow
from tests.support.cli import run
from tests.support.tiny_model import qwen3_tokenizer_dir

SYSTEM = "You are a world model."
RENAMED, DUPLICATE = "~renamed", "~duplicate"
PROMPTS = PromptLibrary()


def recordings(*domains: str) -> list[Trajectory]:
    """The bundled recordings of `domains` whose every turn has a real observation."""
    return [
        t
        for t in load_bundled()
        if t.domain in domains and all(turn.observation is not None for turn in t.turns)
    ]


def write_rows(
    path: Path, trajectories: Iterable[Trajectory], suffix: str = "", turns: slice = slice(None)
) -> Path:
    """The trajectories' AgentWorldBench rows (those of `turns`) in `path`, `suffix` on each id."""
    rows = [
        {**row, "id": trajectory.id + suffix}
        for trajectory in trajectories
        for row in trajectory_to_rows(trajectory, SYSTEM)[turns]
    ]
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    return path


def awp(*args: str) -> str:
    code, output = run(*args)
    assert code == 0, output
    return output


def bench(dataset: Path | str, out: Path, *flags: str) -> list[ItemRow]:
    """`awp bench` of `dataset` with grounding and record answers on (unless `flags` say not)."""
    args = ["--dataset", str(dataset), "--engine", "persistence", "--out", str(out)]
    awp("bench", *args, "--grounding", "--record-answers", *flags)
    rows = list(ItemStore(out / "items.jsonl").rows())
    assert all(row.prediction_id is not None for row in rows)  # every prompt is stored
    return rows


def demonstrations(context: AppContext, prediction_id: int) -> str:
    """The demonstrations in a stored prediction's prompt ("" when it had none).

    A step the record answered has no prompt: no model was asked.
    """
    with session_scope(context.database.session_factory) as session:
        prompt = session.get_one(PredictionRow, prediction_id).prompt
        if not prompt:
            return ""
        system = session.execute(
            select(PromptTextRow.text).where(PromptTextRow.sha256 == prompt[0][1])
        ).scalar_one()
    return system.partition(HEADER)[2]


def unique_observations() -> set[str]:
    """The (normalised) observations that only one bundled recording's turn has."""
    seen = Counter(
        normalise_whitespace(turn.observation or "") for t in load_bundled() for turn in t.turns
    )
    return {text for text, count in seen.items() if count == 1}


def leaks(
    context: AppContext,
    items: Iterable[BenchItem],
    rows: list[ItemRow],
    copies: Callable[[str], set[str]],
) -> list[str]:
    """Each leak into a row: a step of a copy of its own recording, or its own truth, shown.

    `copies` gives the stored ids of every copy of an item's recording from its own id (its
    row's `id`, as `awp import` stores it; a bundled item's recording id). A row the record
    answered shows its answer's transition in `grounded_by`, so this covers both. A long truth
    that no other recording has must not appear in the prompt at all.
    """
    by_id = {item.item_id: item for item in items}
    assert rows and {row.item_id for row in rows} <= set(by_id)
    unique = unique_observations()
    found = []
    for row in rows:
        item = by_id[row.item_id]
        own = copies(str(item.row["id"]) if item.row is not None else item.trajectory_key)
        found += [
            f"{row.item_id} shown {ref}" for ref in row.grounded_by if ref.rsplit("#", 1)[0] in own
        ]
        if row.prediction_id is None:  # training evaluation stores no prompts: refs only
            continue
        truth = normalise_whitespace(item.reference)
        shown = normalise_whitespace(demonstrations(context, row.prediction_id))
        if len(truth) >= 40 and truth in unique and truth in shown:
            found.append(f"{row.item_id} shown its own truth")
    return found


def test_a_bench_of_imported_rows_never_shows_an_item_its_own_row_or_future(
    awp_context: AppContext, tmp_path: Path
) -> None:
    # 18 real terminal rows (3 turns of 6 recordings), imported, then benchmarked from the file:
    # before the guard compared content, all 18 were shown their own rows (grounding: the
    # target as "Real step 1", the turn after it as "Real step 2") or answered by them (record).
    rows = write_rows(tmp_path / "rows.jsonl", recordings("terminal")[:6], turns=slice(3))
    assert "18 rows" in awp("import", "agentworldbench", str(rows))
    items = load_items(str(rows))

    grounded = bench(rows, tmp_path / "grounded", "--no-record-answers")
    found = bench(rows, tmp_path / "run")

    for run_rows in (grounded, found):
        assert len(run_rows) == 18
        assert leaks(awp_context, items, run_rows, lambda own: {own}) == []
        # the guard hides the item's own recording, not the others: most are still grounded
        assert sum(bool(row.grounded_by) for row in run_rows) >= 12
        assert {row.answered_by for row in run_rows} == {"model"}


def original(stored_id: str) -> str:
    """The bundled recording a stored copy was made from."""
    return stored_id.removesuffix(RENAMED).removesuffix(DUPLICATE)


def every_copy(own: str) -> set[str]:
    """The stored ids of every copy of a recording in `copies_imported`."""
    return {original(own) + suffix for suffix in ("", RENAMED, DUPLICATE)}


def copies_imported(tmp_path: Path, *domains: str) -> Path:
    """Import the bundled set, its rows under renamed ids, and one duplicate row per recording.

    Returns the renamed rows' file. The second file holds each recording's second row (its
    first two turns) under a third id, as a second export of the same runs would.
    """
    awp("import", "recorded")
    renamed = write_rows(tmp_path / "renamed.jsonl", recordings(*domains), RENAMED)
    awp("import", "agentworldbench", str(renamed))
    second = write_rows(tmp_path / "second.jsonl", recordings(*domains), DUPLICATE, slice(1, 2))
    awp("import", "agentworldbench", str(second))
    return renamed


def test_renamed_ids_and_a_duplicate_row_in_a_second_file_are_the_same_recording(
    awp_context: AppContext, tmp_path: Path
) -> None:
    renamed = copies_imported(tmp_path, "terminal", "mcp", "web")
    stored = {summary.id for summary in awp_context.trajectories.list_trajectories(limit=1000)}
    assert {t.id + DUPLICATE for t in recordings("terminal")} <= stored

    found = bench(renamed, tmp_path / "renamed-run")

    assert leaks(awp_context, load_items(str(renamed)), found, every_copy) == []
    assert sum(bool(row.grounded_by) for row in found) >= len(found) // 2
    assert {row.answered_by for row in found} == {"model"}


def test_a_bench_of_the_bundled_set_never_sees_a_copy_of_its_recordings(
    awp_context: AppContext, tmp_path: Path
) -> None:
    copies_imported(tmp_path, "terminal", "android")
    limit = len([item for item in load_items("bundled") if item.domain in ("swe", "terminal")])
    found = bench("bundled", tmp_path / "run", "--limit", str(limit))

    terminal = [row for row in found if row.domain == "terminal"]
    assert terminal and leaks(awp_context, load_items("bundled"), found, every_copy) == []
    assert sum(bool(row.grounded_by) for row in terminal) >= len(terminal) // 2


def test_training_evaluation_never_sees_a_copy_of_its_recording_even_when_cut(
    awp_context: AppContext, tmp_path: Path
) -> None:
    copies_imported(tmp_path, "terminal")
    data = from_trajectories(recordings("terminal"), METHODS.get("sft"), PROMPTS.system_prompt)
    whole = [item for items in data.items.values() for item in items]
    tokenizer = AutoTokenizer.from_pretrained(qwen3_tokenizer_dir())
    items, report = fit_items(tokenizer, whole, 900)
    world = awp_context.world_spec(
        Purpose.TRAINING_EVAL, engine="persistence", grounding=True, record_answers=True
    )
    simulator = awp_context.simulator(world)
    run_eval(items, tmp_path, "before", "m", lambda e, m: simulator, eval_params(16, 0), False)
    (path,) = tmp_path.rglob("items.jsonl")
    found = list(ItemStore(path).rows())

    assert leaks(awp_context, items, found, every_copy) == []
    assert sum(bool(row.grounded_by) for row in found) >= len(found) // 2
    # a cut item's history no longer starts at its recording's start: it keeps its path
    assert report.cut >= 10
    uncut = {w.item_id: w.request(SamplingParams(), HistoryMode.TEACHER_FORCED) for w in whole}
    assert all(item.own_path == uncut[item.item_id].own_path for item in items)


def test_rollouts_never_see_a_copy_of_the_recording_they_follow(
    awp_context: AppContext, tmp_path: Path
) -> None:
    copies_imported(tmp_path, "terminal")
    world = awp_context.world_spec(
        Purpose.ROLLOUT, engine="persistence", grounding=True, record_answers=True
    )
    simulator = awp_context.simulator(world)
    shown: list[str] = []
    answered = []
    for trajectory in recordings("terminal"):
        env = WorldEnv(
            simulator,
            build_reward("reference", RewardOptions()),
            EnvOptions(max_steps=len(trajectory.turns), record=False),
        )
        env.reset(EpisodeSpec.from_trajectory(trajectory))
        for turn in trajectory.turns:
            info = env.step(turn.action).info
            answered.append(info["answered_by"])
            own = every_copy(trajectory.id)
            shown += [ref for ref in info["grounded_by"] if ref.rsplit("#", 1)[0] in own]
    assert shown == []
    assert set(answered) == {"model"}


def test_a_correction_of_an_item_s_prediction_never_reaches_that_item(
    awp_context: AppContext, tmp_path: Path
) -> None:
    rows = write_rows(tmp_path / "rows.jsonl", recordings("terminal")[:6], turns=slice(3))
    awp("import", "agentworldbench", str(rows))
    first = bench(rows, tmp_path / "first")
    annotations = AnnotationStore(awp_context.database.session_factory)
    corrections = {}
    for row in first:
        assert row.prediction_id is not None
        fixed = AnnotationInput(
            verdict="reject",
            corrected_observation=f"corrected {row.item_id}\n$ ",
            ratings=Ratings(format=2, factuality=1, consistency=2, realism=2, quality=1),
        )
        made = annotations.submit(row.prediction_id, "rita", fixed, role="reviewer")
        corrections[row.item_id] = f"annotation:{made.annotation_id}"

    again = bench(rows, tmp_path / "again")

    assert [row.item_id for row in again if corrections[row.item_id] in row.grounded_by] == []
    assert leaks(awp_context, load_items(str(rows)), again, lambda own: {own}) == []
    # the other items' corrections are real steps of other recordings: they still ground
    assert any(ref.startswith("annotation:") for row in again for ref in row.grounded_by)
