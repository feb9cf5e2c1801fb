"""The world-model environment on the one step path: episodes, invalid actions, rewards, storage."""

from __future__ import annotations

import json

from backend.data.bundled import load_bundled
from backend.domains.prompts import PromptLibrary
from backend.engines.base import EngineConfig, build_engine
from backend.engines.baselines import BaselineEngine
from backend.envs.sim.episode import EnvOptions, EpisodeSpec
from backend.envs.sim.rewards import RewardOptions, build_reward
from backend.envs.sim.world import WorldEnv, step_all
from backend.simulate import Simulator
from storage.sessions import SessionStore


def simulator(name: str) -> Simulator:
    return Simulator(build_engine(EngineConfig(name=name)), PromptLibrary())


def recording(domain: str):
    return next(t for t in load_bundled() if t.domain == domain)


def test_oracle_episode_follows_the_recording_and_is_stored(database) -> None:
    store = SessionStore(database.session_factory)
    trajectory = recording("terminal")
    env = WorldEnv(
        simulator("oracle"),
        build_reward("reference", RewardOptions()),
        EnvOptions(max_steps=len(trajectory.turns)),
        store,
    )
    first, info = env.reset(EpisodeSpec.from_trajectory(trajectory))
    assert first == (trajectory.initial_state or "") and info["domain"] == "terminal"
    results = [env.step(turn.action) for turn in trajectory.turns]
    assert [r.observation for r in results] == [t.observation for t in trajectory.turns]
    assert all(r.reward == 1.0 for r in results)
    assert results[-1].truncated and not any(r.terminated for r in results)
    assert {r.info["session_id"] for r in results} == {env.session_id}
    stored = store.load_session(env.session_id)
    assert stored.kind == "rollout" and len(stored.steps) == len(trajectory.turns)
    assert stored.steps[0].origin == "recorded"


def test_invalid_action_is_an_observation_with_a_penalty(database) -> None:
    store = SessionStore(database.session_factory)
    env = WorldEnv(
        simulator("persistence"),
        build_reward("reference", RewardOptions()),
        EnvOptions(max_steps=3, invalid_penalty=0.5),
        store,
    )
    env.reset(EpisodeSpec(domain="terminal", initial_state="user@host:~$"))
    result = env.step("ls -la")
    assert result.observation.startswith("Invalid action: ")
    assert result.reward == -0.5 and not result.terminated and not result.truncated
    assert result.info["validation_error"] and env.turns == [] and env.session_id is None
    valid = env.step(json.dumps([{"keystrokes": "ls\n", "duration": 0.1}]))
    assert valid.observation == "user@host:~$" and valid.info["session_id"] is not None
    finished = env.step("[]")
    assert finished.terminated and finished.info["finish_action"]


def test_task_judge_ends_the_episode_and_its_verdict_is_stored(database) -> None:
    store = SessionStore(database.session_factory)
    verdict = '<verdict>{"reasoning": "the file exists", "done": true, "success": true}</verdict>'
    judge = BaselineEngine("scripted-judge", lambda request: verdict)
    env = WorldEnv(
        simulator("persistence"),
        build_reward("task_judge", RewardOptions(judge=judge)),
        EnvOptions(max_steps=5),
        store,
    )
    env.reset(EpisodeSpec(domain="os", task="Open the settings", initial_state="<desktop/>"))
    result = env.step("import pyautogui\npyautogui.click(1, 2)")
    assert result.terminated and result.reward == 1.0 and result.info["success"] is True
    assert result.info["verdict"]["reasoning"] == "the file exists"
    stored = store.load_session(env.session_id)
    names = {score.name for score in stored.steps[0].predictions[0].scores}
    assert "reward.task_judge" in names


def test_step_all_sends_one_engine_call_for_many_domains() -> None:
    calls: list[int] = []
    engine = build_engine(EngineConfig(name="persistence"))
    generate = engine.generate

    def counting(requests):
        calls.append(len(requests))
        return generate(requests)

    engine.generate = counting  # type: ignore[method-assign]
    shared = Simulator(engine, PromptLibrary())
    reward = build_reward("reference", RewardOptions())
    envs = [WorldEnv(shared, reward, EnvOptions(record=False)) for _ in range(3)]
    specs = [EpisodeSpec.from_trajectory(recording(d)) for d in ("terminal", "web", "android")]
    for env, spec in zip(envs, specs, strict=True):
        env.reset(spec)
    results = step_all(envs, [spec.trajectory.turns[0].action for spec in specs])
    assert calls == [3] and len(results) == 3


def test_a_vector_step_is_stored_in_one_transaction(database) -> None:
    """N sub-environments' steps, predictions, scores and rewards: one commit, not 2 N."""
    from sqlalchemy import event

    store = SessionStore(database.session_factory)
    reward = build_reward("reference", RewardOptions())
    envs = [WorldEnv(simulator("persistence"), reward, EnvOptions(), store) for _ in range(4)]
    specs = [EpisodeSpec.from_trajectory(recording(d)) for d in ("terminal", "web", "mcp", "os")]
    for env, spec in zip(envs, specs, strict=True):
        env.reset(spec)
    commits: list[int] = []
    statements: list[str] = []
    event.listen(database.engine, "commit", lambda *args: commits.append(1))
    event.listen(
        database.engine, "before_cursor_execute", lambda c, k, sql, *rest: statements.append(sql)
    )
    step_all(envs, [spec.trajectory.turns[0].action for spec in specs])
    statements.clear()
    step_all(envs, [spec.trajectory.turns[1].action for spec in specs])
    assert len(commits) == 2
    # A set-wise write: the same few statements for 4 steps as for 1 (it was about 7 a step).
    writes = [sql for sql in statements if not sql.startswith(("BEGIN", "SAVEPOINT"))]
    assert len(writes) <= 10, writes
    for env in envs:
        stored = store.load_session(env.session_id)
        assert len(stored.steps) == 2
        names = {score.name for score in stored.steps[1].predictions[0].scores}
        assert "reward.reference" in names and len(names) > 1


def test_an_episode_reads_incomplete_until_it_ends_and_exports_leave_it_out(database) -> None:
    from storage.export_source import ExportQuery, iter_export_records

    store = SessionStore(database.session_factory)
    trajectory = recording("terminal")
    options = EnvOptions(max_steps=len(trajectory.turns))
    reward = build_reward("reference", RewardOptions())
    env = WorldEnv(simulator("oracle"), reward, options, store)
    env.reset(EpisodeSpec.from_trajectory(trajectory))
    env.step(trajectory.turns[0].action)
    everything = ExportQuery(annotated_only=False)
    [listed] = store.list_sessions()
    assert not listed.complete  # cut off here (a killed process) it stays marked
    assert list(iter_export_records(database.session_factory, everything)) == []
    for turn in trajectory.turns[1:]:
        env.step(turn.action)
    [listed] = store.list_sessions()
    assert listed.complete
    exported = list(iter_export_records(database.session_factory, everything))
    assert len(exported) == len(trajectory.turns)
