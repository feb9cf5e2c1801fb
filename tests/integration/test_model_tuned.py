"""`awp model prepare --tuned`: the tuning recipe end to end (capped at one step), then reused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backend.engines.base import EngineConfig, build_engine
from backend.engines.embedded import EMBEDDED_MODEL, prepare_embedded_model
from backend.types import ChatMessage, ChatRequest, SamplingParams
from tests.support.cli import run

pytestmark = pytest.mark.slow  # converts, trains and loads the embedded model


@pytest.fixture
def prepared(awp_data: Path) -> Path:
    """A data directory whose embedded model is the one `make test` already converted."""
    try:
        source = prepare_embedded_model(Path.home() / ".agentworld")
    except Exception as error:
        pytest.skip(f"the embedded model is not available: {error}")
    (awp_data / "models").mkdir(parents=True)
    (awp_data / "models" / EMBEDDED_MODEL).symlink_to(source, target_is_directory=True)
    return awp_data


def test_prepare_tuned_trains_once_serves_and_reuses(prepared: Path) -> None:
    code, output = run("model", "prepare", "--tuned", "--max-steps", "1")
    assert code == 0, output
    folder = Path(output.split("AWP_MODEL=")[1].split()[0])
    assert folder.is_dir() and (folder / "config.json").exists()
    results = json.loads((folder.parent / "train_results.json").read_text())
    assert results["steps"] == 1 and results["config"]["data"] == "recorded"

    engine = build_engine(EngineConfig(name="transformers", model=str(folder)))
    try:
        request = ChatRequest(
            messages=[ChatMessage(role="user", content="$ ls")],
            params=SamplingParams(max_new_tokens=4, temperature=0.0),
        )
        completion = engine.generate([request])[0]
    finally:
        engine.close()
    assert completion.model == str(folder) and completion.completion_tokens > 0

    before = (folder.parent / "train_results.json").stat().st_mtime_ns
    code, again = run("model", "prepare", "--tuned", "--max-steps", "1")
    assert code == 0 and str(folder) in again
    assert (folder.parent / "train_results.json").stat().st_mtime_ns == before  # not retrained
