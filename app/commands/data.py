"""`awp import`: store AgentWorldBench rows or the bundled recorded trajectories in the database."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated

import typer

from app.context import build_context
from backend.sources import FILE_KEY
from backend.types import Trajectory

import_cli = typer.Typer(help="Import trajectories into the database.", no_args_is_help=True)


def store(trajectories: Iterable[Trajectory]) -> int:
    """Store trajectories (a list or a lazy stream) in batches; returns how many were stored."""
    with build_context() as context:
        return context.trajectories.upsert_many(trajectories)


def from_file(trajectories: Iterable[Trajectory], path: Path) -> Iterator[Trajectory]:
    """The trajectories with the file they were imported from, which their turns' source names."""
    for trajectory in trajectories:
        yield trajectory.model_copy(
            update={"metadata": {**trajectory.metadata, FILE_KEY: str(path)}}
        )


def print_counts(label: str, counts: Counter[str], total_label: str) -> None:
    """Print one line per domain and a total."""
    for domain, count in sorted(counts.items()):
        typer.echo(f"  {domain:<10} {count:>6} {label}")
    typer.echo(f"  {'total':<10} {sum(counts.values()):>6} {total_label}")


@import_cli.command("agentworldbench")
def import_agentworldbench(
    path: Annotated[Path, typer.Argument(help="A JSONL/Parquet file, a folder, or a hub dataset.")],
) -> None:
    """Import AgentWorldBench rows (the official row format) as trajectories.

    Every row is checked before anything is stored; then trajectories are built and stored a
    batch at a time, so memory stays flat however large the files are.
    """
    from backend.data.awb_import import AgentWorldBenchScan

    scan = AgentWorldBenchScan(path)
    stored = store(from_file(scan.trajectories(), path))
    typer.echo(f"Imported {sum(scan.rows.values())} rows from {path}:")
    print_counts("rows", scan.rows, "rows")
    print_counts("trajectories", scan.trajectory_counts(), "trajectories stored")
    if scan.duplicates:
        typer.echo(f"Skipped {len(scan.duplicates)} duplicate rows: {', '.join(scan.duplicates)}")
    if stored != len(scan):
        typer.echo(f"Stored {stored} of {len(scan)} trajectories.")


@import_cli.command("recorded")
def import_recorded(
    root: Annotated[
        Path | None,
        typer.Option(help="Convert this recorded-data folder instead of the bundled set."),
    ] = None,
) -> None:
    """Import the bundled real recorded trajectories (or convert a recorded-data folder)."""
    if root is None:
        from backend.data.bundled import load_bundled

        trajectories = load_bundled()
    else:
        from backend.data.recorded import load_recorded

        trajectories = load_recorded(root)
    store(trajectories)
    typer.echo(f"Imported {len(trajectories)} recorded trajectories:")
    print_counts("trajectories", Counter(t.domain for t in trajectories), "trajectories stored")


def trajectory_command(name: str, description: str) -> None:
    """Add `awp import NAME PATH`: a trajectory format's file stored as trajectories."""

    def run(
        path: Annotated[Path, typer.Argument(help="The file to import.")],
        domain: Annotated[
            str | None, typer.Option(help="The trajectories' domain (default: from their tools).")
        ] = None,
    ) -> None:
        from backend.data.formats.registry import TRAJECTORY_FORMATS

        trajectories = list(from_file(TRAJECTORY_FORMATS.get(name).read(path, domain), path))
        store(trajectories)
        typer.echo(f"Imported {len(trajectories)} {name} trajectories from {path}:")
        print_counts("trajectories", Counter(t.domain for t in trajectories), "trajectories stored")

    run.__doc__ = f"Import {description}"
    import_cli.command(name)(run)


def register(cli: typer.Typer) -> None:
    """Add the `import` command group to the CLI."""
    from backend.data.formats.registry import TRAJECTORY_FORMATS

    for name, fmt in TRAJECTORY_FORMATS.items():
        trajectory_command(name, fmt.description)
    cli.add_typer(import_cli, name="import")
