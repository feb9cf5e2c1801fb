"""Votes on "Which one is real?" items and arena battles: what to show next, storing, counting.

Items go to whoever has voted least on them first (and never twice to one voter), until
`overlap` people voted on each, the same rule as the annotation queue. Reports read counts
grouped in SQL (`real_counts`, `battle_counts`), so 100,000 votes cost one GROUP BY each.
"""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy import and_, case, exists, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased
from sqlalchemy.sql import ColumnElement, Select

from backend.compare.report import BattleCount, PairAgreementCount, RealCount
from backend.engines.base import reference_answerers
from backend.errors import BadInputError, ConflictError
from backend.trust import ANONYMOUS
from backend.types import EXACT_ANSWERERS
from storage.arena_items import (
    ArenaPair,
    RealItem,
    arena_pair,
    item_key,
    prediction_row,
    step_context,
)
from storage.db import SessionFactory, session_scope
from storage.models import (
    AnnotatorRow,
    ArenaVoteRow,
    PredictionRow,
    RealOrNotVoteRow,
    SessionKind,
    SessionRow,
    StepRow,
)
from storage.models.arena import ARENA_OUTCOMES, REAL_CHOICES
from storage.upsert import ensure_annotator, find_annotator

REAL_ORIGINS = ("recorded", "live")
"""A real state written by an annotator is an edited prediction, not reality: never shown."""


def not_a_model() -> tuple[str, ...]:
    """The engines that return the real state itself, where asking which copy is real means nothing.

    They are the engines whose capabilities say they answer with the reference (the oracle) and
    the exact answerers.
    """
    return (*reference_answerers(), *EXACT_ANSWERERS)


def _count(condition: ColumnElement[bool]) -> ColumnElement[Any]:
    """How many rows of a group meet `condition`."""
    return func.sum(case((condition, 1), else_=0))


class ArenaStore:
    """Stores and counts votes; picks what a voter sees next.

    Args:
        factory: the session factory of a `storage.db.Database`.
        overlap: how many different people vote on each item before it stops being offered.
        rng: draws which side the real observation is shown on.
        signed_in_only: the reports count only signed-in people's votes (and the judge's);
            anonymous ones are still stored, and count again when this is switched off.
    """

    def __init__(
        self,
        factory: SessionFactory,
        overlap: int = 1,
        rng: random.Random | None = None,
        *,
        signed_in_only: bool = False,
    ) -> None:
        self._factory = factory
        self.overlap = overlap
        self._rng = rng or random.Random()
        self.signed_in_only = signed_in_only

    def _counted(self, query: Select, vote: type[RealOrNotVoteRow] | type[ArenaVoteRow]) -> Select:
        """`query` over the votes the reports count (without anonymous ones where so set)."""
        if not self.signed_in_only:
            return query
        anonymous = select(AnnotatorRow.id).where(
            AnnotatorRow.id == vote.voter_id,
            or_(AnnotatorRow.name == ANONYMOUS, AnnotatorRow.name.startswith(f"{ANONYMOUS}-")),
        )
        return query.where(or_(vote.source != "human", ~exists(anonymous)))

    def _real_candidates(self, me: int | None, domain: str | None) -> Select:
        votes = (
            select(func.count(RealOrNotVoteRow.id))
            .where(
                RealOrNotVoteRow.prediction_id == PredictionRow.id,
                RealOrNotVoteRow.source == "human",
            )
            .scalar_subquery()
        )
        query = (
            select(PredictionRow.id)
            .join(StepRow, StepRow.id == PredictionRow.step_id)
            .join(SessionRow, SessionRow.id == StepRow.session_id)
            .where(
                StepRow.real_observation.is_not(None),
                StepRow.origin.in_(REAL_ORIGINS),
                PredictionRow.engine.not_in(not_a_model()),
                votes < self.overlap,
            )
        )
        if domain:
            query = query.where(SessionRow.domain == domain)
        if me is not None:
            query = query.where(~exists(self._voted_item(me)))
        return query.order_by(votes, func.random())

    @staticmethod
    def _voted_item(me: int) -> Select:
        """`me`'s votes on the candidate's item: the same recorded step, engine and model.

        The database's one-vote rule is per `item_key` (`storage.arena_items.item_key`), not
        per prediction: another prediction of a step `me` voted on (another session replaying
        the same recording) is the same item, and offering it only got the vote refused.
        """
        step, owner = aliased(StepRow), aliased(SessionRow)
        same_origin = or_(
            owner.base_trajectory_id == SessionRow.base_trajectory_id,
            and_(
                owner.base_trajectory_id.is_(None),
                SessionRow.base_trajectory_id.is_(None),
                owner.id == SessionRow.id,
            ),
        )
        voted = aliased(PredictionRow)
        return (
            select(RealOrNotVoteRow.id)
            .join(voted, voted.id == RealOrNotVoteRow.prediction_id)
            .join(step, step.id == voted.step_id)
            .join(owner, owner.id == step.session_id)
            .where(
                RealOrNotVoteRow.voter_id == me,
                RealOrNotVoteRow.engine == PredictionRow.engine,
                RealOrNotVoteRow.model == PredictionRow.model,
                owner.domain == SessionRow.domain,
                step.index == StepRow.index,
                step.action == StepRow.action,
                same_origin,
            )
        )

    def next_real(self, voter: str, domain: str | None = None) -> RealItem | None:
        """The next "Which one is real?" item for `voter`, the real side drawn at random."""
        with session_scope(self._factory) as session:
            me = find_annotator(session, voter)
            prediction_id = session.scalar(self._real_candidates(me, domain).limit(1))
        if prediction_id is None:
            return None
        return self.real_item(prediction_id, self._rng.choice("AB"))

    def count_real(self, voter: str, domain: str | None = None) -> int:
        """How many items `voter` could still vote on."""
        with session_scope(self._factory) as session:
            me = find_annotator(session, voter)
            query = self._real_candidates(me, domain).order_by(None).subquery()
            return session.scalar(select(func.count()).select_from(query)) or 0

    def real_item(self, prediction_id: int, real_side: str) -> RealItem:
        """A prediction as a "Which one is real?" item.

        Raises:
            NotFoundError: the prediction does not exist.
            BadInputError: its step has no real observation to compare with.
        """
        with session_scope(self._factory) as session:
            row = prediction_row(session, prediction_id)
            context = step_context(session, row.step)
            if context.real is None:
                raise BadInputError(f"Prediction {prediction_id}'s step has no real observation.")
            return RealItem(
                prediction_id, context, row.observation, row.engine, row.model, real_side
            )

    def vote_real(
        self,
        item: RealItem,
        voter: str,
        choice: str,
        confidence: int | None,
        source: str = "human",
    ) -> bool:
        """Store a vote; returns whether the voter found the real observation.

        Raises:
            BadInputError: an unknown choice or a confidence outside 1-3.
            ConflictError: `voter` already voted on this prediction; nothing was stored.
        """
        if choice not in REAL_CHOICES:
            raise BadInputError(f"Pick A, B or cannot_tell, not {choice!r}.")
        if confidence is not None and not 1 <= confidence <= 3:
            raise BadInputError("Confidence is 1 (guessing), 2 (fairly sure) or 3 (certain).")
        row = RealOrNotVoteRow(
            prediction_id=item.prediction_id,
            source=source,
            domain=item.context.domain,
            engine=item.engine,
            model=item.model,
            real_side=item.real_side,
            choice=choice,
            confidence=confidence,
        )
        parts = (item.engine, item.model)
        self._insert(row, voter, f"{voter} already voted on this step of {item.model}.", parts)
        return choice == item.real_side

    def real_counts(self) -> list[RealCount]:
        """Votes per source, engine, model and domain (one GROUP BY)."""
        vote = RealOrNotVoteRow
        unsure = vote.choice == "cannot_tell"
        query = (
            select(
                vote.source,
                vote.engine,
                vote.model,
                vote.domain,
                _count(and_(~unsure, vote.choice != vote.real_side)),
                _count(unsure),
                _count(vote.choice == vote.real_side),
            )
            .group_by(vote.source, vote.engine, vote.model, vote.domain)
            .order_by(vote.source, vote.engine, vote.model, vote.domain)
        )
        query = self._counted(query, vote)
        with session_scope(self._factory) as session:
            return [
                RealCount(s, e, m, d, int(f or 0), int(c or 0), int(p or 0))
                for s, e, m, d, f, c, p in session.execute(query)
            ]

    def _pairs(self, domain: str | None) -> Select:
        """Arena battles: steps of arena sessions with their first and last prediction."""
        query = (
            select(
                func.min(PredictionRow.id).label("a"),
                func.max(PredictionRow.id).label("b"),
            )
            .join(StepRow, StepRow.id == PredictionRow.step_id)
            .join(SessionRow, SessionRow.id == StepRow.session_id)
            .where(SessionRow.kind == SessionKind.ARENA.value)
            .group_by(PredictionRow.step_id)
            .having(func.count(PredictionRow.id) >= 2)
        )
        if domain:
            query = query.where(SessionRow.domain == domain)
        return query

    def open_pair(self, voter: str, domain: str | None = None) -> ArenaPair | None:
        """A stored battle `voter` has not voted on and fewer than `overlap` people have."""
        pairs = self._pairs(domain).subquery()
        on_pair = (ArenaVoteRow.prediction_a == pairs.c.a, ArenaVoteRow.prediction_b == pairs.c.b)
        human = (
            select(func.count(ArenaVoteRow.id))
            .where(*on_pair, ArenaVoteRow.source == "human")
            .scalar_subquery()
        )
        with session_scope(self._factory) as session:
            me = find_annotator(session, voter)
            query = select(pairs.c.a, pairs.c.b).where(human < self.overlap)
            if me is not None:
                mine = select(ArenaVoteRow.id).where(*on_pair, ArenaVoteRow.voter_id == me)
                query = query.where(~exists(mine))
            found = session.execute(query.order_by(human, pairs.c.a)).first()
            return None if found is None else arena_pair(session, found.a, found.b)

    def pair(self, prediction_a: int, prediction_b: int) -> ArenaPair:
        """A stored battle by its two predictions."""
        with session_scope(self._factory) as session:
            return arena_pair(session, prediction_a, prediction_b)

    def vote_pair(self, pair: ArenaPair, voter: str, outcome: str, source: str = "human") -> None:
        """Store a vote on a battle.

        Raises:
            BadInputError: an unknown outcome.
            ConflictError: `voter` already voted on this battle; nothing was stored.
        """
        if outcome not in ARENA_OUTCOMES:
            raise BadInputError(f"Vote a, b, tie or both_bad, not {outcome!r}.")
        row = ArenaVoteRow(
            step_id=pair.context.step_id,
            prediction_a=pair.prediction_a,
            prediction_b=pair.prediction_b,
            source=source,
            domain=pair.context.domain,
            contender_a=pair.contender_a,
            contender_b=pair.contender_b,
            outcome=outcome,
        )
        contenders = tuple(sorted((pair.contender_a, pair.contender_b)))
        self._insert(row, voter, f"{voter} already voted on this battle.", contenders)

    def battle_counts(self) -> list[BattleCount]:
        """Votes per source, domain and ordered pairing (one GROUP BY)."""
        vote = ArenaVoteRow
        query = (
            select(
                vote.source,
                vote.domain,
                vote.contender_a,
                vote.contender_b,
                _count(vote.outcome == "a"),
                _count(vote.outcome == "b"),
                _count(vote.outcome.in_(("tie", "both_bad"))),
            )
            .group_by(vote.source, vote.domain, vote.contender_a, vote.contender_b)
            .order_by(vote.source, vote.domain, vote.contender_a, vote.contender_b)
        )
        query = self._counted(query, vote)
        with session_scope(self._factory) as session:
            return [
                BattleCount(s, d, a, b, int(x or 0), int(y or 0), int(t or 0))
                for s, d, a, b, x, y, t in session.execute(query)
            ]

    def judge_human_counts(self) -> list[PairAgreementCount]:
        """Per domain: battles decided (A or B) by a person and the judge, and how many alike."""
        human, judge = aliased(ArenaVoteRow), aliased(ArenaVoteRow)
        query = (
            select(human.domain, func.count(), _count(human.outcome == judge.outcome))
            .join(
                judge,
                and_(
                    judge.prediction_a == human.prediction_a,
                    judge.prediction_b == human.prediction_b,
                    judge.source == "judge",
                ),
            )
            .where(human.source == "human", human.outcome.in_(("a", "b")))
            .group_by(human.domain)
            .order_by(human.domain)
        )
        with session_scope(self._factory) as session:
            rows = session.execute(query)
            return [PairAgreementCount(d, int(n), int(s or 0)) for d, n, s in rows]

    def pairs_to_judge(
        self, judge: str, domain: str | None = None, limit: int | None = None
    ) -> list[ArenaPair]:
        """Battles people voted on that the judge called `judge` has not, oldest first."""
        pairs = self._pairs(domain).subquery()
        voted = select(ArenaVoteRow.id).where(
            ArenaVoteRow.prediction_a == pairs.c.a, ArenaVoteRow.prediction_b == pairs.c.b
        )
        with session_scope(self._factory) as session:
            me = find_annotator(session, judge)
            query = select(pairs.c.a, pairs.c.b).where(
                exists(voted.where(ArenaVoteRow.source == "human"))
            )
            if me is not None:
                query = query.where(~exists(voted.where(ArenaVoteRow.voter_id == me)))
            found = session.execute(query.order_by(pairs.c.a).limit(limit)).all()
            return [arena_pair(session, a, b) for a, b in found]

    def _insert(
        self,
        row: RealOrNotVoteRow | ArenaVoteRow,
        voter: str,
        twice: str,
        parts: tuple[str, ...],
    ) -> None:
        """Store `row` under `voter`; the unique (item, voter) pair refuses a second vote.

        Concurrent duplicates meet the same constraint: the first commit wins, the others are
        told `twice`.
        """
        try:
            with session_scope(self._factory) as session:
                row.voter_id = ensure_annotator(session, voter)
                step_id = (
                    row.step_id
                    if isinstance(row, ArenaVoteRow)
                    else prediction_row(session, row.prediction_id).step_id
                )
                row.item_key = item_key(session, step_id, *parts)
                session.add(row)
        except IntegrityError:
            raise ConflictError(f"{twice} Nothing was stored.") from None
