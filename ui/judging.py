"""The "Judge this" buttons: grade one stored prediction with the configured rubric judge.

The verdict is stored like `awp bench`'s and `awp judge`'s (`judge.<dimension>` scores of the
prediction), so it meets people's ratings on the Agreement page.
"""

from __future__ import annotations

from backend.compare.judging import judge_stored
from backend.engines.embedded import EMBEDDED_MODEL
from backend.errors import AWPError, BadInputError
from backend.jobs import Job
from backend.scoring.judge import JudgeResult
from ui.renderers.base import esc
from ui.services import Services
from ui.views import chip

TOO_WEAK = (
    "The configured judge is the embedded {model} model, which is too small to follow the "
    "rubric (it gives no usable verdict after minutes of trying). Set AWP_JUDGE_ENGINE=openai "
    "with AWP_JUDGE_MODEL and AWP_JUDGE_BASE_URL (or AWP_BASE_URL) to a strong model, and restart."
)


def judge_line(services: Services) -> str:
    """Which engine and model judge here, in one line (what the pages say beside the button)."""
    settings = "(settings `AWP_JUDGE_ENGINE`, `AWP_JUDGE_MODEL`)"
    try:
        engine = services.judge().engine
    except AWPError as exc:  # a judge that cannot be built is said here, not at first use
        return f"Judge: not available: {exc} {settings}"
    weak = " (the embedded model: too weak to judge)" if engine.model == EMBEDDED_MODEL else ""
    return f"Judge: `{engine.name}` · `{engine.model}`{weak} {settings}."


def judge_job(services: Services, prediction_id: int | None, owner: str, kind: str) -> Job:
    """Start grading one prediction as a job of `kind`; its result is the stored verdict.

    What can be refused is refused here, before the job: no judge is started for nothing.
    `kind` is that of the panel of the page it starts from, which a `?job=` link reopens.

    Raises:
        BadInputError: no prediction yet, its real state is unknown, or the judge is the
            embedded model (refused up front: it cannot give a usable verdict).
        NotFoundError: no such prediction.
    """
    judge = services.judge()
    if judge.engine.model == EMBEDDED_MODEL:
        raise BadInputError(TOO_WEAK.format(model=EMBEDDED_MODEL))
    if prediction_id is None:
        raise BadInputError("Nothing to judge yet: take a step (or open an item) first.")
    item = services.judge_item(prediction_id)

    def grade(job: Job) -> JudgeResult:
        [(_, result)] = list(judge_stored(judge, services.sessions, [(prediction_id, item)]))
        return result

    title = f"Judging prediction #{prediction_id} with {judge.engine.name}"
    return services.jobs.submit(kind, owner, title, grade, total=judge.params.max_new_tokens)


def verdict_html(result: JudgeResult) -> str:
    """The judge's scores, total, and reasons, with who judged."""
    who = f"{result.judge_engine} · {result.judge_model} · {result.prompt_version}"
    if result.failed:
        return (
            f'<div class="awp-reveal awp-reveal-bad">The judge ({esc(who)}) gave no usable '
            f"verdict after {result.attempts} attempts: {esc(result.error or '')}. Nothing was "
            "stored.</div>"
        )
    chips = "".join(chip(dim, str(value)) for dim, value in result.scores.items() if value)
    total = f"{result.total:.2f}" if result.total is not None else "-"
    reasons = "".join(
        f"<li><b>{label}</b> {esc(text)}</li>"
        for label, texts in (("+", result.strengths), ("−", result.weaknesses))
        for text in texts
    )
    return (
        f'<div class="awp-reveal"><div>{chips}{chip("total", total)}</div>'
        f"<ul>{reasons}</ul><div class='awp-note'>Judged by {esc(who)}; stored with the "
        "prediction.</div></div>"
    )
