"""The honesty meter: does what passes in simulation pass in reality?

From sim-to-real episodes (each simulated episode's actions replayed live, `awp rollout
--sim-to-real`), per task and overall:
- the 2x2 of simulated against real outcome, both measured by the task's check (in simulation
  the check-as-action the world model predicts, `check_action`; in reality the live check), with
  the cell that matters named: passes in simulation, fails in reality;
- simulated against real episode reward, the check's reward on each side (1 pass, 0 fail;
  in reality the live environment's own reward, MiniWoB's partial credit included);
- per-step divergence: 1 - the headline score of the simulated observation against the real one;
- replay variance: the same actions replayed R times in simulation at the world's temperature,
  the spread (population standard deviation) of the episode reward and of the mean fidelity.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean, pstdev

from pydantic import BaseModel, Field

from backend.envs.sim.episode_rows import EpisodeRow

SIM_PASS_REAL_FAIL = "passes in simulation, fails in reality"


class Outcomes(BaseModel):
    """The 2x2 of simulated against real outcome, in episodes."""

    both_pass: int = 0
    sim_pass_real_fail: int = Field(default=0, description=SIM_PASS_REAL_FAIL)
    sim_fail_real_pass: int = 0
    both_fail: int = 0
    unknown: int = Field(default=0, description="Either outcome unknown (never checked).")

    @property
    def known(self) -> int:
        """Episodes whose both outcomes are known."""
        return self.both_pass + self.sim_pass_real_fail + self.sim_fail_real_pass + self.both_fail


class MeterRow(BaseModel):
    """One task's (or the whole run's) figures."""

    task: str
    episodes: int
    outcomes: Outcomes
    agreement: float | None = Field(description="Share of known episodes whose outcomes agree.")
    false_pass_rate: float | None = Field(
        description=f"Share of known episodes that {SIM_PASS_REAL_FAIL}."
    )
    sim_reward: float | None = Field(description="Mean simulated check reward.")
    real_reward: float | None = Field(description="Mean real check reward.")
    divergence: float | None = Field(description="Mean per-step divergence.")
    replay_reward_std: float | None = Field(description="Mean spread of replayed episode reward.")
    replay_fidelity_std: float | None = Field(description="Mean spread of replayed fidelity.")


class HonestyMeter(BaseModel):
    """The meter of a run: overall, then per task."""

    replays: int
    overall: MeterRow
    tasks: list[MeterRow]


def _mean(values: Sequence[float]) -> float | None:
    return fmean(values) if values else None


def _outcomes(rows: Sequence[EpisodeRow]) -> Outcomes:
    cells = Outcomes()
    for row in rows:
        sim, real = row.sim_check, row.real_success
        if sim is None or real is None:
            cells.unknown += 1
        elif sim and real:
            cells.both_pass += 1
        elif sim:
            cells.sim_pass_real_fail += 1
        elif real:
            cells.sim_fail_real_pass += 1
        else:
            cells.both_fail += 1
    return cells


def _spread(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return pstdev(known) if len(known) > 1 else None


def meter_row(task: str, rows: Sequence[EpisodeRow]) -> MeterRow:
    """The figures of `rows` (one task's episodes, or all)."""
    cells = _outcomes(rows)
    known = cells.known
    steps = [step for row in rows for step in row.steps]
    reward_spreads = [s for row in rows if (s := _spread(row.replay_rewards)) is not None]
    fidelity_spreads = [s for row in rows if (s := _spread(row.replay_fidelity)) is not None]
    return MeterRow(
        task=task,
        episodes=len(rows),
        outcomes=cells,
        agreement=(cells.both_pass + cells.both_fail) / known if known else None,
        false_pass_rate=cells.sim_pass_real_fail / known if known else None,
        sim_reward=_mean([float(row.sim_check) for row in rows if row.sim_check is not None]),
        real_reward=_mean([row.real_reward for row in rows if row.real_reward is not None]),
        divergence=_mean([s.divergence for s in steps if s.divergence is not None]),
        replay_reward_std=_mean(reward_spreads),
        replay_fidelity_std=_mean(fidelity_spreads),
    )


def honesty_meter(rows: Sequence[EpisodeRow], replays: int = 0) -> HonestyMeter | None:
    """The meter of sim-to-real episodes (None when no episode was replayed live)."""
    replayed = [
        row for row in rows if row.real_session_id is not None or row.real_reward is not None
    ]
    if not replayed:
        return None
    tasks = sorted({row.start for row in replayed})
    return HonestyMeter(
        replays=replays,
        overall=meter_row("all", replayed),
        tasks=[meter_row(task, [r for r in replayed if r.start == task]) for task in tasks],
    )


METER_HEADERS = [
    "task",
    "episodes",
    "sim pass, real pass",
    SIM_PASS_REAL_FAIL,
    "sim fail, real pass",
    "sim fail, real fail",
    "unknown",
    "agreement",
    "sim reward",
    "real reward",
    "divergence",
    "replay reward sd",
    "replay fidelity sd",
]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def meter_table(meter: HonestyMeter) -> list[list[object]]:
    """The meter as table rows under `METER_HEADERS`, overall first."""
    return [
        [
            row.task,
            row.episodes,
            row.outcomes.both_pass,
            row.outcomes.sim_pass_real_fail,
            row.outcomes.sim_fail_real_pass,
            row.outcomes.both_fail,
            row.outcomes.unknown,
            _round(row.agreement),
            _round(row.sim_reward),
            _round(row.real_reward),
            _round(row.divergence),
            _round(row.replay_reward_std),
            _round(row.replay_fidelity_std),
        ]
        for row in [meter.overall, *meter.tasks]
    ]
