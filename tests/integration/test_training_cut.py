"""One history-cut rule: a cut training prompt is what the benchmark sends at the same budget.

For every domain, a bundled recording's longest turn is cut to a budget between its prompt with
no history (the last state shown as the current one) and its whole prompt. Training fits the
example (prompt plus target within the budget); the held-out benchmark fits the same turn's
item to the budget less the target (the benchmark sends no target) and sends it through the
simulator. The two chats must be the same, message for message: the first kept turn shows the
state before it, turns numbered from 1.
"""

from __future__ import annotations

from typing import Any

import pytest
from transformers import AutoTokenizer

from backend.benchmark.items import BenchItem
from backend.data.bundled import load_bundled
from backend.domains import BUILTIN, load_builtin_domains
from backend.domains.base import DOMAINS
from backend.domains.prompts import PromptLibrary
from backend.engines.base import EngineConfig, build_engine
from backend.history import drop_oldest
from backend.simulate import Simulator, canonical
from backend.training.examples import Example
from backend.training.methods import METHODS
from backend.training.sources import from_trajectories
from backend.training.truncate import count_tokens, fit_examples, fit_items, layout
from backend.types import HistoryMode, SamplingParams, SimRequest
from tests.support.tiny_model import qwen3_tokenizer_dir

PROMPTS = PromptLibrary()
load_builtin_domains()


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    return AutoTokenizer.from_pretrained(qwen3_tokenizer_dir())


def _request_of(item: BenchItem) -> SimRequest:
    return canonical(item.request(SamplingParams(), HistoryMode.TEACHER_FORCED))


def _longest_turn(domain: str) -> tuple[Example, BenchItem]:
    """The example with the most history in `domain`, and the benchmark item of the same turn."""
    trajectories = [t for t in load_bundled() if t.domain == domain]
    data = from_trajectories(trajectories, METHODS.get("sft"), PROMPTS.system_prompt)
    example = max(data.examples, key=lambda e: len(e.columns["prompt"]))
    (item,) = [
        i for i in data.items[example.group] if layout(_request_of(i)) == example.columns["prompt"]
    ]
    return example, item


def test_every_domain_is_checked() -> None:
    assert sorted(DOMAINS.names()) == sorted(BUILTIN)


@pytest.mark.parametrize("domain", DOMAINS.names())
def test_cut_training_prompt_is_what_the_benchmark_sends(domain: str, tokenizer: Any) -> None:
    example, item = _longest_turn(domain)
    prompt, target = example.columns["prompt"], example.columns["completion"]
    assert len(prompt) >= 5, "the recording needs two history turns to cut one"
    whole = count_tokens(tokenizer, [*prompt, *target])
    request = _request_of(item)
    bare = count_tokens(tokenizer, [*layout(drop_oldest(request, len(request.history))), *target])
    budget = (whole + bare) // 2
    assert bare < budget < whole

    (fitted,), report = fit_examples(tokenizer, [example], budget)
    assert report.cut == 1
    cut = fitted.columns["prompt"]
    target_tokens = count_tokens(tokenizer, [*cut, *target]) - count_tokens(tokenizer, cut)
    (benched,), item_report = fit_items(tokenizer, [item], budget - target_tokens)
    assert item_report.cut == 1

    simulator = Simulator(build_engine(EngineConfig(name="persistence")), PROMPTS)
    (sent,) = simulator.step_batch([benched.request(SamplingParams(), HistoryMode.TEACHER_FORCED)])
    assert cut == [m.model_dump() for m in sent.messages]
    assert cut[1]["content"].startswith("### Turn 1\n**Current State:**\n")
