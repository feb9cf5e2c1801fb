"""An Inspect task that uses the `bash` tool, run unchanged with `sandbox="awp"` on `mockllm`.

The task is written for Docker; `eval(..., sandbox="awp")` swaps in the playground's sandbox,
found through the `inspect_ai` entry point. The world model is the `openai` engine against a
scripted loopback server, so the screen it predicts, and what the tool reads off it, are known.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import Generate, TaskState, generate, solver, use_tools
from inspect_ai.tool import bash
from inspect_ai.util import sandbox

from app.context import build_context
from app.inspect_sandbox import PROVENANCE_KEY, AwpSandboxConfig
from tests.support.fake_openai import FakeOpenAIServer, json_reply
from tests.support.live import skip_unless_live

REPO = Path(__file__).resolve().parents[2]
SCREEN = 'root@sandbox:~# ls; echo "[exit $?]"\na.txt\nnotes\n[exit 0]\nroot@sandbox:~# '
WROTE = "root@sandbox:~# cat > notes/todo.txt\nroot@sandbox:~# "


def completion(text: str) -> Any:
    body = {
        "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 5},
        "model": "world",
    }
    return json_reply(200, body)


@solver
def files_round_trip() -> Any:
    """Write a file through the sandbox API and read it back (what scorers and setups do)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        await sandbox().write_file("notes/todo.txt", "buy milk\n")
        state.metadata["read_back"] = await sandbox().read_file("notes/todo.txt")
        return state

    return solve


def listing_task() -> Task:
    """A task as its author wrote it: Docker sandbox, the bash tool, one generate loop."""
    return Task(
        dataset=[Sample(input="List the files.", target="a.txt")],
        solver=[files_round_trip(), use_tools(bash()), generate()],
        sandbox="docker",
    )


def agent() -> Any:
    """Inspect's mock model: one bash call, then an answer (its usage given: no tokenizer)."""
    outputs = [
        ModelOutput.for_tool_call("mockllm/model", "bash", {"command": "ls"}),
        ModelOutput.from_content("mockllm/model", "The files are a.txt and notes."),
    ]
    for output in outputs:
        output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    return get_model("mockllm/model", custom_outputs=outputs)


def tool_results(log: Any) -> list[str]:
    (sample,) = log.samples
    return [message.text for message in sample.messages if message.role == "tool"]


def test_a_bash_task_runs_against_the_world_model_unchanged(
    inspect_entry_point: Path, fake_openai: FakeOpenAIServer, awp_data: Path, tmp_path: Path
) -> None:
    fake_openai.script = [completion(WROTE), completion(SCREEN)]
    config = AwpSandboxConfig(engine="openai", model="world", base_url=fake_openai.base_url)
    (log,) = eval(
        listing_task(),
        model=agent(),
        sandbox=("awp", config),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    assert tool_results(log) == ["a.txt\nnotes\n"]
    (sample,) = log.samples
    assert sample.metadata["read_back"] == "buy milk\n"  # what was written, exactly
    sent = fake_openai.bodies[1]["messages"]
    assert "cat > notes/todo.txt <<'AWP_EOF'\\nbuy milk\\nAWP_EOF" in sent[1]["content"]
    assert 'ls; echo \\"[exit $?]\\"' in sent[-1]["content"]

    with build_context() as context:
        (summary,) = context.sessions.list_sessions()
        session = context.sessions.load_session(summary.id)
    assert session.kind == "inspect" and session.domain == "terminal"
    assert [len(step.predictions) for step in session.steps] == [1, 1]
    assert session.steps[1].predictions[0].prediction.observation == SCREEN.strip()
    # Each command's answer logs where it came from: the world model that predicted it.
    sources = [e.data[PROVENANCE_KEY] for e in sample.events if e.event == "info"]
    assert sources and all(
        {k: v for k, v in s.items() if k != "spec"}
        == {"kind": "predicted", "engine": "openai", "model": "world"}
        for s in sources
    )
    # ... under the world spec of the session that stored the step
    assert session.world is not None
    assert {s["spec"] for s in sources} == {session.world["digest"]}


@skip_unless_live("terminal")
def test_the_live_backing_runs_the_commands_for_real(
    inspect_entry_point: Path, awp_data: Path, tmp_path: Path
) -> None:
    (log,) = eval(
        listing_task(),
        model=agent(),
        sandbox=("awp", AwpSandboxConfig(backing="live")),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    assert tool_results(log) == ["notes\n"]
    (sample,) = log.samples
    assert sample.metadata["read_back"] == "buy milk\n"
    with build_context() as context:
        (summary,) = context.sessions.list_sessions()
        session = context.sessions.load_session(summary.id)
    assert [step.origin for step in session.steps] == ["live", "live", "live"]
    assert all(step.provenance and step.provenance.kind == "live" for step in session.steps)
    sources = [e.data[PROVENANCE_KEY] for e in sample.events if e.event == "info"]
    assert sources and {s["kind"] for s in sources} == {"live"}
    assert all(not step.predictions for step in session.steps)


def test_inspect_finds_the_sandbox_through_the_entry_point_alone(inspect_entry_point: Path) -> None:
    """In a fresh interpreter that never imports the playground, Inspect's loader finds it."""
    probe = (
        "from inspect_ai._util.entrypoints import ensure_entry_points\n"
        "from inspect_ai.util._sandbox.registry import registry_find_sandboxenv\n"
        "ensure_entry_points()\n"
        "print(registry_find_sandboxenv('awp').__module__)\n"
    )
    path = os.pathsep.join([str(REPO), str(inspect_entry_point)])
    done = subprocess.run(
        [sys.executable, "-c", probe],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "app.inspect_sandbox"
