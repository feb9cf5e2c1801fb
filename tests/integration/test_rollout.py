"""`awp rollout`: the replay agent in simulation on every domain; shadow and sim-to-real live."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.context import AppContext
from app.settings import Settings
from backend.domains.base import all_domains
from backend.envs.live import cgroups
from backend.envs.live.base import live_kind
from backend.envs.live.mcp_servers import SERVER_SETS
from backend.envs.sim.tasks import episode_specs
from storage.run_kinds import RolloutRun
from tests.support.cli import run
from tests.support.live import skip_unless_live

SHELL_RECORDING = {
    "id": "test/live-shell",
    "domain": "terminal",
    "task": "Make a file and list it.",
    "source": "test",
    "licence": "Apache-2.0",
    "live_task": "shell",
    "turns": [
        {"action": '[{"keystrokes": "echo hello > a.txt\\n", "duration": 0.3}]', "observation": ""},
        {"action": '[{"keystrokes": "ls\\n", "duration": 0.3}]', "observation": "a.txt"},
        {"action": "[]", "observation": ""},
    ],
}


def rollout(out: Path, *args: str) -> tuple[list[dict], dict]:
    code, output = run("rollout", "--agent", "replay", "--out", str(out), *args)
    assert code == 0, output
    # A run that starts live sandboxes says first which limits bound them; a simulated one not.
    live = "--sim-to-real" in args or ("--env" in args and args[args.index("--env") + 1] != "sim")
    assert (cgroups.limits_held(Settings().live_config()) in output) == live, output
    rows = [json.loads(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]
    return rows, json.loads((out / "summary.json").read_text())


def assert_live_trajectory_kept(context: AppContext, session_id: int, actions: int) -> None:
    """The episode's session starts from its live trajectory, stored with every live turn."""
    stored = context.sessions.load_session(session_id)
    assert stored.base_trajectory_id is not None
    kept = context.trajectories.get(stored.base_trajectory_id)
    assert kept.source == "live:terminal" and len(kept.turns) == actions
    assert "a.txt" in (kept.turns[1].observation or "")


def test_replay_agent_in_simulation_on_every_domain(
    awp_context: AppContext, tmp_path: Path
) -> None:
    domains = [domain.name for domain in all_domains()]
    rows, summary = rollout(
        tmp_path / "out", "--engine", "oracle", "--domain", ",".join(domains), "--episodes", "1"
    )
    assert sorted(summary["domains"]) == sorted(domains) and summary["env"] == "sim"
    for row in rows:
        # The oracle returns the recorded observation: the replayed recording agrees everywhere.
        assert all(step["fidelity"] == 1.0 and not step["invalid"] for step in row["steps"])
        assert row["truncated"] or row["terminated"]
        stored = awp_context.sessions.load_session(row["session_id"])
        assert stored.kind == "rollout" and len(stored.steps) == len(row["steps"])
    assert all(figures["fidelity"] == 1.0 for figures in summary["domains"].values())
    [recorded] = awp_context.runs.list_runs(
        RolloutRun
    )  # the run itself is listed, with its summary
    assert (recorded.status, recorded.domains, recorded.agent, recorded.env) == (
        "finished",
        domains,
        "replay",
        "sim",
    )
    assert recorded.world.startswith("oracle:") and recorded.results == summary
    assert recorded.done == recorded.total == len(domains)
    assert recorded.out_dir == str((tmp_path / "out").resolve())


@skip_unless_live("terminal")
@pytest.mark.parametrize("mode", ["live", "shadow", "sim-to-real"])
def test_terminal_live_shadow_and_sim_to_real(
    awp_context: AppContext, tmp_path: Path, mode: str
) -> None:
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps(SHELL_RECORDING) + "\n")
    env = ["--env", mode] if mode != "sim-to-real" else ["--env", "sim", "--sim-to-real"]
    base = ["--engine", "persistence", "--domain", "terminal", "--tasks", str(tasks)]
    rows, summary = rollout(tmp_path / "out", *base, *env)
    (row,) = rows
    assert [step["action"] for step in row["steps"]][-1] == "[]" and row["terminated"]
    figures = summary["domains"]["terminal"]
    if mode == "live":
        # The live environment answers; nothing is predicted, the episode is still stored.
        assert "a.txt" in row["steps"][1]["observation"] and row["steps"][1]["predicted"] is None
        stored = awp_context.sessions.load_session(row["session_id"])
        assert stored.engine == "live" and {s.origin for s in stored.steps} == {"live"}
        assert_live_trajectory_kept(awp_context, row["session_id"], len(row["steps"]))
    elif mode == "shadow":
        # The agent sees the real screen; the world model (persistence) copies the previous one.
        assert "a.txt" in row["steps"][1]["observation"]
        assert row["steps"][1]["predicted"] is not None and 0 <= figures["fidelity"] < 1
        stored = awp_context.sessions.load_session(row["session_id"])
        assert {step.origin for step in stored.steps} == {"live"}
        assert_live_trajectory_kept(awp_context, row["session_id"], len(row["steps"]))
    else:
        assert "a.txt" in row["steps"][1]["real_observation"]
        assert all(0 <= step["divergence"] <= 1 for step in row["steps"])
        assert figures["divergence"] > 0 and row["real_session_id"] != row["session_id"]


def _hello(name: str, *actions: str) -> dict[str, object]:
    """A recording of the checked terminal task `hello` whose replay runs `actions`."""
    turns = [{"action": action, "observation": ""} for action in actions]
    return {**SHELL_RECORDING, "id": f"test/{name}", "live_task": "hello", "turns": turns}


@skip_unless_live("terminal")
def test_live_success_comes_from_the_task_check(awp_context: AppContext, tmp_path: Path) -> None:
    solve = json.dumps([{"keystrokes": "echo 'hello, world' > ~/hello.txt\n", "duration": 0.5}])
    tasks = tmp_path / "tasks.jsonl"
    recordings = (_hello("solved", solve, "[]"), _hello("no-op", "[]"))
    tasks.write_text("".join(json.dumps(recording) + "\n" for recording in recordings))
    base = ["--engine", "persistence", "--domain", "terminal", "--tasks", str(tasks)]
    live = ["--env", "live", "--reward", "live", "--episodes", "2"]
    rows, summary = rollout(tmp_path / "out", *base, *live)
    assert [(row["success"], row["total_reward"]) for row in rows] == [(True, 1.0), (False, 0.0)]
    assert summary["domains"]["terminal"]["success_rate"] == 0.5


def _forget(name: str, action: dict[str, object]) -> dict[str, object]:
    """A one-call recording of the checked mcp task `memory-forget`."""
    turn = {"action": json.dumps(action), "observation": ""}
    return {
        **SHELL_RECORDING,
        "id": f"test/{name}",
        "domain": "mcp",
        "task": "Forget Carol.",
        "live_task": "memory-forget",
        "turns": [turn],
    }


@skip_unless_live("mcp")
@pytest.mark.skipif(
    bool(SERVER_SETS["memory-forget"].servers[0].needs()), reason="no npm memory server"
)
def test_an_unsolved_mcp_episode_fails_when_it_runs_out_of_steps(
    awp_context: AppContext, tmp_path: Path
) -> None:
    """mcp has no end action: its check runs after every call, and the last step decides."""
    forget: dict[str, object] = {"name": "delete_entities", "arguments": {"entityNames": ["Carol"]}}
    recordings = (
        _forget("solved", forget),
        _forget("no-op", {"name": "read_graph", "arguments": {}}),
    )
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps(recording) + "\n" for recording in recordings))
    base = ["--engine", "persistence", "--domain", "mcp", "--tasks", str(tasks), "--episodes", "2"]
    live = ["--env", "live", "--reward", "live", "--max-steps", "1"]
    rows, _ = rollout(tmp_path / "out", *base, *live)
    assert [(row["success"], row["terminated"]) for row in rows] == [(True, True), (False, False)]


def test_live_tasks_include_every_checked_task() -> None:
    for domain in ("terminal", "swe", "mcp"):
        checked = [task.name for task in live_kind(domain).tasks() if task.check is not None]
        specs = episode_specs(domain, "live")
        assert len(checked) >= 6
        assert set(checked) <= {spec.live_task for spec in specs}


@pytest.mark.slow
def test_model_agent_and_task_judge_on_a_real_engine(awp_data, tmp_path, tiny_model_dir) -> None:
    """A (tiny, random) model acts through our agent prompt; its junk is penalised, not fatal."""
    model = str(tiny_model_dir)
    code, output = run(
        "rollout",
        "--agent",
        f"transformers:{model}",
        "--engine",
        "transformers",
        "--model",
        model,
        "--reward",
        "task_judge",
        "--domain",
        "terminal",
        "--tasks",
        "blank",
        "--episodes",
        "2",
        "--max-steps",
        "2",
        "--max-new-tokens",
        "8",
        "--agent-max-new-tokens",
        "8",
        "--out",
        str(tmp_path / "out"),
    )
    assert code == 0, output
    lines = (tmp_path / "out" / "rollouts.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    assert len(rows) == 2 and all(row["agent_tokens"] > 0 for row in rows)
    assert all(len(row["steps"]) == 2 and row["truncated"] for row in rows)
    for step in (step for row in rows for step in row["steps"]):
        # A random model rarely writes a valid keystroke batch; an invalid one is penalised.
        assert step["invalid"] == step["observation"].startswith("Invalid action: ")
        assert step["reward"] == (-1.0 if step["invalid"] else 0.0)
