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
    Path | None, typer.Option(help="Directory of `<domain>.md` judge prompts to use instead.")
]
JudgeMaxNewTokens = Annotated[
    int | None, typer.Option(help="Judge completion token budget (default 2048).", min=1)
]
