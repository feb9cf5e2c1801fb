"""The annotation rules on real databases: verdicts, ratings, the real state, imports, skips."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError

from backend.errors import BadInputError
from backend.verdicts import Verdict
from storage.annotations import (
    RULES,
    AnnotationInput,
    AnnotationQueue,
    AnnotationStore,
    QueueFilter,
    Ratings,
    explain,
    parse_import_file,
)
from storage.models import PredictionRow
from storage.sessions import SessionStore
from tests.support.sessions import SessionWriter

DIMENSIONS = ("format", "factuality", "consistency", "realism", "quality")
FULL = Ratings(**dict.fromkeys(DIMENSIONS, 2))


def blank_steps(database, make_prediction, n: int, real: str | None = None) -> list[int]:
    """`n` predictions "pred i" of steps nobody recorded (or all recorded as `real`)."""
    writer = SessionWriter(SessionStore(database.session_factory), initial_state="$ ")
    origin = "recorded" if real is not None else None
    records = [writer.add(f"act {i}", real, origin, make_prediction(f"pred {i}")) for i in range(n)]
    return [r.prediction_id for r in records if r.prediction_id is not None]


def real_state(database, prediction_id: int) -> tuple[str | None, str | None]:
    """The real observation of the step a prediction belongs to, and its origin."""
    with database.session_factory() as session:
        step = session.get(PredictionRow, prediction_id).step
        return step.real_observation, step.origin


def refusal(**fields: object) -> str:
    with pytest.raises(ValidationError) as caught:
        AnnotationInput(**fields)  # type: ignore[arg-type]
    return explain(caught.value)


def test_the_manual_states_the_rules_the_code_applies() -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "guide" / "annotate.md"
    quoted = " ".join(line.strip() for line in page.read_text("utf-8").splitlines())
    assert " ".join(RULES.split()) in " ".join(quoted.split())


def test_an_annotation_needs_a_verdict_and_whole_ratings() -> None:
    assert refusal(corrected_observation="x") == "no verdict: choose accept, reject or cannot tell"
    assert refusal(verdict=None) == "no verdict: choose accept, reject or cannot tell"
    assert "verdict: Input should be 'accept', 'reject' or 'cannot_tell'" in refusal(verdict="ok")
    assert refusal(verdict="accept", accept=True).startswith('"accept" is replaced by "verdict"')
    assert refusal(verdict="reject", ratings=FULL).startswith("a reject needs a corrected_obs")
    assert refusal(verdict="reject", corrected_observation="  ", ratings=FULL).startswith(
        "a reject needs a corrected_observation"
    )
    assert refusal(verdict="reject", corrected_observation="x") == (
        "a reject needs all five ratings (missing: format, factuality, consistency, realism, "
        "quality)"
    )
    assert refusal(verdict="accept", ratings=Ratings(format=5, quality=4)) == (
        "rate all five dimensions or none (missing: factuality, consistency, realism)"
    )
    assert AnnotationInput(verdict="accept").ratings == Ratings()
    assert AnnotationInput(verdict="cannot_tell", ratings=FULL).verdict is Verdict.CANNOT_TELL


def test_the_verdict_must_agree_with_the_correction(database, make_prediction) -> None:
    pid = blank_steps(database, make_prediction, 1)[0]
    store = AnnotationStore(database.session_factory)
    edited_accept = AnnotationInput(verdict="accept", corrected_observation="pred 0 but better")
    with pytest.raises(BadInputError, match="accept means the prediction is right as it stands"):
        store.submit(pid, "ann", edited_accept)
    for unchanged in ("pred 0", "  pred 0\n"):
        reject = AnnotationInput(verdict="reject", corrected_observation=unchanged, ratings=FULL)
        with pytest.raises(BadInputError, match="differs from the prediction"):
            store.submit(pid, "ann", reject)
    assert store.list_annotations() == []
    assert real_state(database, pid) == (None, None)  # nothing refused leaves a trace

    accepted = store.submit(
        pid, "ann", AnnotationInput(verdict="accept", corrected_observation="pred 0\n")
    )
    assert (accepted.verdict, accepted.corrected_observation) == (Verdict.ACCEPT, "pred 0")
    with pytest.raises(BadInputError, match="accept means"):
        store.edit(accepted.annotation_id, edited_accept, 1, editor="reviewer")
    assert store.get(accepted.annotation_id).version == 1


def test_only_an_established_truth_fills_an_unknown_real_state(database, make_prediction) -> None:
    unsure, accepted, rejected = blank_steps(database, make_prediction, 3)
    store = AnnotationStore(database.session_factory)
    store.submit(unsure, "ann", AnnotationInput(verdict="cannot_tell", corrected_observation="?"))
    assert real_state(database, unsure) == (None, None)
    store.submit(accepted, "ann", AnnotationInput(verdict="accept"))
    assert real_state(database, accepted) == ("pred 1", "annotator")
    reject = AnnotationInput(verdict="reject", corrected_observation="truth 2", ratings=FULL)
    store.submit(rejected, "ann", reject)
    assert real_state(database, rejected) == ("truth 2", "annotator")
    # A second opinion never replaces a real state that is already known.
    other = AnnotationInput(verdict="reject", corrected_observation="other view", ratings=FULL)
    store.submit(rejected, "bob", other)
    assert real_state(database, rejected) == ("truth 2", "annotator")


def test_a_recorded_real_state_is_never_replaced(database, make_prediction) -> None:
    pid = blank_steps(database, make_prediction, 1, real="recorded truth")[0]
    store = AnnotationStore(database.session_factory)
    store.submit(pid, "ann", AnnotationInput(verdict="accept"))
    assert real_state(database, pid) == ("recorded truth", "recorded")


def write_rows(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def test_import_lists_every_bad_row_and_writes_nothing(
    database, make_prediction, tmp_path: Path
) -> None:
    first, second = blank_steps(database, make_prediction, 2)
    ratings = dict.fromkeys(DIMENSIONS, 4)
    rows: list[object] = [
        {"prediction_id": first, "annotator": "cy", "verdict": "accept"},
        {"prediction_id": second, "annotator": "cy", "corrected_observation": "x"},
        {
            "prediction_id": second,
            "annotator": "cy",
            "verdict": "reject",
            "corrected_observation": "pred 1",
            "ratings": ratings,
        },
        {
            "prediction_id": second,
            "annotator": "cy",
            "verdict": "accept",
            "corrected_observation": "something else",
        },
        {"prediction_id": 99999, "annotator": "cy", "verdict": "cannot_tell"},
        {
            "prediction_id": second,
            "annotator": "cy",
            "verdict": "reject",
            "corrected_observation": "fixed",
            "ratings": {"format": 3},
        },
    ]
    # Rows that parse are checked against their predictions; the store lists those.
    path = write_rows(tmp_path / "rules.jsonl", [rows[0], rows[2], rows[3], rows[4]])
    store = AnnotationStore(database.session_factory)
    with pytest.raises(BadInputError) as refused:
        store.import_rows(parse_import_file(path))
    message = str(refused.value)
    assert message.startswith("3 bad rows; nothing was imported:")
    assert "line 2: a reject needs a correction that differs from the prediction" in message
    assert "line 3: accept means the prediction is right as it stands" in message
    assert "line 4: prediction 99999 does not exist" in message and "line 1" not in message
    assert store.list_annotations() == []
    assert real_state(database, first) == (None, None)  # the good row's truth was rolled back

    # Rows that do not parse are refused before the database is touched, each with its line.
    path = write_rows(tmp_path / "shape.jsonl", [rows[0], rows[1], rows[5]])
    with pytest.raises(BadInputError) as refused:
        parse_import_file(path)
    message = str(refused.value)
    assert "2 bad rows; nothing was imported" in message
    assert "line 2: no verdict: choose accept, reject or cannot tell" in message
    assert "line 3: a reject needs all five ratings (missing: factuality," in message

    fine = write_rows(tmp_path / "fine.jsonl", [rows[0]])
    assert store.import_rows(parse_import_file(fine)).created == 1
    assert real_state(database, first) == ("pred 0", "annotator")


def test_skip_sends_items_to_the_back_of_my_queue(database, make_prediction) -> None:
    ids = blank_steps(database, make_prediction, 7)
    queue = AnnotationQueue(database.session_factory)
    seen = []
    item = queue.claim_next("ann")
    for _ in range(5):
        seen.append(item.prediction_id)
        queue.skip(item.prediction_id, "ann")
        item = queue.claim_next("ann")
    assert seen == ids[:5] and len(set(seen)) == 5
    assert item.prediction_id == ids[5]
    # A fresh queue object (a page reload, a restart) keeps the order: it is stored.
    reloaded = AnnotationQueue(database.session_factory)
    assert [i.prediction_id for i in reloaded.pending("ann")] == [ids[5], ids[6], *ids[:5]]
    assert reloaded.claim_next("ann").prediction_id == ids[5]  # my own claim first
    store = AnnotationStore(database.session_factory)
    store.submit(ids[5], "ann", AnnotationInput(verdict="cannot_tell"))
    store.submit(ids[6], "ann", AnnotationInput(verdict="cannot_tell"))
    assert reloaded.claim_next("ann").prediction_id == ids[0]  # skipped ones come back, oldest
    reloaded.skip(ids[0], "ann")
    assert reloaded.claim_next("ann").prediction_id == ids[1]
    # Someone else's queue is not reordered by my skips.
    assert queue.claim_next("bob").prediction_id == ids[0]


def test_items_held_by_others_are_counted_with_their_expiry(database, make_prediction) -> None:
    ids = blank_steps(database, make_prediction, 3)
    queue = AnnotationQueue(database.session_factory, claim_ttl=timedelta(minutes=30))
    assert queue.held_elsewhere("ann").count == 0
    queue.claim(ids[0], "bob")
    short = AnnotationQueue(database.session_factory, claim_ttl=timedelta(minutes=5))
    short.claim(ids[1], "cy")
    queue.claim(ids[2], "ann")
    held = queue.held_elsewhere("ann")
    assert held.count == 2
    assert held.first_expiry is not None and held.last_expiry is not None
    assert timedelta(minutes=20) < held.last_expiry - held.first_expiry <= timedelta(minutes=25)
    assert queue.held_elsewhere("ann", QueueFilter(domain="web")).count == 0
    assert queue.held_elsewhere("newcomer").count == 3
