"""An empty model means the configured one, whether a page or a command passed it."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.context import build_context
from ui.services import EngineChoice, chosen_model

# Nothing listens here: building an openai engine sends no request, so none is made.
NO_SERVER = "http://127.0.0.1:9/v1"


@pytest.mark.parametrize("configured", ["", "served/model"])
def test_an_empty_model_flag_and_an_empty_model_box_resolve_alike(
    configured: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWP_MODEL", configured)
    box = EngineChoice.from_controls("openai", " ", "", "teacher_forced", 0.0, 1.0, 0, 64, None)
    with build_context(data_dir=tmp_path, base_url=NO_SERVER) as context:
        # What `awp simulate/bench/rollout/env` pass: the flag as typed, None when left out.
        empty_flag = context.simulator("openai", "", None).engine
        no_flag = context.simulator("openai", None, None).engine
        # What the Playground passes for a cleared model box, and what Futures and the arena pass.
        page = context.simulator(box.engine, box.model, box.base_url or None).engine
        compared = context.simulator("openai", chosen_model(box.model), None).engine

    assert [e.model for e in (empty_flag, no_flag, page, compared)] == [configured] * 4


def test_a_named_model_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWP_MODEL", "served/model")
    with build_context(data_dir=tmp_path, base_url=NO_SERVER) as context:
        engine = context.simulator("openai", "other/model", None).engine

    assert engine.model == "other/model"


def test_the_judge_keeps_an_empty_model_as_its_engines_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWP_MODEL", "served/model")
    with build_context(data_dir=tmp_path, base_url=NO_SERVER, judge_engine="openai") as context:
        judge = context.judge()

    assert judge.engine.model == ""
