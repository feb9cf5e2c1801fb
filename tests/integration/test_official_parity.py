"""Exact parity with the official harness (QwenLM/Qwen-AgentWorld `eval.py`).

Every rule is tested on rows where our own reading and the official one differ: a
`current_prompt` that is not `prompt[turn_idx-1]`, actions whose JSON our validator would
rewrite, an observation with trailing blanks, an empty `system_str`. The requests are read off a
real loopback HTTP server, as the engine sends them. The last test runs the release's own
functions on the same rows when a checkout of it is named by `AWP_OFFICIAL_REPO`.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from backend.benchmark.items import load_items
from backend.domains.prompts import PromptLibrary
from backend.engines.base import EngineConfig, build_engine
from backend.errors import BadInputError, NotFoundError
from backend.prompt_folders import OFFICIAL_JUDGE, OFFICIAL_SYSTEM
from backend.scoring.judge import Judge, JudgeItem
from backend.scoring.judge_library import JudgePromptLibrary
from backend.scoring.official_judge import load_template
from backend.simulate import Simulator
from backend.types import HistoryMode, PromptContext, SamplingParams
from tests.support.cli import run
from tests.support.fake_openai import FakeOpenAIServer, json_reply

P0 = (
    "### Turn 1\n**Current State:**\nroot@box:/# \n\n**Action:**\n```json\n"
    '[{"keystrokes":"cd /tmp\\n","duration":0.5}]\n```'
)
R0 = "**Environment Observation:**\nroot@box:/tmp#   "
P1 = '### Turn 2\n**Action:**\n```json\n[{"keystrokes":"ls\\n","duration":1}]\n```'
R1 = "**Environment Observation:**\nls\na.txt\nroot@box:/tmp# "
OTHER_CURRENT = '### Turn 2\n**Action:**\n```json\n[{"keystrokes": "pwd\\n", "duration": 1}]\n```'
Q0 = '### Turn 1\n**Action:**\n```json\n{"name":"get_time","arguments":{"tz":"UTC"}}\n```'
S0 = '**Environment Observation:**\n{"time": "12:00"}'

ROWS = [
    {
        "task": "agentworld/terminal",
        "id": 1,
        "prompt": [P0, P1],
        "response": [R0, R1],
        "current_prompt": OTHER_CURRENT,
        "system_str": "SYS terminal",
        "turn_idx": 2,
        "total_turns": 2,
    },
    {
        "task": "mcp",
        "id": 2,
        "prompt": [Q0],
        "response": [S0],
        "current_prompt": "",
        "system_str": "",
        "turn_idx": 1,
        "total_turns": 1,
    },
]
TEMPLATE = (
    "{context}\n\n{world_model_input}\n\n{predicted_observation}\n\n{ground_truth}\n\n"
    'Answer in <final_evaluation> with {{"scores": {{"format": 1}}}}.'
)
GENERATION = (
    "<think>the screen scrolls</think>\n<predicted_observation>\n**Environment Observation:**\n"
    "ls\nb.txt\n</predicted_observation>"
)
VERDICT = (
    '<final_evaluation>\n```json\n{"strengths": ["s"], "weaknesses": [], "scores": {"format": 5, '
    '"factuality": 4, "consistency": 4, "realism": 3, "quality": 4}}\n```\n</final_evaluation>'
)


def completion(text: str) -> Any:
    body = {
        "choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2},
        "model": "m",
    }
    return json_reply(200, body)


@pytest.fixture
def release(tmp_path: Path) -> Path:
    """A checkout laid out as the release: prompts/<domain>/*.txt and the judge template."""
    root = tmp_path / "Qwen-AgentWorld"
    for domain in ("terminal", "mcp"):
        folder = root / "prompts" / domain
        folder.mkdir(parents=True)
        (folder / OFFICIAL_SYSTEM).write_text(
            f"World model for {domain}.\nTools: {{tool_definitions}}\n"
        )
        (folder / OFFICIAL_JUDGE).write_text(f"Judge {domain} strictly.  \n")
    source = root / "eval" / "lwm_eval_utils" / "task_configs.py"
    source.parent.mkdir(parents=True)
    source.write_text(f"SCORE = 1\nJUDGE_USER_PROMPT = {TEMPLATE!r}\n")
    return root


@pytest.fixture
def rows_file(tmp_path: Path) -> Path:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return path


def expected_judge_user(row: dict[str, Any], simulated: str) -> str:
    """The official judge's user message, written out from the release's rules."""
    turn = row["turn_idx"] - 1
    pairs = "".join(
        f"{p}\n{r}\n\n" for p, r in zip(row["prompt"][:turn], row["response"][:turn], strict=True)
    )
    context = f"# Context (Historical Interactions):\n\n{pairs}" if pairs else ""
    current = row["current_prompt"] or row["prompt"][turn]
    truth = row["response"][turn].removeprefix("**Environment Observation:**").strip()
    return TEMPLATE.format(
        context=context,
        world_model_input=f"# Current Turn:\n\n{current}",
        predicted_observation=f"**World Model Output (Simulated):**\n```\n{simulated}\n```",
        ground_truth=f"**Ground Truth (Real Output):**\n```\n{truth}\n```",
    ).strip()


# --- prompt folders ---------------------------------------------------------------------------


def test_the_official_prompt_folder_replaces_the_builtin_prompts(release: Path) -> None:
    library = PromptLibrary(release / "prompts")
    prompt = library.system_prompt("terminal", PromptContext())
    assert prompt == "World model for terminal.\nTools: none provided\n"
    assert library.source("mcp") == str(release / "prompts" / "mcp" / OFFICIAL_SYSTEM)
    tools = library.system_prompt("mcp", PromptContext(tools=[{"name": "get_time"}]))
    assert '"name": "get_time"' in tools and "{tool_definitions}" not in tools

    judges = JudgePromptLibrary(release / "prompts")
    assert judges.get("terminal").text == "Judge terminal strictly.  \n"
    assert judges.get("terminal").version.startswith("terminal-official-")


def test_a_folder_in_neither_layout_is_refused(tmp_path: Path, awp_data: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a prompt")
    (tmp_path / "terminal").mkdir()
    (tmp_path / "terminal" / "prompt.txt").write_text("wrong file name")
    for build in (PromptLibrary, JudgePromptLibrary):
        with pytest.raises(BadInputError, match=r"neither `<domain>.md` files nor the official"):
            build(tmp_path)
    code, output = run(
        "bench",
        "--dataset",
        "bundled",
        "--engine",
        "persistence",
        "--judge",
        "persistence",
        "--judge-prompts",
        str(tmp_path),
        "--limit",
        "1",
    )
    assert code == 2 and "holds neither" in output


def test_a_domain_missing_from_the_folder_is_named(
    release: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        prompt = PromptLibrary(release / "prompts").system_prompt("web", PromptContext())
        JudgePromptLibrary(release / "prompts").get("android")
    assert prompt == PromptLibrary().system_prompt("web", PromptContext())
    assert "has no prompt for 'web' (looked for web.md and web/system_prompt.txt)" in caplog.text
    assert "has no prompt for 'android'" in caplog.text
    with pytest.raises(NotFoundError, match="has no prompt for 'os'"):
        JudgePromptLibrary(release / "prompts").official("os")


def test_the_official_judge_without_its_template_says_where_to_find_it(release: Path) -> None:
    (release / "eval" / "lwm_eval_utils" / "task_configs.py").unlink()
    with pytest.raises(BadInputError, match="judge user template"):
        load_template(release / "prompts")
    (release / "prompts" / "judge_user_prompt.txt").write_text("{context} only")
    with pytest.raises(BadInputError, match="lacks the field"):
        load_template(release / "prompts")


# --- the requests, as the server receives them ------------------------------------------------


def test_rows_are_sent_and_judged_exactly_as_the_official_harness_does(
    release: Path, rows_file: Path, fake_openai: FakeOpenAIServer, awp_data: Path, tmp_path: Path
) -> None:
    fake_openai.script = [completion(GENERATION)] * 2 + [completion(VERDICT)] * 2
    url = fake_openai.base_url
    code, output = run(
        "bench",
        "--dataset",
        str(rows_file),
        "--engine",
        "openai",
        "--model",
        "m",
        "--base-url",
        url,
        "--judge",
        "openai",
        "--judge-model",
        "j",
        "--judge-base-url",
        url,
        "--judge-prompts",
        str(release / "prompts"),
        "--official-judge",
        "--concurrency",
        "2",
        "--out",
        str(tmp_path / "run"),
    )
    assert code == 0, output
    world = [body for body in fake_openai.bodies if body["model"] == "m"]
    judged = [body for body in fake_openai.bodies if body["model"] == "j"]
    sent = sorted((body["messages"] for body in world), key=len, reverse=True)
    assert sent == [
        [
            {"role": "system", "content": "SYS terminal"},
            {"role": "user", "content": P0},
            {"role": "assistant", "content": R0},
            {"role": "user", "content": P1},
        ],
        [{"role": "user", "content": Q0}],
    ]
    by_system = {body["messages"][0]["content"]: body for body in judged}
    assert set(by_system) == {"Judge terminal strictly.  \n", "Judge mcp strictly.  \n"}
    for row, system in zip(
        ROWS, ("Judge terminal strictly.  \n", "Judge mcp strictly.  \n"), strict=True
    ):
        body = by_system[system]
        assert body["messages"][1] == {
            "role": "user",
            "content": expected_judge_user(row, "ls\nb.txt"),
        }
        assert (body["temperature"], body["max_tokens"]) == (0.6, 32768)
    assert (
        "# Current Turn:\n\n" + OTHER_CURRENT
        in by_system["Judge terminal strictly.  \n"]["messages"][1]["content"]
    )
    rows = [
        json.loads(line) for line in (tmp_path / "run" / "items.jsonl").read_text().splitlines()
    ]
    assert all(row["judge"]["prompt_version"].split("-")[1] == "official" for row in rows)
    assert all("raw_output" not in row for row in rows)


def test_the_item_keeps_the_prompt_turn_not_current_prompt(rows_file: Path) -> None:
    terminal = next(item for item in load_items(str(rows_file)) if item.domain == "terminal")
    assert json.loads(terminal.action)[0]["keystrokes"] == "ls\n"
    simulator = Simulator(build_engine(EngineConfig(name="persistence")), PromptLibrary())
    blind = simulator.prepare(terminal.request(SamplingParams(), HistoryMode.BLIND)).chat.messages
    assert all(
        message.content != P1 for message in blind
    )  # the row's texts are teacher-forced only


# --- against the release's own code -----------------------------------------------------------

OFFICIAL = os.environ.get("AWP_OFFICIAL_REPO")


def _release_module(root: Path) -> ModuleType:
    sys.path.insert(0, str(root / "eval"))
    spec = importlib.util.spec_from_file_location("official_eval", root / "eval" / "eval.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not OFFICIAL, reason="AWP_OFFICIAL_REPO names no checkout of the release")
def test_the_release_builds_the_same_requests(rows_file: Path) -> None:
    root = Path(str(OFFICIAL))
    official = _release_module(root)
    sent: list[list[dict[str, str]]] = []

    def create(**kwargs: Any) -> Any:
        sent.append(kwargs["messages"])
        message = SimpleNamespace(content=GENERATION)
        return SimpleNamespace(choices=[SimpleNamespace(message=message)])

    client = SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=create)))
    jobs = official.run_inference([dict(row) for row in ROWS], client, "m")
    simulator = Simulator(build_engine(EngineConfig(name="persistence")), PromptLibrary())
    items = load_items(str(rows_file))
    ours = [
        [
            m.model_dump()
            for m in simulator.prepare(
                i.request(SamplingParams(), HistoryMode.TEACHER_FORCED)
            ).chat.messages
        ]
        for i in items
    ]
    assert ours == sent

    prompts = official.load_judge_system_prompts()
    judge = Judge(
        build_engine(EngineConfig(name="persistence")),
        JudgePromptLibrary(root / "prompts"),
        official=load_template(root / "prompts"),
    )
    for job, item in zip(jobs, items, strict=True):
        output = official.parse_model_output(job["gen"], "predicted_observation")
        theirs = official.build_judge_messages(job, output, prompts)
        judge_item = JudgeItem(
            domain=item.domain,
            action=item.action,
            predicted="",
            reference=item.reference,
            row=item.official_row(),
            raw_output=job["gen"],
        )
        mine = judge.conversation(judge_item, judge.prompts.official(item.domain))
        assert [m.model_dump() for m in mine] == theirs
