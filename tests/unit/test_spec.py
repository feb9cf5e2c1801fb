"""The world spec: resolved without sentinels, honest defaults per purpose, a stable digest."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from app.context import build_context
from backend.envs.sim.service import RolloutPlan, rollout_world
from backend.spec import MEASURED, SERVER_CHOICE, Purpose, WorldSpec, describe, parse_world

NO_SERVER = "http://127.0.0.1:9/v1"


def test_measurements_are_ungrounded_unless_asked_and_the_playground_keeps_the_settings(
    tmp_path: Path,
) -> None:
    with build_context(data_dir=tmp_path, engine="persistence") as context:
        assert context.settings.grounding and context.settings.record_answers
        for purpose in MEASURED:
            spec = context.world_spec(purpose)
            assert (spec.grounding, spec.record_answers) == (False, False)
            asked = context.world_spec(purpose, grounding=True, record_answers=True)
            assert (asked.grounding, asked.record_answers) == (True, True)
        play = context.world_spec(Purpose.PLAYGROUND)
        assert (play.grounding, play.record_answers) == (True, True)
        simulator = context.simulator(context.world_spec(Purpose.BENCH))
        assert simulator.grounder is None and simulator.record is None
        assert simulator.spec is not None and simulator.spec.purpose is Purpose.BENCH


def test_blanks_are_resolved_to_what_runs(tmp_path: Path) -> None:
    with build_context(data_dir=tmp_path, engine="openai", base_url=NO_SERVER) as context:
        served = context.world_spec(Purpose.PLAYGROUND, engine=" ", model="", base_url="")
        baseline = context.world_spec(Purpose.PLAYGROUND, engine="persistence")
        embedded = context.world_spec(Purpose.PLAYGROUND, engine="transformers")
    assert (served.engine, served.model, served.base_url) == ("openai", SERVER_CHOICE, NO_SERVER)
    assert (baseline.model, baseline.base_url) == ("baseline:persistence", None)
    assert embedded.model and embedded.base_url is None
    assert embedded.history_rule == "cut_to_context" and served.history_rule == "as_sent"


def test_hybrid_rollouts_carry_the_confidence_threshold_where_it_applies(tmp_path: Path) -> None:
    plan = RolloutPlan(domains=("terminal",), agent="replay", backing="hybrid")
    twin = RolloutPlan(domains=("terminal",), agent="replay", sim_to_real=True)
    with build_context(data_dir=tmp_path, engine="persistence", hybrid_min_confidence=0.7) as c:
        rollout = c.world_spec(**rollout_world(plan))
        playground = c.world_spec(Purpose.PLAYGROUND, hybrid=True)
        sim_to_real = c.world_spec(**rollout_world(twin))
    assert (rollout.hybrid, rollout.hybrid_min_confidence) == (True, 0.7)
    assert (playground.hybrid, playground.hybrid_min_confidence) == (True, 0.0)
    assert (sim_to_real.grounding, sim_to_real.record_answers, sim_to_real.hybrid) == (
        False,
        False,
        False,
    )


def test_a_spec_refuses_sentinels_and_keeps_a_stable_digest(tmp_path: Path) -> None:
    with build_context(data_dir=tmp_path, engine="persistence") as context:
        spec = context.world_spec(Purpose.BENCH)
    fields = spec.model_dump()
    for blank in ({"model": ""}, {"engine": ""}, {"base_url": ""}):
        with pytest.raises(ValidationError):
            WorldSpec.model_validate({**fields, **blank})
    stored = spec.stored()
    assert parse_world(stored) == spec and stored["digest"] == spec.digest()
    assert spec.digest() == WorldSpec.model_validate(fields).digest()
    assert spec.model_copy(update={"grounding": True}).digest() != spec.digest()
    words = describe(stored)
    assert words.startswith("persistence · baseline:persistence, grounding off, record answers off")
    assert words.endswith("for bench") and "teacher-forced history" in words
