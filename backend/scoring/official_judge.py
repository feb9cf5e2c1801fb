"""The official judge request, rebuilt: what the release's `eval.py judge` sends for a row.

Researchers compare our numbers with published ones only if the judge reads exactly what the
official harness shows it. That request is: the domain's `judge_system_prompt.txt` as the
system message, verbatim; and a user message made from the release's judge template, filled
with the row's earlier `prompt`/`response` pairs (each pair on its own lines, under a context
heading), the current turn (`current_prompt`, or `prompt[turn_idx-1]` when the row has none),
the model's output (thinking removed, the last `<predicted_observation>` block, the marker
stripped) and the row's real response, both fenced. The template is the release's own text,
read from the official checkout the prompts come from (never shipped here), so a wording change
upstream is picked up rather than silently diverged from.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator

from backend.errors import BadInputError
from backend.parsing import MARKER, strip_thinking
from backend.types import ChatMessage, SamplingParams

TEMPLATE_FILE = "judge_user_prompt.txt"
"""A copy of the release's judge user template placed in the prompts folder."""
TEMPLATE_SOURCE = Path("eval") / "lwm_eval_utils" / "task_configs.py"
"""Where the release keeps that template, relative to the checkout holding `prompts/`."""
TEMPLATE_NAME = "JUDGE_USER_PROMPT"
TEMPLATE_FIELDS = ("context", "world_model_input", "predicted_observation", "ground_truth")
CONTEXT_HEADING = "# Context (Historical Interactions):\n\n"
CURRENT_HEADING = "# Current Turn:\n\n"
SIMULATED_HEADING = "**World Model Output (Simulated):**"
REAL_HEADING = "**Ground Truth (Real Output):**"
NO_OUTPUT = "No output"
"""What the official output parser returns for an empty generation."""
BLOCK_TAG = "predicted_observation"

OFFICIAL_JUDGE_PARAMS = SamplingParams(temperature=0.6, top_p=1.0, top_k=0, max_new_tokens=32768)
"""`eval.py judge`'s defaults: temperature 0.6 and 32,768 tokens, no top-p or top-k cut."""


class OfficialRow(BaseModel):
    """The fields of an AgentWorldBench row that the official judge reads."""

    task: str
    prompt: list[str]
    response: list[str]
    current_prompt: str = ""
    turn_idx: int = 1

    @field_validator("prompt", "response", mode="before")
    @classmethod
    def _listed(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("current_prompt", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return value or ""

    @property
    def subtask(self) -> str:
        """The domain: `task` after its last `/`."""
        return self.task.rsplit("/", 1)[-1]


class OfficialJudgeTemplate(BaseModel):
    """The release's judge user template and where it was read from."""

    text: str
    source: str = Field(description="The file the template was read from.")


def _template_in_python(path: Path) -> str | None:
    """The `JUDGE_USER_PROMPT` string constant of a Python file, read without running it."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == TEMPLATE_NAME for target in node.targets
        ):
            value = node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                return value.value
    return None


def load_template(prompts_dir: Path) -> OfficialJudgeTemplate:
    """Read the release's judge user template for a folder of official judge prompts.

    Looked for, in order: `<prompts_dir>/judge_user_prompt.txt`, then the release's
    `eval/lwm_eval_utils/task_configs.py` beside `prompts_dir` (a checkout of the release),
    whose `JUDGE_USER_PROMPT` constant is read with `ast`, never imported.

    Raises:
        BadInputError: neither is there, or the template lacks one of its four fields.
    """
    own = prompts_dir / TEMPLATE_FILE
    source = prompts_dir.parent / TEMPLATE_SOURCE
    text: str | None = None
    if own.is_file():
        text, where = own.read_text(encoding="utf-8"), own
    elif source.is_file():
        text, where = _template_in_python(source), source
    if text is None:
        raise BadInputError(
            "The official judge needs the release's judge user template: point --judge-prompts "
            "at the `prompts/` folder of a QwenLM/Qwen-AgentWorld checkout (the template is read "
            f"from {TEMPLATE_SOURCE} beside it), or save the template as {own}."
        )
    missing = [name for name in TEMPLATE_FIELDS if "{" + name + "}" not in text]
    if missing:
        raise BadInputError(
            f"The judge user template in {where} lacks the field(s) "
            + ", ".join("{" + name + "}" for name in missing)
            + "."
        )
    return OfficialJudgeTemplate(text=text, source=str(where))


def official_output(raw: str) -> str:
    """The model output as the official judge extracts it from a raw generation.

    Thinking removed; the content of the last `<predicted_observation>` block (to the end when
    it is not closed), else the whole cleaned text; "No output" for an empty generation.
    Tags are matched in lower case, as the model writes them (the release also accepts
    other cases).
    """
    if not raw:
        return NO_OUTPUT
    cleaned, _ = strip_thinking(raw)
    opening, closing = f"<{BLOCK_TAG}>", f"</{BLOCK_TAG}>"
    start = cleaned.rfind(opening)
    if start < 0:
        return cleaned.strip() or NO_OUTPUT
    body = cleaned[start + len(opening) :]
    return body.split(closing, 1)[0].strip()


def clean_marker(text: str) -> str:
    """Drop the observation marker: a leading one alone, else every occurrence; then strip."""
    if text.startswith(MARKER):
        return text[len(MARKER) :].strip()
    return text.replace(MARKER, "").strip()


def judge_messages(
    row: OfficialRow, raw_output: str, system_prompt: str, template: str
) -> list[ChatMessage]:
    """The two messages `eval.py judge` sends for `row` and the model's raw generation.

    Args:
        row: the row the prediction answers.
        raw_output: the model's generation (its content, before any parsing).
        system_prompt: the domain's official judge system prompt, as read from its file.
        template: the release's judge user template.
    """
    turn = max(row.turn_idx - 1, 0)
    pairs = zip(row.prompt[:turn], row.response[:turn], strict=False)
    context = "".join(f"{prompt}\n{response}\n\n" for prompt, response in pairs)
    if context:
        context = CONTEXT_HEADING + context
    current = row.current_prompt or (row.prompt[turn] if turn < len(row.prompt) else "")
    truth = row.response[turn] if turn < len(row.response) else ""
    user = template.format(
        context=context,
        world_model_input=CURRENT_HEADING + current,
        predicted_observation=(
            f"{SIMULATED_HEADING}\n```\n{clean_marker(official_output(raw_output))}\n```"
        ),
        ground_truth=f"{REAL_HEADING}\n```\n{clean_marker(truth)}\n```",
    ).strip()
    return [
        ChatMessage(role="system", content=system_prompt),
        ChatMessage(role="user", content=user),
    ]
