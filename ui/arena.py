"""The services behind "Which one is real?" and the Arena page.

A battle is one recorded step (a random turn of a stored recording) that two contenders predict.
Its predictions go through the one step path: each contender's is one batched step
(`step_batch`), scored once against the recording's real next state, and `record_samples`
stores both as two predictions of one step in a new `arena` session (the recording's earlier
turns as its history).
A battle that fewer than `AWP_ANNOTATION_OVERLAP` people voted on is offered to others first, so
a study with overlap 2 or 3 measures people against each other on the same battles.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from backend.benchmark.items import BenchItem, items_from_trajectories
from backend.compare.contenders import Contender, draw_pair
from backend.compare.report import ArenaReport, arena_report
from backend.engines.base import engine_spec
from backend.errors import NotFoundError
from backend.jobs import carried, current_job
from backend.recording import NewSession
from backend.spec import Purpose
from backend.stepping import Sample, record_samples, step_batch
from backend.types import SimRequest
from storage.arena_items import ArenaPair, RealItem
from storage.models import SessionKind
from ui.services import Services

TRAJECTORY_SAMPLE = 500
"""How many stored recordings a battle's step is drawn from."""


def battle_budget(contenders: Sequence[Contender], requests: Sequence[SimRequest]) -> int | None:
    """What a battle's two predictions may decode in all: the bound of its honest ETA.

    A baseline contender decodes nothing, so its budget is no part of the bound (a battle of two
    baselines has none, and its line counts no tokens).
    """
    budgets = [
        request.params.max_new_tokens
        for contender, request in zip(contenders, requests, strict=True)
        if not engine_spec(contender.engine).baseline
    ]
    return sum(budgets) or None


class Arena:
    """Draws and stores battles, takes votes, reports.

    Args:
        services: the app's services.
        rng: draws steps and contenders (seeded in tests).
    """

    def __init__(self, services: Services, rng: random.Random | None = None) -> None:
        self.services = services
        self.rng = rng or random.Random()

    def next_battle(self, voter: str, domain: str | None) -> ArenaPair:
        """A battle for `voter`: one others voted on too few times, else a fresh one.

        Raises:
            NotFoundError: no recording to draw a step from.
            EngineUnavailableError, EngineRequestError: a contender's engine failed.
        """
        return self.services.arena.open_pair(voter, domain) or self.fresh(voter, domain)

    def fresh(self, voter: str, domain: str | None) -> ArenaPair:
        """Draw a recorded step and two contenders; predict, score and store both."""
        item = self._recorded_step(domain)
        first, second = draw_pair(list(self.services.contenders), self.rng)
        requests = [self._request(item, contender) for contender in (first, second)]
        job = current_job()
        if job is not None:
            job.advance(0, battle_budget((first, second), requests))
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="awp-arena") as pool:
            futures = [
                pool.submit(carried(self._predict), contender, request)
                for contender, request in zip((first, second), requests, strict=True)
            ]
            samples = [future.result() for future in futures]
        target = NewSession.for_request(
            requests[0],
            SessionKind.ARENA.value,
            owner=voter,
            base_trajectory_id=item.trajectory_key,
        )
        first_out, second_out = record_samples(
            self.services.sessions, target, samples, item.history
        )
        return self.services.arena.pair(first_out.prediction_id, second_out.prediction_id)

    def vote(self, pair: ArenaPair, voter: str, outcome: str) -> None:
        """Store `voter`'s vote (a, b, tie, both_bad)."""
        self.services.arena.vote_pair(pair, voter, outcome)

    def report(self) -> ArenaReport:
        """The report over every vote stored."""
        store = self.services.arena
        return arena_report(
            store.real_counts(),
            store.battle_counts(),
            store.judge_human_counts(),
            self.services.bootstrap_rounds,
        )

    def next_real(self, voter: str, domain: str | None) -> RealItem | None:
        """The next "Which one is real?" item for `voter` (None when none is left)."""
        return self.services.arena.next_real(voter, domain)

    def _request(self, item: BenchItem, contender: Contender) -> SimRequest:
        defaults = self.services.defaults
        return item.request(contender.params(defaults.params), defaults.history_mode)

    def _predict(self, contender: Contender, request: SimRequest) -> Sample:
        services = self.services
        world = services.world_spec(
            Purpose.ARENA,
            engine=contender.engine,
            model=contender.model,
            sampling=request.params,
            history_mode=request.history_mode,
        )
        simulator = services.simulator(world)
        return step_batch(simulator, [request])[0][0]

    def _recorded_step(self, domain: str | None) -> BenchItem:
        stored = self.services.trajectories.list_trajectories(domain, limit=TRAJECTORY_SAMPLE)
        self.rng.shuffle(stored)
        for summary in stored:
            items = items_from_trajectories([self.services.trajectories.get(summary.id)])
            if items:
                return self.rng.choice(items)
        where = f"the {domain} domain" if domain else "any domain"
        raise NotFoundError(f"No stored recording of {where} has a step with a known real state.")
