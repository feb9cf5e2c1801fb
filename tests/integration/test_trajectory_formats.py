"""Trajectories in and out in the field's formats, each checked by the upstream project's code.

In: an Inspect eval log written by Inspect itself (a `bash` task on `mockllm`), OpenTelemetry
GenAI spans written by the OpenTelemetry SDK, and ATIF. Out: sessions as ATIF, validated by
Harbor's own `Trajectory` model (in its own Python 3.12 venv, as Harbor needs), and as an
Inspect log read back by Inspect's reader and served by `inspect view`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate, use_tools
from inspect_ai.tool import bash
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor

from app.context import build_context
from app.inspect_sandbox import AwpSandboxConfig
from backend.data.formats.registry import TRAJECTORY_FORMATS
from backend.errors import BadInputError
from backend.types import Prediction
from tests.support.app_server import free_port
from tests.support.cli import run
from tests.support.sessions import SessionWriter

REPO = Path(__file__).resolve().parents[2]
HARBOR = Path(os.environ.get("AWP_HARBOR_VENV", REPO / ".venv-harbor")) / "bin" / "python"
TERMINAL = '[\n  {\n    "keystrokes": "ls\\n",\n    "duration": 1.0\n  }\n]'


def usage(output: ModelOutput) -> ModelOutput:
    output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    return output


@pytest.fixture(scope="module")
def inspect_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log Inspect wrote: one sample that ran two bash commands, one with no tool call."""
    folder = tmp_path_factory.mktemp("inspect")
    model = get_model(
        "mockllm/model",
        custom_outputs=[
            usage(ModelOutput.for_tool_call("mockllm/model", "bash", {"command": "ls"})),
            usage(ModelOutput.for_tool_call("mockllm/model", "bash", {"command": "pwd"})),
            usage(ModelOutput.from_content("mockllm/model", "Done.")),
        ],
    )
    task = Task(
        dataset=[Sample(input="Where am I?", target="")],
        solver=[use_tools(bash()), generate()],
        sandbox="docker",
    )
    env = {"AWP_DATA_DIR": str(folder / "data")}
    old = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        (log,) = eval(
            task,
            model=model,
            sandbox=("awp", AwpSandboxConfig(engine="persistence")),
            log_dir=str(folder / "logs"),
            display="none",
        )
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    assert log.status == "success", log.error
    return Path(log.location)


def test_an_inspect_log_becomes_a_swe_trajectory_of_its_tool_calls(
    inspect_log: Path, awp_data: Path
) -> None:
    code, output = run("import", "inspect", str(inspect_log))
    assert code == 0, output
    with build_context() as context:
        assert context.trajectories.counts_by_domain() == {"swe": 1}
        (summary,) = context.trajectories.list_trajectories()
        stored = context.trajectories.get(summary.id)
    assert stored.task == "Where am I?" and stored.source == str(inspect_log)
    assert [json.loads(t.action) for t in stored.turns] == [
        {"name": "bash", "arguments": {"command": "ls"}},
        {"name": "bash", "arguments": {"command": "pwd"}},
    ]
    assert all(turn.observation is not None for turn in stored.turns)


def test_a_bad_log_is_refused_naming_what_is_wrong(tmp_path: Path) -> None:
    fake = tmp_path / "broken.eval"
    fake.write_text("not a zip")
    with pytest.raises(BadInputError, match="not an Inspect eval log"):
        TRAJECTORY_FORMATS.get("inspect").read(fake, None)


def otel_spans(path: Path) -> None:
    """Two traces written by the OpenTelemetry SDK, one span of JSON a line."""
    with path.open("w") as out:
        provider = TracerProvider()
        exporter = ConsoleSpanExporter(
            out=out, formatter=lambda span: span.to_json(indent=None) + "\n"
        )
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        tracer = provider.get_tracer("agent")
        for city in ("Paris", "Rome"):
            with tracer.start_as_current_span("invoke_agent weather") as agent:
                agent.set_attribute("gen_ai.operation.name", "invoke_agent")
                agent.set_attribute("gen_ai.agent.description", f"Weather in {city}?")
                for tool, arguments, result in (
                    ("geocode", {"city": city}, '{"lat": 1.0}'),
                    ("get_weather", {"lat": 1.0}, '{"sky": "clear"}'),
                ):
                    with tracer.start_as_current_span(f"execute_tool {tool}") as span:
                        span.set_attribute("gen_ai.operation.name", "execute_tool")
                        span.set_attribute("gen_ai.tool.name", tool)
                        span.set_attribute("gen_ai.tool.call.arguments", json.dumps(arguments))
                        span.set_attribute("gen_ai.tool.call.result", result)
        provider.shutdown()


def test_otel_genai_spans_become_one_trajectory_per_trace(tmp_path: Path) -> None:
    spans = tmp_path / "trace.jsonl"
    otel_spans(spans)
    trajectories = TRAJECTORY_FORMATS.get("otel").read(spans, None)
    assert len(trajectories) == 2
    paris = next(t for t in trajectories if t.task == "Weather in Paris?")
    assert paris.domain == "mcp"
    assert [json.loads(t.action)["name"] for t in paris.turns] == ["geocode", "get_weather"]
    assert paris.turns[1].observation == '{"sky": "clear"}'

    lines = spans.read_text().splitlines()
    bad = json.loads(lines[0])
    bad["attributes"]["gen_ai.tool.call.arguments"] = "[1, 2"
    (tmp_path / "bad.jsonl").write_text("\n".join([lines[1], json.dumps(bad), "{oops"]) + "\n")
    with pytest.raises(
        BadInputError, match=r"bad.jsonl:2: gen_ai.tool.call.arguments of 'geocode' is not JSON"
    ):
        TRAJECTORY_FORMATS.get("otel").read(tmp_path / "bad.jsonl", None)


def prediction(observation: str) -> Prediction:
    from backend.types import Diagnostics

    diagnostics = Diagnostics(
        open_tags=0,
        close_tags=0,
        speculative_words=0,
        chars_outside_block=0,
        extracted_length=len(observation),
        empty_extraction=not observation,
    )
    return Prediction(
        observation=observation,
        raw_text=observation,
        finish_reason="stop",
        engine="fake",
        model="fake-model",
        diagnostics=diagnostics,
        action=TERMINAL,
    )


@pytest.fixture
def session(awp_data: Path) -> int:
    """A terminal session of two steps: a recorded one, then a predicted one."""
    with build_context() as context:
        writer = SessionWriter(context.sessions, domain="terminal", initial_state="$ ")
        writer.add(TERMINAL, "$ ls\na.txt\n$ ", "recorded")
        writer.add(TERMINAL, "$ ls\na.txt\n$ ", "recorded", prediction("$ ls\nb.txt\n$ "))
        assert writer.session_id is not None
        return writer.session_id


@pytest.mark.skipif(
    not HARBOR.exists(),
    reason=f"no Harbor venv at {HARBOR.parent.parent} (setup.sh test makes it with Python 3.12)",
)
def test_sessions_export_as_atif_that_harbor_accepts_and_that_reads_back(
    session: int, tmp_path: Path
) -> None:
    out = tmp_path / "atif.jsonl"
    code, output = run("export", "--format", "atif", "--out", str(out))
    assert code == 0, output
    check = (
        "import json, sys\n"
        "from harbor.models.trajectories import Trajectory\n"
        "for line in open(sys.argv[1]):\n"
        "    t = Trajectory.model_validate(json.loads(line))\n"
        "    print(t.schema_version, len(t.steps))\n"
    )
    done = subprocess.run(
        [str(HARBOR), "-c", check, str(out)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ATIF-v1.4", "3"]  # the start state, two actions
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    world = row["steps"][-1]["extra"]["world_model"]
    assert world["predicted_observation"] == "$ ls\nb.txt\n$ " and world["real_observation"]

    (back,) = TRAJECTORY_FORMATS.get("atif").read(out, None)
    assert back.domain == "terminal" and [t.action for t in back.turns] == [TERMINAL, TERMINAL]
    code, output = run("export", "--format", "atif", "--out", str(tmp_path / "atif.parquet"))
    assert code == 2 and "write them to a .jsonl file" in output


def test_atif_records_that_are_not_trajectories_are_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = {"session_id": "s", "agent": {"name": "a", "version": "1"}, "steps": []}
    path.write_text(json.dumps(good) + "\n" + json.dumps({"steps": []}) + "\n")
    with pytest.raises(BadInputError, match=r"bad.jsonl:1: the trajectory has no tool call"):
        TRAJECTORY_FORMATS.get("atif").read(path, None)
    path.write_text(json.dumps({"steps": []}) + "\n")
    with pytest.raises(BadInputError, match=r"bad.jsonl:1: not an ATIF trajectory \(session_id"):
        TRAJECTORY_FORMATS.get("atif").read(path, None)


@pytest.mark.slow
def test_sessions_export_as_an_inspect_log_that_inspect_view_serves(
    session: int, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    out = logs / "sessions.eval"
    code, output = run("export", "--format", "inspect", "--out", str(out))
    assert code == 0, output
    log = read_eval_log(str(out))
    (sample,) = log.samples or []
    assert [m.role for m in sample.messages] == ["user", "assistant", "tool", "assistant", "tool"]
    assert sample.messages[-1].text == "$ ls\na.txt\n$ "
    assert sample.metadata["world_model"]["predicted_observation"] == "$ ls\nb.txt\n$ "

    port = free_port()
    inspect = Path(sys.prefix) / "bin" / "inspect"
    viewer = subprocess.Popen(
        [str(inspect), "view", "start", "--log-dir", str(logs), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        listed: Any = None
        for _ in range(300):
            try:
                listed = httpx.get(f"http://127.0.0.1:{port}/api/logs", timeout=2).json()
                break
            except (httpx.TransportError, ValueError):
                time.sleep(0.2)
    finally:
        viewer.terminate()
        viewer.wait(timeout=30)
    assert listed is not None and "sessions.eval" in json.dumps(listed)
