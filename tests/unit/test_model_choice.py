"""An empty model means the configured one, whether a page or a command passed it."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.context import build_context
from backend.spec import SERVER_CHOICE, Purpose
from ui.services import EngineChoice

# Nothing listens here: building an openai engine sends no request, so none is made.
NO_SERVER = "http://127.0.0.1:9/v1"


@pytest.mark.parametrize("configured", ["", "served/model"])
def test_an_empty_model_flag_and_an_empty_model_box_resolve_alike(
    configured: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWP_MODEL", configured)
    box = EngineChoice.from_controls("openai", " ", "", "teacher_forced", 0.0, 1.0, 0, 64, None)
    play = Purpose.PLAYGROUND
    with build_context(data_dir=tmp_path, base_url=NO_SERVER) as context:
        # What `awp simulate/bench/rollout/env` pass: the flag as typed, None when left out.
        empty_flag = context.world_spec(play, engine="openai", model="")
        no_flag = context.world_spec(play, engine="openai", model=None)
        # What the Playground passes for a cleared model box (Futures and the arena alike).
        page = box.world(context.world_spec, play)
        engines = [context.simulator(spec).engine for spec in (empty_flag, no_flag, page)]

    assert empty_flag == no_flag == page.model_copy(update={"sampling": empty_flag.sampling})
    assert empty_flag.model == (configured or SERVER_CHOICE)
    assert [e.model for e in engines] == [configured] * 3


def test_a_named_model_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWP_MODEL", "served/model")
    with build_context(data_dir=tmp_path, base_url=NO_SERVER) as context:
        spec = context.world_spec(Purpose.PLAYGROUND, engine="openai", model="other/model")
        engine = context.simulator(spec).engine

    assert spec.model == engine.model == "other/model"


def test_the_judge_keeps_an_empty_model_as_its_engines_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWP_MODEL", "served/model")
    with build_context(data_dir=tmp_path, base_url=NO_SERVER, judge_engine="openai") as context:
        judge = context.judge()

    assert judge.engine.model == ""


@pytest.mark.parametrize("page_model", ["", " "])
def test_the_judge_reads_an_empty_model_one_way_on_every_edge(
    page_model: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The Benchmark page's judge menu sent "" (the engine's default) where `awp bench --judge`
    # sent None (AWP_MODEL): the same judge request graded with two models.
    monkeypatch.setenv("AWP_MODEL", "served/model")
    monkeypatch.setenv("AWP_ENGINE", "openai")
    with build_context(data_dir=tmp_path, base_url=NO_SERVER) as context:
        page = context.judge_spec("openai", page_model)
        cli = context.judge_spec("openai", None)
        button = context.judge_spec()
        engines = {context.judge("openai", model).engine.model for model in (page_model, None)}

    assert page == cli == button and page.model == "served/model"
    assert engines == {"served/model"}
