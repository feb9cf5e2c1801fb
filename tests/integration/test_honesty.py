"""The honesty meter: `oracle` agrees with reality on recorded tasks, `persistence` does not.

The recorded tasks are real: the terminal task `hello` run live (solved, and a no-op), stored
as live recordings with the live check's rewards. Replayed in simulation with the sim-to-real
replay, the check-as-action decides sim success and the live check decides real success.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.context import AppContext
from backend.domains.base import get_domain
from backend.engines.base import Engine, EngineConfig, build_engine
from backend.envs.live.mcp_servers import SERVER_SETS
from backend.envs.sim.agents import EngineAgent
from backend.envs.sim.check_action import CHECK_FAIL, CHECK_PASS, read_check
from backend.envs.sim.honesty import SIM_PASS_REAL_FAIL, honesty_meter
from backend.envs.sim.leaderboard import leaderboard
from backend.envs.sim.report import EpisodeRow
from backend.envs.sim.service import make_agent
from backend.errors import BadInputError
from backend.types import SamplingParams
from storage.run_kinds import RolloutRun
from tests.integration.test_rollout import SHELL_RECORDING, rollout
from tests.support.live import skip_unless_live


def _row(start: str, sim: bool | None, real: bool | None, replays: list[float]) -> EpisodeRow:
    return EpisodeRow(
        episode=0,
        domain="terminal",
        start=start,
        task="",
        env="sim",
        agent="replay",
        reward_model="reference@2",
        steps=[],
        total_reward=0.0,
        success=None,
        terminated=True,
        truncated=False,
        world_model_tokens=0,
        agent_tokens=0,
        session_id=None,
        sim_check=sim,
        real_success=real,
        real_reward=None if real is None else float(real),
        real_session_id=1,
        replay_rewards=replays,
    )


def test_the_meter_counts_each_cell_and_names_the_one_that_matters() -> None:
    rows = [
        _row("a", True, True, [1.0, 1.0]),
        _row("a", True, False, [1.0, 0.0]),
        _row("b", False, True, []),
        _row("b", False, False, []),
        _row("b", None, True, []),
    ]
    meter = honesty_meter(rows, replays=2)
    assert meter is not None
    cells = meter.overall.outcomes
    assert (cells.both_pass, cells.sim_pass_real_fail, cells.sim_fail_real_pass) == (1, 1, 1)
    assert (cells.both_fail, cells.unknown) == (1, 1)
    assert meter.overall.agreement == 0.5 and meter.overall.false_pass_rate == 0.25
    first = meter.tasks[0]
    assert first.task == "a" and first.replay_reward_std == 0.25  # mean of spreads 0 and 0.5
    assert SIM_PASS_REAL_FAIL == "passes in simulation, fails in reality"
    assert honesty_meter([_row("a", True, True, [])][:0]) is None


@pytest.mark.parametrize(
    ("text", "passed"),
    [(CHECK_PASS, True), (f"`{CHECK_PASS}`", True), (CHECK_FAIL, False), ("", False)],
)
def test_only_a_pass_verdict_passes(text: str, passed: bool) -> None:
    assert read_check(text) is passed
    assert not read_check("The check would pass, I think.")


def _hello(name: str, *actions: str) -> dict[str, object]:
    turns = [{"action": action, "observation": ""} for action in actions]
    return {**SHELL_RECORDING, "id": f"test/{name}", "live_task": "hello", "turns": turns}


@pytest.fixture
def recorded(awp_context: AppContext, tmp_path: Path) -> Path:
    """The `hello` task run live, solved and not, kept as recordings with their check."""
    solve = json.dumps([{"keystrokes": "echo 'hello, world' > ~/hello.txt\n", "duration": 0.5}])
    scripts = tmp_path / "scripts.jsonl"
    scripts.write_text(
        "".join(
            json.dumps(r) + "\n" for r in (_hello("solved", solve, "[]"), _hello("no-op", "[]"))
        )
    )
    base = ["--engine", "persistence", "--domain", "terminal", "--tasks", str(scripts)]
    rows, _ = rollout(tmp_path / "live", *base, "--env", "live", "--episodes", "2")
    tasks = tmp_path / "recorded.jsonl"
    with tasks.open("w", encoding="utf-8") as handle:
        for row in rows:
            session = awp_context.sessions.load_session(row["session_id"])
            trajectory = awp_context.trajectories.get(session.base_trajectory_id or "")
            assert trajectory.metadata["rewards"][-1] == (1.0 if "solved" in row["start"] else 0.0)
            handle.write(json.dumps({**trajectory.model_dump(mode="json"), "live_task": "hello"}))
            handle.write("\n")
    return tasks


@skip_unless_live("terminal")
def test_oracle_agrees_with_reality_and_persistence_does_not(
    awp_context: AppContext, recorded: Path, tmp_path: Path
) -> None:
    meters = {}
    for engine in ("oracle", "persistence"):
        base = ["--engine", engine, "--domain", "terminal", "--tasks", str(recorded)]
        sim = ["--agent", "replay", "--episodes", "2", "--sim-to-real", "--replays", "3"]
        rows, summary = rollout(tmp_path / engine, *base, *sim)
        assert [row["real_success"] for row in rows] == [True, False]
        assert all(len(row["replay_rewards"]) == 3 for row in rows)
        meters[engine] = summary["honesty"]
        assert (tmp_path / engine / "honesty.png").stat().st_size > 10_000
    oracle, persistence = meters["oracle"]["overall"], meters["persistence"]["overall"]
    assert oracle["agreement"] == 1.0 and oracle["outcomes"]["both_pass"] == 1
    assert oracle["divergence"] == 0.0 and oracle["replay_reward_std"] == 0.0
    assert oracle["sim_reward"] == oracle["real_reward"] == 0.5
    # Persistence never predicts the check's verdict: the solved task fails in simulation.
    assert persistence["agreement"] == 0.5 and persistence["outcomes"]["sim_fail_real_pass"] == 1
    assert persistence["sim_reward"] == 0.0 and persistence["divergence"] > 0
    stored = awp_context.runs.list_runs(RolloutRun)[0]  # the newest: persistence's
    assert stored.results["honesty"]["overall"] == persistence  # stored in SQL with the run


def _ranked(agent: str, task: str, sim: bool, real: bool) -> EpisodeRow:
    return _row(task, sim, real, []).model_copy(update={"agent": agent})


def test_the_leaderboard_ranks_agents_and_bounds_spearman() -> None:
    rows = []
    for task in ("t1", "t2", "t3", "t4"):
        rows += [
            _ranked("good", task, True, True),
            _ranked("fair", task, task in ("t1", "t2"), task in ("t1", "t2", "t3")),
            _ranked("poor", task, task == "t1", False),
        ]
    board = leaderboard(rows, rounds=200)
    assert board is not None
    (overall,) = [a for a in board.agreement if a.domain == "all"]
    assert overall.spearman == 1.0 and overall.agents == 3
    assert overall.low is not None and overall.high == 1.0 and overall.low <= 1.0
    live = {s.agent: s.live_rank for s in board.scores if s.domain == "all"}
    assert live == {"good": 1.0, "fair": 2.0, "poor": 3.0}
    # A simulator that fails everything ranks no one: the correlation is undefined, not 0.
    blind = [r.model_copy(update={"sim_check": False}) for r in rows]
    assert all(a.spearman is None for a in leaderboard(blind, rounds=50).agreement)  # type: ignore[union-attr]
    assert leaderboard([r for r in rows if r.agent == "good"]) is None


@skip_unless_live("terminal")
def test_a_leaderboard_of_agents_on_the_checked_terminal_tasks(
    awp_context: AppContext, tmp_path: Path
) -> None:
    agents = "scripted,random:1,random:2"
    base = ["--engine", "persistence", "--domain", "terminal", "--tasks", "checked"]
    run = ["--agent", agents, "--episodes", "6", "--max-steps", "3", "--sim-to-real"]
    rows, summary = rollout(tmp_path / "board", *base, *run)
    assert len(rows) == 18 and summary["agent"] == agents
    scores = {s["agent"]: s for s in summary["leaderboard"]["scores"] if s["domain"] == "all"}
    assert scores["scripted"]["live_success"] == 1.0  # every checked task solved for real
    assert scores["scripted"]["live_rank"] == 1.0
    assert all(s["sim_success"] == 0.0 for s in scores.values())  # persistence never passes
    assert summary["leaderboard"]["agreement"][-1]["spearman"] is None
    assert (tmp_path / "board" / "leaderboard.png").stat().st_size > 10_000


@skip_unless_live("mcp")
@pytest.mark.skipif(
    bool(SERVER_SETS["memory-forget"].servers[0].needs()), reason="no npm memory server"
)
def test_an_mcp_episode_without_a_valid_call_has_a_live_outcome_and_counts(
    awp_context: AppContext, tmp_path: Path
) -> None:
    """mcp has no finish action: the task's no-op runs the live check of any episode.

    The replayed recording calls the domain's example tool, which the memory server lacks: the
    simulation refuses it, so the live replay has no call to send but the task's no-op. The
    no-op policy `scripted:0` plays that no-op itself. Both fail the check, live and simulated.
    """
    refused = get_domain("mcp").example_action
    turns = [{"action": refused, "observation": ""}]
    recording = {
        **SHELL_RECORDING,
        "id": "test/refused",
        "domain": "mcp",
        "task": "Forget Carol.",
        "live_task": "memory-forget",
        "turns": turns,
    }
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(recording) + "\n")
    base = ["--engine", "persistence", "--domain", "mcp", "--tasks", str(tasks)]
    run = ["--agent", "replay,scripted:0", "--episodes", "1", "--max-steps", "1", "--sim-to-real"]
    rows, summary = rollout(tmp_path / "out", *base, *run)
    by_agent = {row["agent"]: row for row in rows}
    assert [step["invalid"] for step in by_agent["replay"]["steps"]] == [True]
    assert [step["invalid"] for step in by_agent["scripted:0"]["steps"]] == [False]
    for row in rows:
        assert (row["sim_check"], row["real_success"], row["real_reward"]) == (False, False, 0.0)
    scores = [s for s in summary["leaderboard"]["scores"] if s["domain"] == "mcp"]
    assert {(s["agent"], s["episodes"], s["live_success"]) for s in scores} == {
        ("replay", 1, 0.0),
        ("scripted:0", 1, 0.0),
    }
    assert summary["honesty"]["overall"]["outcomes"]["unknown"] == 0


def test_agent_names_pick_each_reference_agent(tmp_path: Path) -> None:
    asked: list[tuple[str, str | None]] = []

    def engines(name: str, model: str | None) -> Engine:
        asked.append((name, model))
        return build_engine(EngineConfig(name="persistence"))

    params = SamplingParams(temperature=0.6)
    assert make_agent("scripted", engines, params).name == "scripted"
    assert make_agent("random:4", engines, params).name == "random:4"
    hot = make_agent("transformers:m@1.5", engines, params)
    assert isinstance(hot, EngineAgent) and hot.params.temperature == 1.5
    checkpoint = make_agent(str(tmp_path), engines, params)  # a trained checkpoint folder
    assert isinstance(checkpoint, EngineAgent)
    assert asked == [("transformers", "m"), ("transformers", str(tmp_path))]
    with pytest.raises(BadInputError, match="temperature"):
        make_agent("transformers@hot", engines, params)
