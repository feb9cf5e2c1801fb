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
    int | None,
    typer.Option(
        help="Judge completion token budget (default AWP_JUDGE_MAX_NEW_TOKENS, 2048).", min=1
    ),
]
GroundingK = Annotated[
    int | None, typer.Option(help="Most real transitions shown per step (AWP_GROUNDING_K).", min=1)
]
GroundingTokens = Annotated[
    int | None,
    typer.Option(help="Token budget of the demonstrations (AWP_GROUNDING_TOKENS).", min=1),
]


def output_file(path: Path) -> Path:
    """`path` as a file to write, checked before any work starts (it must not be a folder).

    Raises:
        BadInputError: `path` is a folder, or its parent is a file.
    """
    from backend.errors import BadInputError

    if path.is_dir():
        raise BadInputError(f"{path} is a folder; --out takes a file (e.g. {path}/rows.jsonl).")
    if path.parent.exists() and not path.parent.is_dir():
        raise BadInputError(f"{path.parent} is a file, so {path} cannot be written.")
    return path


def output_folder(path: Path) -> Path:
    """`path` as a folder to write into, checked before any work starts (it must not be a file).

    Raises:
        BadInputError: `path` is a file.
    """
    from backend.errors import BadInputError

    if path.exists() and not path.is_dir():
        raise BadInputError(f"{path} is a file; --out takes a folder (it holds several files).")
    return path


def known_domain(name: str | None) -> str | None:
    """Refuse a domain filter naming no domain: it would silently match nothing.

    Raises:
        typer.BadParameter: no domain is called `name` (the message lists those that are).
    """
    from backend.domains.base import all_domains

    names = sorted(domain.name for domain in all_domains())
    if name is not None and name not in names:
        raise typer.BadParameter(f"no domain is called {name!r}; domains: {', '.join(names)}.")
    return name


DomainFilter = Annotated[str | None, typer.Option(help="Only this domain.", callback=known_domain)]
