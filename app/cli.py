"""The `awp` command line: mounts one module per command group and translates errors once."""

from __future__ import annotations

import importlib
import signal
import sys
from types import FrameType

import typer
from pydantic import ValidationError
from typer.exceptions import TyperException

from backend.errors import AWPError

COMMAND_MODULES = (
    "app.commands.simulate",
    "app.commands.sessions",
    "app.commands.live",
    "app.commands.data",
    "app.commands.model",
    "app.commands.bench",
    "app.commands.rollout",
    "app.commands.env",
    "app.commands.mcp",
    "app.commands.db",
    "app.commands.annotations",
    "app.commands.judge",
    "app.commands.arena",
    "app.commands.export",
    "app.commands.train",
    "app.commands.train_agent",
    "app.commands.serve",
)

EXIT_USER_ERROR = 2


def build_cli() -> typer.Typer:
    """Create the Typer app; each command module contributes with `register(cli)`."""
    cli = typer.Typer(
        name="awp",
        help="AgentWorld Playground: simulate, score, annotate and export world-model predictions.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
    )
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            continue
        module.register(cli)
    return cli


def invalid_options(exc: ValidationError) -> str:
    """What a config refused, named as people set it: `--eval-split: Input should be ...`.

    Fields of `Settings` come from `AWP_...` variables, the others from a command's options.
    """

    def name(loc: tuple[int | str, ...]) -> str:
        field = ".".join(str(part) for part in loc)
        return f"AWP_{field.upper()}" if exc.title == "Settings" else f"--{field.replace('_', '-')}"

    return "; ".join(f"{name(error['loc'])}: {error['msg']}" for error in exc.errors())


def _stop_on_sigterm(signum: int, frame: FrameType | None) -> None:
    """SIGTERM ends a command as Ctrl-C does, so its run is recorded `interrupted`."""
    raise KeyboardInterrupt


def main() -> None:
    """Entry point: run the CLI, turning domain errors into one clear line and exit code 2."""
    signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        # Without standalone mode, click returns the exit code (130 on Ctrl-C) instead of exiting.
        code = build_cli()(prog_name="awp", standalone_mode=False)
    except AWPError as exc:
        typer.secho(f"Error: {exc}", fg=typer.colors.RED, err=True)
        sys.exit(EXIT_USER_ERROR)
    except ValidationError as exc:  # a command's options checked by its pydantic config
        typer.secho(f"Error: {invalid_options(exc)}", fg=typer.colors.RED, err=True)
        sys.exit(EXIT_USER_ERROR)
    except (typer.Abort, KeyboardInterrupt):
        typer.secho("Aborted.", err=True)
        sys.exit(130)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except TyperException as exc:  # usage errors arrive here with standalone_mode=False
        # Typer vendors click: its usage errors derive from TyperException, not click's own.
        show = getattr(exc, "show", None)
        if show is None:
            raise
        show()
        sys.exit(getattr(exc, "exit_code", EXIT_USER_ERROR))
    sys.exit(code if isinstance(code, int) else 0)
