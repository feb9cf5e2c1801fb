"""MkDocs hook: writes the settings and CLI reference pages from the code at build time.

The pages are never written by hand, so they cannot drift from `app.settings.Settings` and the
`awp` typer app: a setting or option added to the code is on its page at the next build, and
`mkdocs build --strict` (run by `make test`) fails if the code cannot be read.
"""

from __future__ import annotations

import enum
import html
import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

# Document the code of this checkout, not whichever copy of the project the venv installed.
ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SETTINGS_PAGE = "reference/settings.md"
CLI_PAGE = "reference/cli.md"


def cell(text: object) -> str:
    """One table cell: on one line, with its pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def code(text: object) -> str:
    """Inline code for a table cell: Markdown would keep the backslash of an escaped pipe."""
    return f"<code>{html.escape(' '.join(str(text).split())).replace('|', '&#124;')}</code>"


def shown(value: Any) -> str:
    """A default as a reader would type it; paths under the builder's home read `~/...`."""
    from pydantic import SecretStr

    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    if isinstance(value, enum.Enum):
        value = value.value
    if value is None or value == "" or value == () or value == []:
        return "(empty)"
    if isinstance(value, bool):
        return code(str(value).lower())
    if isinstance(value, list | tuple | frozenset | set):
        value = ",".join(str(v) for v in value)
    return code(str(value).replace(str(Path.home()), "~"))


def settings_page() -> str:
    """Every `Settings` field as its `AWP_` variable, default and description."""
    from pydantic_core import PydanticUndefined

    from app.settings import Settings

    lines = [
        "# Settings",
        "",
        "One settings object, `app.settings.Settings`, read from `AWP_*` environment variables",
        "(or a `.env` file in the working directory). This page is generated from that class at",
        "every docs build.",
        "",
        "| variable | default | meaning |",
        "|---|---|---|",
    ]
    for name, field in Settings.model_fields.items():
        if field.default_factory is not None:
            default = shown(field.default_factory())
        elif field.default is PydanticUndefined:
            default = "(required)"
        else:
            default = shown(field.default)
        lines.append(f"| `AWP_{name.upper()}` | {default} | {cell(field.description or '')} |")
    return "\n".join(lines) + "\n"


def _option_row(param: Any, ctx: Any) -> str:
    """An option or argument as `--help` shows it: its names and metavar, then its help."""
    record = param.get_help_record(ctx)
    if record is None:  # an argument without help text
        record = (param.make_metavar(ctx), "")
    names, help_text = record
    return f"| {code(names)} | {cell(help_text)} |"


def _command(lines: list[str], command: Any, path: str, depth: int, ctx: Any) -> None:
    import typer

    help_text = (command.help or "").strip()
    lines += [f"{'#' * depth} `{path}`", ""]
    if help_text:
        lines += [help_text.split("\b")[0].strip(), ""]
    lines += ["```", command.get_usage(ctx).replace("Usage: ", "", 1), "```", ""]
    params = [p for p in command.params if not getattr(p, "hidden", False)]
    if params:
        lines += ["| option | meaning |", "|---|---|"]
        lines += [_option_row(p, ctx) for p in params]
        lines.append("")
    if hasattr(command, "list_commands"):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is None or sub.hidden:
                continue
            child = typer.Context(sub, info_name=name, parent=ctx)
            _command(lines, sub, f"{path} {name}", min(depth + 1, 4), child)


def cli_page() -> str:
    """Every `awp` command and sub-command, with its usage and options, from the typer app."""
    import typer
    import typer.main

    from app.cli import build_cli

    root = typer.main.get_command(build_cli())
    ctx = typer.Context(root, info_name="awp")
    lines = [
        "# Command line",
        "",
        "`awp` is the command line (`app/cli.py`, one module per command group under",
        "`app/commands/`). This page is generated from the typer app at every docs build; `awp",
        "COMMAND --help` prints the same. Usage errors print the usage and exit with 2; a domain",
        "error prints one line, `Error: ...`, and exits with 2.",
        "",
    ]
    for name in root.list_commands(ctx):
        sub = root.get_command(ctx, name)
        if sub is not None and not sub.hidden:
            _command(lines, sub, f"awp {name}", 2, typer.Context(sub, info_name=name, parent=ctx))
    return "\n".join(lines) + "\n"


def export_formats() -> str:
    """The registered export formats (`backend.export.builders.FORMATS`) as a table.

    The link columns every annotated-row format shares are listed once, after the table.
    """
    from backend.export.builders import FORMATS

    formats = list(FORMATS.items())
    linked = [
        f.row_model.model_fields for _, f in formats if "prediction_id" in f.row_model.model_fields
    ]
    shared = set.intersection(*map(set, linked)) if linked else set()
    lines = [
        "| format | what it is | its own columns | needs an annotation | file |",
        "|---|---|---|---|---|",
    ]
    for name, fmt in formats:
        own = [c for c in fmt.row_model.model_fields if c not in shared]
        needs = "yes" if fmt.needs_annotation else "no"
        kind = "JSONL only" if fmt.json_only else "JSONL, Parquet, datasets folder"
        if fmt.writer is not None:
            kind = "its own file"
        columns = ", ".join(f"`{c}`" for c in own)
        lines.append(f"| `{name}` | {cell(fmt.description)} | {columns} | {needs} | {kind} |")
    if linked:
        order = ", ".join(f"`{c}`" for c in linked[0] if c in shared)
        lines += ["", f"Every row of the formats with links also carries {order}."]
    return "\n".join(lines) + "\n"


MARKERS = {"<!-- generated: export formats -->": export_formats}


def on_page_markdown(markdown: str, page: Any, config: MkDocsConfig, files: Files) -> str:
    """Fill the generated tables a hand-written page asks for with a marker line."""
    for marker, make in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, make())
    return markdown


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated reference pages to the site (before the nav is resolved)."""
    for path, content in ((SETTINGS_PAGE, settings_page()), (CLI_PAGE, cli_page())):
        files.append(File.generated(config, path, content=content))
    return files
