"""The record of each run kind: how it spells its `spec` and reads its `results`.

One class per kind, so a page asks the one `RunStore` for `BenchRun`s or `TrainRun`s and gets
typed fields back, and the kind's spec is written in one place for every edge that starts one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from storage.models import RunKind
from storage.runs import RunRecord

if TYPE_CHECKING:
    from backend.benchmark.results import BenchResults
    from backend.spec import WorldSpec


@dataclass(frozen=True)
class BenchRun(RunRecord):
    """A benchmark run: `results` is its `results.json` (`BenchResults`) once finished.

    `done` and `failures` count predictions (one per engine and item), as `results.json` does.
    """

    kind: ClassVar[RunKind] = RunKind.BENCH
    label: ClassVar[str] = "Benchmark run"

    @staticmethod
    def new_spec(
        dataset: str,
        engines: Sequence[str],
        judge: str | None,
        worlds: Sequence[WorldSpec] = (),
        judge_world: WorldSpec | None = None,
    ) -> dict[str, Any]:
        """What a benchmark run asks: the dataset, its engines in order and the judge.

        `worlds` are the engines' resolved world specs (in engine order) and `judge_world` the
        judge's, stored so the run states what it measured (grounding, record answers, ...).
        """
        return {
            "dataset": dataset,
            "engines": list(engines),
            "judge": judge,
            "world": [world.stored() for world in worlds],
            "judge_world": judge_world.stored() if judge_world is not None else None,
        }

    @staticmethod
    def outcome(results: BenchResults) -> tuple[dict[str, Any], int, int]:
        """What a finished run keeps: `results.json`, predictions made and predictions failed."""
        stats = results.engines.values()
        return (
            results.model_dump(mode="json"),
            sum(engine.items for engine in stats),
            sum(engine.failures for engine in stats),
        )

    @classmethod
    def interrupted_message(cls, out_dir: str | None, cause: str = "Interrupted") -> str:
        """Its folder holds every finished item, so the run can be continued."""
        return f"{cause}; `awp bench --resume --out {out_dir}` continues it."

    @property
    def dataset(self) -> str:
        """`bundled` or the dataset path the run reads."""
        return str(self.spec["dataset"])

    @property
    def engines(self) -> list[str]:
        """Engine names, in the order the results list them."""
        return [str(name) for name in self.spec["engines"]]

    @property
    def judge(self) -> str | None:
        """The judge engine, or None when predictions are not judged."""
        judge = self.spec.get("judge")
        return None if judge is None else str(judge)

    def overall_macro(self) -> dict[str, float | None]:
        """Each engine's macro Overall of its headline metric (empty until finished)."""
        engines = self.results.get("engines", {})
        return {name: stats["headline_overall"]["macro"] for name, stats in engines.items()}


@dataclass(frozen=True)
class TrainRun(RunRecord):
    """A training run: `done`/`total` are steps; each logged step's loss is a point."""

    kind: ClassVar[RunKind] = RunKind.TRAIN
    label: ClassVar[str] = "Training run"

    @classmethod
    def interrupted_message(cls, out_dir: str | None, cause: str = "Interrupted") -> str:
        """Its folder holds the checkpoints (one is saved on Cancel), so it can be continued."""
        return (
            f"{cause}; `awp train --resume --out {out_dir}` (with the same options) continues "
            "it from its last checkpoint."
        )

    @staticmethod
    def new_spec(
        method: str,
        data_source: str,
        base_model: str,
        hyper_params: Mapping[str, Any],
        eval_world: WorldSpec | None = None,
    ) -> dict[str, Any]:
        """What a training run asks: method, data, base model and its `TrainConfig`.

        `eval_world` is the before/after evaluation's world spec (the base model's), stored as
        the run's one world.
        """
        return {
            "method": method,
            "data_source": data_source,
            "base_model": base_model,
            "hyper_params": dict(hyper_params),
            "world": [eval_world.stored()] if eval_world is not None else [],
        }

    @staticmethod
    def new_results(
        data_hash: str, eval_table: Mapping[str, Any], model_dir: str, tokens_per_s: float | None
    ) -> dict[str, Any]:
        """What a finished training run keeps: its data's hash, before/after table and model."""
        return {
            "data_hash": data_hash,
            "eval_table": dict(eval_table),
            "model_dir": model_dir,
            "tokens_per_s": tokens_per_s,
        }

    @property
    def method(self) -> str:
        """The training method (sft, dpo, ...)."""
        return str(self.spec["method"])

    @property
    def data_source(self) -> str:
        """`recorded`, `corrections` or an export file."""
        return str(self.spec["data_source"])

    @property
    def hyper_params(self) -> dict[str, Any]:
        """The run's `TrainConfig`."""
        return dict(self.spec.get("hyper_params", {}))

    @property
    def losses(self) -> list[tuple[int, float]]:
        """The loss curve: (step, loss) of every logged step that had one."""
        return [
            (int(point["done"]), float(point["loss"]))
            for point in self.points
            if point.get("loss") is not None
        ]

    @property
    def tokens_per_s(self) -> float | None:
        """The final speed once finished, else the latest logged one."""
        if "tokens_per_s" in self.results:
            return _float(self.results["tokens_per_s"])
        rates = [point["tokens_per_s"] for point in self.points if point.get("tokens_per_s")]
        return _float(rates[-1]) if rates else None

    @property
    def eval_table(self) -> dict[str, Any]:
        """The before/after table (`EvalTable`), empty until finished."""
        return dict(self.results.get("eval_table", {}))

    @property
    def model_dir(self) -> str | None:
        """The trained model's folder, once finished."""
        model_dir = self.results.get("model_dir")
        return None if model_dir is None else str(model_dir)


@dataclass(frozen=True)
class RolloutRun(RunRecord):
    """A rollout run: `done`/`total` are episodes; `results` is its `summary.json` (`Summary`)."""

    kind: ClassVar[RunKind] = RunKind.ROLLOUT
    label: ClassVar[str] = "Rollout run"

    @staticmethod
    def new_spec(
        domains: Sequence[str],
        agent: str,
        world: str,
        env: str,
        episodes: int,
        reward: str,
        tasks: str,
        max_steps: int,
        world_spec: WorldSpec | None = None,
    ) -> dict[str, Any]:
        """What a rollout asks: domains, agent, world model, env backing, episodes and limits.

        `world` names the world model (ENGINE:MODEL); its resolved spec, when the simulator has
        one, is stored under `world_model` and as the run's one world (`spec["world"]`).
        """
        return {
            "domains": list(domains),
            "agent": agent,
            "world_model": world,
            "world": [world_spec.stored()] if world_spec is not None else [],
            "env": env,
            "episodes": episodes,
            "reward": reward,
            "tasks": tasks,
            "max_steps": max_steps,
        }

    @property
    def domains(self) -> list[str]:
        """The domains its episodes ran in."""
        return [str(name) for name in self.spec["domains"]]

    @property
    def agent(self) -> str:
        """`replay` or the agent's engine and model."""
        return str(self.spec["agent"])

    @property
    def world(self) -> str:
        """The world model's engine and model (runs stored before specs kept it under `world`)."""
        named = self.spec.get("world_model", self.spec.get("world"))
        return named if isinstance(named, str) else ""

    @property
    def env(self) -> str:
        """sim, live or shadow."""
        return str(self.spec["env"])

    def mean_reward(self) -> float | None:
        """Mean reward over its episodes, weighted by each domain's count (None until finished)."""
        domains = self.results.get("domains", {})
        counts = sum(figures["episodes"] for figures in domains.values())
        if not counts:
            return None
        total = sum(figures["mean_reward"] * figures["episodes"] for figures in domains.values())
        return float(total) / counts


def _float(value: Any) -> float | None:
    return None if value is None else float(value)
