"""Migration 0004 maps old accept flags to verdicts by what each annotation holds, and back."""

from __future__ import annotations

from sqlalchemy import text

from backend.verdicts import Verdict
from storage.annotations import AnnotationInput, AnnotationStore
from storage.db import Database
from storage.migrate import downgrade, upgrade
from storage.sessions import SessionStore
from tests.support.sessions import SessionWriter

# (accept flag before 0004, correction) -> the verdict it becomes; predictions are "pred <i>".
LEGACY = [
    (True, "pred 0", "accept"),
    (True, "edited 1", "reject"),  # "accept" next to an edit: the edit is the truth
    (False, "pred 2", "cannot_tell"),  # a reject without a correction establishes nothing
    (None, "edited 3", "reject"),
    (None, "pred 4\n", "cannot_tell"),  # the untouched submit: no judgement at all
    (False, "edited 5", "reject"),
]


def test_legacy_flags_become_verdicts_and_go_back(database_url: str, make_prediction) -> None:
    upgrade(database_url)
    database = Database(database_url)
    writer = SessionWriter(SessionStore(database.session_factory))
    ids = [
        writer.add(f"a{i}", None, None, make_prediction(f"pred {i}")).prediction_id
        for i in range(len(LEGACY))
    ]
    store = AnnotationStore(database.session_factory)
    annotations = [
        store.submit(pid, "ann", AnnotationInput(verdict="cannot_tell", corrected_observation="v1"))
        for pid in ids
    ]
    # The first annotation's history: v1 wrote "v1" (a change), v2 the prediction itself.
    store.edit(annotations[0].annotation_id, AnnotationInput(verdict="accept"), 1, editor="ann")
    database.dispose()

    downgrade(database_url, "0003")
    database = Database(database_url)
    with database.engine.begin() as connection:
        for record, (accept, corrected, _) in zip(annotations, LEGACY, strict=True):
            connection.execute(
                text("UPDATE annotation SET accept = :a, corrected_observation = :c WHERE id = :i"),
                {"a": accept, "c": corrected, "i": record.annotation_id},
            )
        connection.execute(
            text("UPDATE annotation_edit SET accept = true WHERE annotation_id = :i"),
            {"i": annotations[0].annotation_id},
        )
    database.dispose()

    upgrade(database_url)
    database = Database(database_url)
    store = AnnotationStore(database.session_factory)
    assert [store.get(r.annotation_id).verdict for r in annotations] == [
        Verdict(verdict) for _, _, verdict in LEGACY
    ]
    history = store.history(annotations[0].annotation_id)
    assert [(h.corrected_observation, h.verdict) for h in history] == [
        ("v1", Verdict.REJECT),
        ("pred 0", Verdict.ACCEPT),
    ]
    database.dispose()

    downgrade(database_url, "0003")
    database = Database(database_url)
    with database.engine.connect() as connection:
        flags = connection.execute(text("SELECT accept FROM annotation ORDER BY id")).scalars()
        assert [None if f is None else bool(f) for f in flags] == [
            {"accept": True, "reject": False, "cannot_tell": None}[verdict]
            for _, _, verdict in LEGACY
        ]
    database.dispose()
