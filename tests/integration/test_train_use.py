"""Train page: "Make this the Playground's model" refuses a folder that would break every step.

Issue 20: a model trained with a relative `--out`, made the Playground's model, broke every
person's step until a restart. Runs now store absolute folders; a run whose folder is relative
or holds no model (moved or deleted since) is refused here, and the Playground keeps stepping.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gradio_client import Client

from storage.run_kinds import TrainRun
from tests.support.app_server import named, start_app
from ui.pages.start import DEMO_RECORDING


def finished_run(app, model_dir: str) -> int:  # type: ignore[no-untyped-def]
    runs = app.context.runs
    spec = TrainRun.new_spec("sft", "recorded", "base", {})
    run_id = runs.start(TrainRun, spec, out_dir=str(Path(model_dir).parent))
    runs.finish(run_id, TrainRun.new_results("hash", {}, model_dir, None))
    return run_id


def test_a_run_whose_model_folder_is_relative_or_gone_is_refused(tmp_path, tiny_model_dir):
    app = start_app(tmp_path / "app")
    try:
        admin = Client(app.url, verbose=False)
        for folder in ("runs/sft/model", str(tmp_path / "deleted" / "model")):
            run_id = finished_run(app, folder)
            with pytest.raises(Exception, match="not an absolute folder holding a model"):
                admin.predict(run_id, api_name="/train_use")
        # A run whose folder holds a model is taken, so the check refuses only what would break.
        good = finished_run(app, str(tiny_model_dir))
        assert f"uses run #{good}'s model" in admin.predict(good, api_name="/train_use")

        out = named(admin.predict("terminal", DEMO_RECORDING, 1, api_name="/load_turn"))
        done = named(admin.predict(out["action"], engine="persistence", api_name="/step"))
        assert "persistence" in done["status"]  # the Playground still steps
    finally:
        app.close()
