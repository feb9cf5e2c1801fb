"""The judge end to end through the openai engine against a real `transformers serve` server.

The served model is the tiny random Qwen3-MoE of tests/support: its answers are junk, so this
checks plumbing (batching, retries, failure counting, stored judge metadata, the bench wiring),
never content. Skipped when the server fixture cannot be built here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import build_cli
from backend.benchmark.items import load_items
from backend.engines.base import Engine, EngineConfig, build_engine
from backend.scoring.judge import Judge, JudgeItem
from backend.types import SamplingParams
from tests.support.openai_server import OpenAIServer

pytestmark = pytest.mark.slow

BUDGET = SamplingParams(temperature=0.0, top_p=1.0, top_k=0, max_new_tokens=8)


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest) -> OpenAIServer:
    try:
        return request.getfixturevalue("openai_server")
    except (pytest.FixtureLookupError, RuntimeError) as exc:
        pytest.skip(f"no transformers serve fixture here: {exc}")


@pytest.fixture(scope="module")
def engine(server: OpenAIServer) -> Iterator[Engine]:
    engine = build_engine(
        EngineConfig(name="openai", base_url=server.base_url, model=server.model, concurrency=2)
    )
    yield engine
    engine.close()


def short_items() -> list[JudgeItem]:
    items = [i for i in load_items("bundled") if i.domain in ("terminal", "web")]
    picked = [next(i for i in items if i.domain == d) for d in ("terminal", "web")]
    return [
        JudgeItem(
            domain=i.domain,
            action=i.action,
            predicted=i.reference,
            reference=i.reference,
            previous=i.previous,
        )
        for i in picked
    ]


def test_rubric_judge_over_a_real_server(engine: Engine, server: OpenAIServer) -> None:
    results = Judge(engine, params=BUDGET, retries=1).evaluate(short_items())
    assert len(results) == 2
    for result in results:
        assert result.judge_engine == "openai"
        assert result.judge_model == server.model
        assert result.temperature == 0.0
        assert result.prompt_version.endswith("+rubric-v1")
        assert 1 <= result.attempts <= 2
        assert result.failed == (result.total is None)
        if result.failed:
            assert result.attempts == 2 and result.error


def test_bench_with_a_judge(
    server: OpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWP_DATA_DIR", str(tmp_path / "data"))
    out = tmp_path / "run"
    args = [
        "bench",
        "--dataset",
        "bundled",
        "--engine",
        "oracle",
        "--limit",
        "3",
        "--out",
        str(out),
    ]
    args += [
        "--judge",
        "openai",
        "--judge-base-url",
        server.base_url,
        "--judge-model",
        server.model,
    ]
    args += ["--judge-max-new-tokens", "8"]
    result = CliRunner().invoke(build_cli(), args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "(judge 0-100)" in result.output
    stats = json.loads((out / "results.json").read_text(encoding="utf-8"))["engines"]["oracle"]
    judged = [d["judge"] for d in stats["domains"].values()]
    assert sum(j["judged"] for j in judged) == 3
    assert all(j["judge_models"] == [f"openai:{server.model}"] for j in judged)
    assert all(j["temperatures"] == [0.0] for j in judged)
    rows = [
        json.loads(line) for line in (out / "items.jsonl").read_text("utf-8").split("\n") if line
    ]
    assert all(row["judge"]["attempts"] >= 1 for row in rows)
