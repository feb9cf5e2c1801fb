"""An arena battle's job counts tokens against a bound: the budgets of the contenders that decode.

One contender is the real transformers engine on the tiny random model (it never says
end-of-sequence, so it decodes its whole budget), the other the persistence baseline, which
decodes nothing and so adds nothing to the bound.
"""

from __future__ import annotations

from pathlib import Path

from gradio_client import Client

from tests.support.app_server import follow_job, start_app

BUDGET = 8


def test_a_battle_counts_its_model_contender_s_tokens_against_its_budget(
    tiny_model_dir: Path, tmp_path: Path
) -> None:
    settings = {
        "model": str(tiny_model_dir),
        "max_new_tokens": BUDGET,
        "arena_contenders": "transformers,persistence",
    }
    app = start_app(tmp_path, engine="transformers", settings=settings)
    try:
        person = Client(app.url, verbose=False)
        line, _ = follow_job(person, "arena_battle", "terminal", "all")
        assert 'data-status="finished"' in line, line
        [job] = [view for view in app.context.jobs.listed() if view.kind == "battle"]
        assert job.budget and job.total == BUDGET  # one model contender: one budget, not two
        assert job.done == BUDGET  # every token it decoded was counted
    finally:
        app.close()
