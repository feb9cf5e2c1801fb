"""The Start page's embedded demo writes a few tokens, and its model warms before the click."""

from __future__ import annotations

from backend.engines.base import EngineConfig
from backend.engines.transformers_engine import TransformersEngine
from backend.types import SamplingParams
from ui.pages.start import DEMO_TOKENS, demo_choice
from ui.services import EngineChoice


def test_the_embedded_demo_caps_its_tokens_and_keeps_the_rest():
    configured = EngineChoice("transformers", params=SamplingParams(max_new_tokens=256, seed=7))
    capped = demo_choice(configured)
    assert capped.params.max_new_tokens == DEMO_TOKENS
    assert capped.params.seed == 7 and capped.engine == "transformers"
    small = EngineChoice("transformers", params=SamplingParams(max_new_tokens=8))
    assert demo_choice(small).params.max_new_tokens == 8  # a smaller budget stays


def test_warming_loads_a_stored_model_in_the_background_and_converts_nothing(
    tmp_path, tiny_model_dir
):
    missing = TransformersEngine(EngineConfig(data_dir=tmp_path))  # no embedded model here
    assert missing.warm() is False and not missing.ready
    assert not (tmp_path / "models").exists()  # nothing was converted to warm it
    engine = TransformersEngine(EngineConfig(model=str(tiny_model_dir), cpu_threads=1))
    assert engine.warm() is True
    assert engine.warm() is False  # one load at a time: the second finds it loading
    engine.prepare()  # waits for the background load, then has nothing left to do
    assert engine.ready and engine.warm() is False
