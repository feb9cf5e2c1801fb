"""The Agreement page's confidence AUROC: against people's verdicts and against headline >= 0.5."""

from __future__ import annotations

from collections.abc import Callable

from backend.scoring import MetricResult, headline_metric
from backend.scoring.base import METRICS
from backend.types import Prediction
from backend.verdicts import Verdict
from storage.agreement import agreement
from storage.annotations import AnnotationInput, AnnotationStore, Ratings
from storage.sessions import SessionStore
from tests.support.sessions import SessionWriter

TERMINAL = headline_metric("terminal")
RATED = Ratings(format=2, factuality=1, consistency=2, realism=2, quality=1)


def test_confidence_is_measured_against_verdicts_and_headlines(
    database, make_prediction: Callable[..., Prediction]
) -> None:
    writer = SessionWriter(SessionStore(database.session_factory), "terminal", "fake", "m")
    version = METRICS.get(TERMINAL).version
    annotations = AnnotationStore(database.session_factory)
    # (confidence, headline, verdict): confidence ranks the accepted and the good ones first,
    # but one bad prediction is confident
    cases = [
        (0.9, 0.9, Verdict.ACCEPT),
        (0.8, 0.2, Verdict.REJECT),
        (0.7, 0.8, Verdict.ACCEPT),
        (0.1, 0.1, Verdict.REJECT),
        (None, 0.0, Verdict.REJECT),
    ]
    for i, (confidence, headline, verdict) in enumerate(cases):
        made = make_prediction(f"pred {i}").model_copy(update={"confidence": confidence})
        record = writer.add(
            f"act {i}",
            f"real {i}",
            "recorded",
            made,
            [MetricResult(name=TERMINAL, version=version, value=headline)],
        )
        answer = (
            AnnotationInput(verdict=verdict)
            if verdict is Verdict.ACCEPT
            else AnnotationInput(verdict=verdict, corrected_observation="fixed", ratings=RATED)
        )
        annotations.submit(record.prediction_id, "ann", answer)
    rows = {row.domain: row for row in agreement(database.session_factory).confidence}
    assert set(rows) == {"all", "terminal"}
    terminal = rows["terminal"]
    assert (terminal.verdicts, terminal.scored) == (4, 4)
    assert terminal.verdict_auroc == 0.75 and terminal.headline_auroc == 0.75
