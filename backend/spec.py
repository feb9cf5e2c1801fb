"""The world spec: everything that decides what a world model answers, resolved once per run.

A figure means something only with the world it was measured in: the engine and model, the
server, the sampling, whether real transitions were shown (grounding) or answered steps outright
(record answers), hybrid routing, the history rule and the context it was cut to. The
composition root (`app.context.AppContext.world_spec`) resolves one `WorldSpec` from the
settings and the request, for one purpose; the simulator is built from it, and every run and
session stores it, so the Benchmark page and `awp bench` given the same request store equal specs.

No field holds a sentinel meaning "the configured one": the root has already looked it up.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from backend.types import HistoryMode, SamplingParams

SERVER_CHOICE = "the server's first model"
"""The model of an OpenAI-compatible server that was given no model name: the engine asks the
server for its list and takes the first one at its first request."""


class Purpose(StrEnum):
    """What a world model is resolved for; measurement purposes get honest defaults.

    playground: a person exploring (the Playground, `awp simulate`, integrations);
    bench: a benchmark run; rollout: agent episodes; training_eval: a training run's
    before/after evaluation; integration: MCP, Inspect, OpenEnv and Gymnasium servers;
    arena: arena battles; judge: the rubric judge. (Many futures of a Playground state are the
    Playground's world.)
    """

    PLAYGROUND = "playground"
    BENCH = "bench"
    ROLLOUT = "rollout"
    TRAINING_EVAL = "training_eval"
    INTEGRATION = "integration"
    ARENA = "arena"
    JUDGE = "judge"


MEASURED = frozenset({Purpose.BENCH, Purpose.TRAINING_EVAL})
"""Purposes whose figures measure the model: grounding and record answers stay off unless asked,
whatever `AWP_GROUNDING` and `AWP_RECORD_ANSWERS` say (they are the Playground's defaults)."""

HistoryRule = Literal["cut_to_context", "as_sent"]
"""`cut_to_context`: the oldest history turns are left out when a prompt would not fit the
model's context (the engine knows its context); `as_sent`: prompts go as built, and one too
long is refused by the engine."""


class WorldSpec(BaseModel):
    """One world model's settings, resolved: what a run measured, stated on the run.

    Attributes:
        purpose: what it was resolved for.
        engine: the engine's registered name.
        model: the model id the engine runs (`SERVER_CHOICE` when a server picks it).
        base_url: the OpenAI-compatible server; None for engines that run without one.
        sampling: the sampling parameters of every step.
        history_mode: which observations the model sees as history.
        history_rule: how a prompt longer than the context is handled.
        context_tokens: the context it is cut to, where known before the first step (a
            configured `AWP_VLLM_MAX_MODEL_LEN`); None: the model's own, read at the first step.
        grounding: real transitions of other recordings are shown as demonstrations.
        grounding_k: the most demonstrations shown per step.
        grounding_tokens: their token budget.
        grounding_method: the similarity that ranks them.
        record_answers: a step that exactly matches a real transition is answered from it.
        hybrid: the domain's routing policy sends some actions to exact executors.
        hybrid_routes: who decides the routes (`domain_policy`: each domain's own; `none`).
        hybrid_min_confidence: a hybrid model answer below this confidence is replaced by the
            live environment's (0: never).
    """

    model_config = ConfigDict(frozen=True)

    purpose: Purpose
    engine: str = Field(min_length=1)
    model: str = Field(min_length=1)
    base_url: str | None = Field(default=None, min_length=1)
    sampling: SamplingParams
    history_mode: HistoryMode
    history_rule: HistoryRule
    context_tokens: int | None = Field(default=None, ge=1)
    grounding: bool
    grounding_k: int = Field(ge=1)
    grounding_tokens: int = Field(ge=1)
    grounding_method: str = Field(min_length=1)
    record_answers: bool
    hybrid: bool = False
    hybrid_routes: Literal["domain_policy", "none"] = "none"
    hybrid_min_confidence: float = Field(default=0.0, ge=0.0, le=1.0)

    def stored(self) -> dict[str, Any]:
        """The spec as JSON, with its digest: what `run.spec["world"]` and `session.world` hold."""
        return {**self.model_dump(mode="json"), "digest": self.digest()}

    def digest(self) -> str:
        """A short stable hash of every field: equal specs, equal digests, across processes."""
        text = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def describe(self) -> str:
        """The spec in words, as the Runs page shows it."""
        return describe(self.model_dump(mode="json"))


def parse_world(stored: Mapping[str, Any]) -> WorldSpec:
    """A stored spec (`WorldSpec.stored`) read back.

    Raises:
        pydantic.ValidationError: it is not a world spec.
    """
    return WorldSpec.model_validate({k: v for k, v in stored.items() if k != "digest"})


def _on(flag: Any) -> str:
    return "on" if flag else "off"


def describe(stored: Mapping[str, Any]) -> str:
    """A stored spec in words: "persistence · baseline:persistence, grounding off, ...".

    Reads the stored JSON, so a run stored before a field existed still reads (what it lacks
    is left out).
    """
    sampling = stored.get("sampling") or {}
    parts = [f"{stored.get('engine')} · {stored.get('model')}"]
    if stored.get("base_url"):
        parts.append(f"server {stored['base_url']}")
    if stored.get("grounding"):
        parts.append(
            f"grounding on (k={stored.get('grounding_k')}, {stored.get('grounding_tokens')} "
            f"tokens, {stored.get('grounding_method')})"
        )
    else:
        parts.append("grounding off")
    parts.append(f"record answers {_on(stored.get('record_answers'))}")
    if stored.get("hybrid"):
        parts.append(
            f"hybrid on (routes: {stored.get('hybrid_routes')}, min confidence "
            f"{stored.get('hybrid_min_confidence')})"
        )
    parts.append(str(stored.get("history_mode", "")).replace("_", "-") + " history")
    context = stored.get("context_tokens")
    rule = stored.get("history_rule")
    if rule == "cut_to_context":
        parts.append(f"cut to a context of {context} tokens" if context else "cut to context")
    elif rule:
        parts.append("history sent whole")
    if sampling:
        seed = sampling.get("seed")
        parts.append(
            f"temperature {sampling.get('temperature')}, top-p {sampling.get('top_p')}, top-k "
            f"{sampling.get('top_k')}, {sampling.get('max_new_tokens')} new tokens"
            + (f", seed {seed}" if seed is not None else "")
        )
    parts.append(f"for {stored.get('purpose')}")
    return ", ".join(parts)
