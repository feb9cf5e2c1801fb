"""Row-level work behind `SessionStore`: sessions, steps, predictions, scores, listing.

Each function runs inside a caller's transaction; `SessionStore` owns the transaction bounds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import delete, func, insert, select, tuple_, update
from sqlalchemy.orm import Session

from backend.errors import BadInputError, NotFoundError
from backend.recording import NewSession, ScoreLike, StepInput, StepRecord
from backend.types import HistoryMode, Prediction
from storage.convert import prediction_values, provenance_value, score_values
from storage.lineage import lineage_steps
from storage.models import Base, ObservationOrigin, ScoreRow, SessionRow, StepRow, utcnow
from storage.prompts import store_prompt, store_prompts
from storage.records import SessionSummary

# The recorder's hot path uses Core on the tables (no ORM unit of work): see insert_prediction.
SESSION, STEP = Base.metadata.tables["session"], Base.metadata.tables["step"]
PREDICTION, SCORE = Base.metadata.tables["prediction"], Base.metadata.tables["score"]


def check_origin(
    real_observation: str | None, origin: ObservationOrigin | str | None
) -> str | None:
    """Return the origin to store with an observation (None without one).

    Raises:
        BadInputError: an observation without an origin, or an unknown origin.

    """
    if real_observation is None:
        return None
    if origin is None:
        raise BadInputError("A real observation needs its origin: recorded, live or annotator.")
    try:
        return ObservationOrigin(origin).value
    except ValueError:
        valid = ", ".join(o.value for o in ObservationOrigin)
        raise BadInputError(f"Unknown observation origin {origin!r}; valid: {valid}.") from None


def get_session_row(session: Session, session_id: int) -> SessionRow:
    """Return a session row.

    Raises:
        NotFoundError: the session does not exist.

    """
    row = session.get(SessionRow, session_id)
    if row is None:
        raise NotFoundError(f"Session {session_id} does not exist.")
    return row


def insert_prediction(
    session: Session,
    step_id: int,
    prediction: Prediction,
    params: Mapping[str, Any],
    history_mode: str,
    scores: Sequence[ScoreLike],
) -> int:
    """Insert a prediction (with the exact chat it was made from) and its scores; returns its id.

    Core statements on the session's connection, not the ORM unit of work: the recorder's write
    path runs once per simulated step, and this cuts its cost by more than half.
    """
    connection = session.connection()
    values = prediction_values(step_id, prediction, params, history_mode)
    values["prompt"] = store_prompt(session, prediction.messages)
    prediction_id: int = connection.execute(
        insert(PREDICTION).returning(PREDICTION.c.id), values
    ).scalar_one()
    rows = score_values(prediction_id, scores)
    if rows:
        connection.execute(insert(SCORE), rows)
    return prediction_id


def insert_step(session: Session, session_id: int, step: StepInput) -> StepRecord:
    """Insert the next step of a session with its prediction and scores (index = last + 1).

    Raises:
        NotFoundError: the session does not exist.
        BadInputError: a real observation without a valid origin or without its provenance.

    """
    connection = session.connection()
    sessions, steps = SESSION.c, STEP.c
    origin = check_origin(step.real, step.origin)
    owner = connection.execute(
        select(sessions.branched_at, sessions.params, sessions.history_mode).where(
            sessions.id == session_id
        )
    ).first()
    if owner is None:
        raise NotFoundError(f"Session {session_id} does not exist.")
    last = connection.execute(
        select(func.max(steps.index)).where(steps.session_id == session_id)
    ).scalar()
    index = (owner.branched_at or 0) if last is None else last + 1
    now = utcnow()
    values = {
        "session_id": session_id,
        "index": index,
        "action": step.action,
        "real_observation": step.real,
        "origin": origin,
        "answered_by": step.answered_by,
        "provenance": provenance_value(step.real, step.provenance),
        "created_at": now,
    }
    step_id: int = connection.execute(insert(STEP).returning(steps.id), values).scalar_one()
    connection.execute(update(SESSION).where(sessions.id == session_id), {"updated_at": now})
    prediction_id = None
    if step.prediction is not None:
        params = step.params.model_dump() if step.params is not None else owner.params
        mode = HistoryMode(step.history_mode or owner.history_mode).value
        prediction_id = insert_prediction(
            session, step_id, step.prediction, params, mode, list(step.scores)
        )
    return StepRecord(
        session_id=session_id, step_id=step_id, prediction_id=prediction_id, index=index
    )


def insert_steps(session: Session, items: Sequence[tuple[int, StepInput]]) -> list[StepRecord]:
    """Insert the next step of each (session id, step), a few statements for the whole batch.

    What `insert_step` does one step at a time, set-wise: one read of the sessions and their
    last indices, one insert of the steps, one update of the sessions' times, one read and one
    insert of the prompt texts, one insert of the predictions and one of their scores. Steps of
    the same session take consecutive indices in the order given.

    Raises:
        NotFoundError: a session does not exist.
        BadInputError: a real observation without a valid origin.
    """
    if not items:
        return []
    connection = session.connection()
    sessions, steps = SESSION.c, STEP.c
    ids = sorted({session_id for session_id, _ in items})
    owners = {
        row.id: row
        for row in connection.execute(
            select(sessions.id, sessions.branched_at, sessions.params, sessions.history_mode).where(
                sessions.id.in_(ids)
            )
        )
    }
    missing = [session_id for session_id in ids if session_id not in owners]
    if missing:
        raise NotFoundError(f"Session {missing[0]} does not exist.")
    last = dict(
        connection.execute(
            select(steps.session_id, func.max(steps.index))
            .where(steps.session_id.in_(ids))
            .group_by(steps.session_id)
        ).all()
    )
    now = utcnow()
    rows, indices = [], []
    for session_id, step in items:
        previous = last.get(session_id)
        index = (owners[session_id].branched_at or 0) if previous is None else previous + 1
        last[session_id] = index
        indices.append(index)
        rows.append(
            {
                "session_id": session_id,
                "index": index,
                "action": step.action,
                "real_observation": step.real,
                "origin": check_origin(step.real, step.origin),
                "answered_by": step.answered_by,
                "provenance": provenance_value(step.real, step.provenance),
                "created_at": now,
            }
        )
    # No RETURNING: SQLite cannot promise its order over many rows, so each row's insert would
    # be a statement of its own. The new rows are read back by their unique (session, index).
    connection.execute(insert(STEP), rows)
    keys = [(row["session_id"], row["index"]) for row in rows]
    found = {
        (session_id, index): step_id
        for step_id, session_id, index in connection.execute(
            select(steps.id, steps.session_id, steps.index).where(
                tuple_(steps.session_id, steps.index).in_(keys)
            )
        )
    }
    step_ids = [found[key] for key in keys]
    connection.execute(update(SESSION).where(sessions.id.in_(ids)), {"updated_at": now})
    made = [(i, step) for i, (_, step) in enumerate(items) if step.prediction is not None]
    prompts = store_prompts(
        session, [step.prediction.messages for _, step in made if step.prediction]
    )
    values = []
    for (i, step), prompt in zip(made, prompts, strict=True):
        prediction = step.prediction
        if prediction is None:
            continue
        owner = owners[items[i][0]]
        params = step.params.model_dump() if step.params is not None else owner.params
        mode = HistoryMode(step.history_mode or owner.history_mode).value
        row = prediction_values(step_ids[i], prediction, params, mode)
        row["prompt"] = prompt
        values.append(row)
    prediction_ids: dict[int, int] = {}
    if values:
        connection.execute(insert(PREDICTION), values)
        # Each new step has exactly one prediction so far: its step id finds it.
        by_step = dict(
            connection.execute(
                select(PREDICTION.c.step_id, PREDICTION.c.id).where(
                    PREDICTION.c.step_id.in_([row["step_id"] for row in values])
                )
            ).all()
        )
        prediction_ids = {i: by_step[step_ids[i]] for i, _ in made}
        scores = [
            row for i, step in made for row in score_values(prediction_ids[i], list(step.scores))
        ]
        if scores:
            connection.execute(insert(SCORE), scores)
    return [
        StepRecord(
            session_id=session_id,
            step_id=step_ids[i],
            prediction_id=prediction_ids.get(i),
            index=indices[i],
        )
        for i, (session_id, _) in enumerate(items)
    ]


def insert_session(session: Session, new: NewSession, prediction: Prediction | None) -> int:
    """Insert the session `new` describes; engine and model default to the prediction's.

    Raises:
        NotFoundError: the parent of a branch does not exist.
        BadInputError: a branch point outside 0..number of steps the parent sees.

    """
    if new.parent_session_id is not None:
        get_session_row(session, new.parent_session_id)
        length = len(lineage_steps(session, new.parent_session_id, with_predictions=False))
        at = new.branched_at or 0
        if not 0 <= at <= length:
            raise BadInputError(f"A branch point must be between 0 and {length}; got {at}.")
    context = new.context.model_dump(exclude_none=True)
    row = SessionRow(
        domain=new.domain,
        engine=new.engine or (prediction.engine if prediction else ""),
        model=new.model or (prediction.model if prediction else ""),
        params=new.params.model_dump(),
        history_mode=HistoryMode(new.history_mode).value,
        system_prompt=new.system_prompt,
        initial_state=new.initial_state,
        task=new.context.task or "",
        prompt_context=context or None,
        kind=new.kind,
        owner=new.owner,
        base_trajectory_id=new.base_trajectory_id,
        bench_run_id=new.bench_run_id,
        parent_session_id=new.parent_session_id,
        branched_at=new.branched_at if new.parent_session_id is not None else None,
        complete=new.complete,
        world=new.world.stored() if new.world is not None else None,
    )
    session.add(row)
    session.flush()
    return row.id


def replace_scores(session: Session, prediction_id: int, scores: Sequence[ScoreLike]) -> None:
    """Store scores for a prediction, replacing those with the same name and version."""
    rows = score_values(prediction_id, scores)
    for row in rows:
        session.execute(
            delete(ScoreRow).where(
                ScoreRow.prediction_id == prediction_id,
                ScoreRow.name == row["name"],
                ScoreRow.version == row["version"],
            )
        )
    if rows:
        session.execute(insert(ScoreRow), rows)


def session_summaries(
    session: Session,
    domain: str | None,
    owner: str | None,
    limit: int,
    offset: int,
    bench_run_id: int | None = None,
) -> list[SessionSummary]:
    """Most recently active sessions first; `steps` counts each session's own steps."""
    counts = (
        select(StepRow.session_id, func.count(StepRow.id).label("n"))
        .group_by(StepRow.session_id)
        .subquery()
    )
    query = select(SessionRow, func.coalesce(counts.c.n, 0)).outerjoin(
        counts, counts.c.session_id == SessionRow.id
    )
    if domain is not None:
        query = query.where(SessionRow.domain == domain)
    if owner is not None:
        query = query.where(SessionRow.owner == owner)
    if bench_run_id is not None:
        query = query.where(SessionRow.bench_run_id == bench_run_id)
    query = query.order_by(SessionRow.updated_at.desc(), SessionRow.id.desc())
    return [
        SessionSummary(
            id=row.id,
            domain=row.domain,
            kind=row.kind,
            engine=row.engine,
            model=row.model,
            history_mode=row.history_mode,
            owner=row.owner,
            parent_session_id=row.parent_session_id,
            steps=steps,
            created_at=row.created_at,
            updated_at=row.updated_at,
            complete=row.complete,
        )
        for row, steps in session.execute(query.limit(limit).offset(offset))
    ]
