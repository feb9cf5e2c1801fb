"""Arena contenders: an engine, a model and a temperature, and how two are drawn for a battle.

"Two engines, two models of one engine, or one model at two temperatures" are all contenders:
a spec `engine[:model][@temperature]` names one (`transformers@1.2`, `openai:qwen3-8b`,
`persistence`). A stored prediction names its contender by `contender_label`, from what it
was made with, so votes count for what really ran whoever configured it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from backend.errors import BadInputError
from backend.types import SamplingParams

BASELINE_PREFIX = "baseline:"


@dataclass(frozen=True)
class Contender:
    """One side of a battle.

    Attributes:
        engine: engine registry name.
        model: model id ("" for the engine's configured one).
        temperature: sampling temperature (None for the configured one).
    """

    engine: str
    model: str = ""
    temperature: float | None = None

    @property
    def spec(self) -> str:
        """The spec text it was parsed from (normalised)."""
        model = f":{self.model}" if self.model else ""
        temperature = f"@{self.temperature:g}" if self.temperature is not None else ""
        return f"{self.engine}{model}{temperature}"

    def params(self, base: SamplingParams) -> SamplingParams:
        """The sampling parameters of its predictions."""
        if self.temperature is None:
            return base
        return base.model_copy(update={"temperature": self.temperature})


def parse_contender(spec: str) -> Contender:
    """A contender from `engine[:model][@temperature]`.

    Raises:
        BadInputError: an empty spec or a temperature that is not a number in [0, 2].
    """
    text = spec.strip()
    rest, _, temperature = text.partition("@")
    engine, _, model = rest.partition(":")
    if not engine.strip():
        raise BadInputError(f"Contender {spec!r} names no engine (engine[:model][@temperature]).")
    value: float | None = None
    if temperature.strip():
        try:
            value = float(temperature)
        except ValueError:
            value = -1.0
        if not 0.0 <= value <= 2.0:
            raise BadInputError(f"Contender {spec!r}: the temperature must be a number in [0, 2].")
    return Contender(engine.strip(), model.strip(), value)


def parse_contenders(text: str) -> list[Contender]:
    """Comma-separated specs; at least two distinct contenders.

    Raises:
        BadInputError: a bad spec, or fewer than two distinct contenders.
    """
    found: list[Contender] = []
    for spec in text.split(","):
        if spec.strip():
            contender = parse_contender(spec)
            if contender not in found:
                found.append(contender)
    if len(found) < 2:
        raise BadInputError(
            f"The arena needs at least two different contenders, got {text!r} "
            "(comma-separated engine[:model][@temperature])."
        )
    return found


def contender_label(engine: str, model: str, temperature: float | None) -> str:
    """How a prediction's contender is named in votes and leaderboards.

    Baselines are deterministic, so their temperature means nothing and is left out.
    """
    if model.startswith(BASELINE_PREFIX):
        return model
    shown = f"{engine}/{model}" if model else engine
    return shown if temperature is None else f"{shown} T={temperature:g}"


def draw_pair(contenders: list[Contender], rng: random.Random) -> tuple[Contender, Contender]:
    """Two different contenders in random order (each pairing and each side equally likely)."""
    first, second = rng.sample(contenders, 2)
    return first, second
