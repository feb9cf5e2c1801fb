"""Grade stored predictions with the rubric judge and store the verdicts beside them.

The same few lines serve `awp judge` (a batch) and the "Judge this" buttons (one prediction):
the judge's verdict becomes `judge.<dimension>` scores of the prediction, through the recorder,
where the agreement report joins them with people's ratings.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from backend.recording import Recorder
from backend.scoring.judge import Judge, JudgeItem, JudgeResult, judge_scores

BATCH = 8


def judge_stored(
    judge: Judge, recorder: Recorder, items: Sequence[tuple[int, JudgeItem]], batch: int = BATCH
) -> Iterator[tuple[int, JudgeResult]]:
    """Grade `(prediction id, item)` pairs in batches, storing each batch's verdicts at once.

    A failed verdict stores nothing (the prediction stays ungraded and is offered again).
    """
    for start in range(0, len(items), batch):
        chunk = items[start : start + batch]
        results = judge.evaluate([item for _, item in chunk])
        for (prediction_id, _), result in zip(chunk, results, strict=True):
            recorder.add_scores(prediction_id, judge_scores(result))
            yield prediction_id, result
