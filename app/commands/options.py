"""Command-line options that several commands share, declared once so their help stays alike."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

JudgeModel = Annotated[str | None, typer.Option(help="Model id for the judge.")]
JudgeBaseUrl = Annotated[
    str | None, typer.Option(help="OpenAI-compatible server URL of the judge.")
]
JudgePrompts = Annotated[
    Path | None,
    typer.Option(
        help="Judge prompts to use instead: a folder of `<domain>.md` files, or the official "
        "`prompts/` folder (`<domain>/judge_system_prompt.txt`)."
    ),
]
JudgeMaxNewTokens = Annotated[
    int | None, typer.Option(help="Judge completion token budget (default 2048).", min=1)
]
GroundingK = Annotated[
    int | None, typer.Option(help="Most real transitions shown per step (AWP_GROUNDING_K).", min=1)
]
GroundingTokens = Annotated[
    int | None,
    typer.Option(help="Token budget of the demonstrations (AWP_GROUNDING_TOKENS).", min=1),
]
