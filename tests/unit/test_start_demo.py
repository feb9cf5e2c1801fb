"""The Start page's embedded demo writes a few tokens, whatever the configured budget."""

from __future__ import annotations

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
