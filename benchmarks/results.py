"""One way every benchmark writes its results: stamped JSON, Markdown rendered from it, an index.

The manual quotes no figure typed by hand. A benchmark run with `--results` writes
`docs/results/<name>.json` (its tables and raw data, stamped with the git commit and whether the
tree was dirty, the machine, the load average at start and end, the date and the exact command
that regenerates it) and `docs/results/<name>.md`, which is rendered from that JSON and nothing
else, then rewrites `docs/results/index.md` from every JSON there.
`tests/unit/test_results_files.py` re-renders each Markdown file from its JSON, so a figure
edited by hand fails the fast tier.

Usage (inside a benchmark):

    run = ResultsRun("layer", "The environment layer's cost per step")
    ...measure...
    run.write([Table(...)], data={...}, notes=["sizes cut to fit two cores"])

`python benchmarks/results.py` checks the folder; `--rerender` rewrites the pages from their JSON
after a change to the rendering (no figure changes).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = ROOT / "docs" / "results"
STAMP_FIELDS = (
    "commit",
    "dirty",
    "machine",
    "load_start",
    "load_end",
    "started",
    "finished",
    "command",
)
MACHINE_FIELDS = ("cores", "memory_gib", "cpu_model", "python", "platform")
INDEX = "index.md"


@dataclass
class Table:
    """One Markdown table: a heading, its columns and rows of cells (numbers or text)."""

    title: str
    columns: list[str]
    rows: list[list[Any]]
    caption: str = ""


@dataclass
class Results:
    """What a results file holds; the Markdown is a pure function of it."""

    name: str
    title: str
    summary: str
    stamp: dict[str, Any]
    tables: list[Table]
    notes: list[str] = field(default_factory=list)
    data: Any = None


def git_state(root: Path = ROOT) -> tuple[str, bool]:
    """The commit checked out and whether the tree differs from it.

    Changes under docs/results/ are left out: a `make results` run writes them itself, and the
    second benchmark of a run must not call the first one's output a dirty tree.
    """
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--", ".", ":(exclude)docs/results"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown", True
    return commit, bool(status.strip())


def machine() -> dict[str, Any]:
    """Cores this process may use, memory, CPU model, Python: what a figure depends on."""
    model = "unknown"
    memory = 0.0
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = int(line.split()[1]) / 2**20
                break
    except OSError:
        pass
    if model == "unknown":
        model = platform.processor() or platform.machine()
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "cores": cores,
        "memory_gib": round(memory, 1),
        "cpu_model": model,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def load() -> list[float]:
    """The 1, 5 and 15 minute load averages (a busy machine makes every time longer)."""
    return [round(value, 2) for value in os.getloadavg()]


def command_line(argv: Sequence[str] | None = None) -> str:
    """The command that regenerates the results, from the repository root.

    It is this process's own command line with the script path made relative, so the stamp says
    exactly which sizes and options produced the figures.
    """
    args = list(sys.argv if argv is None else argv)
    script = Path(args[0]).resolve()
    with contextlib.suppress(ValueError):
        args[0] = str(script.relative_to(ROOT))
    return "PYTHONPATH=. .venv/bin/python " + shlex.join(args)


def now() -> str:
    """UTC time to the second, ISO 8601."""
    return datetime.now(UTC).replace(microsecond=0).isoformat()


class ResultsRun:
    """A benchmark run being measured: created before the work (the start load), written after.

    Args:
        name: file stem under docs/results/ (letters, digits, dashes).
        title: the heading of the results page.
        summary: one paragraph saying what is measured and how.
        argv: the command line (default: this process's).
        folder: where to write (default docs/results/; tests use a scratch folder).
    """

    def __init__(
        self,
        name: str,
        title: str,
        summary: str,
        argv: Sequence[str] | None = None,
        folder: Path | None = None,
    ) -> None:
        self.name = name
        self.title = title
        self.summary = summary
        self.folder = folder or RESULTS_DIR
        self.command = command_line(argv)
        self.commit, self.dirty = git_state()
        self.load_start = load()
        self.started = now()

    def stamp(self) -> dict[str, Any]:
        """Everything that says where and when the figures were taken, with the end load.

        The commit is the one checked out when the run began (the code it imported); a tree
        that changed during the run counts as dirty.
        """
        commit, dirty = git_state()
        return {
            "commit": self.commit,
            "dirty": self.dirty or dirty or commit != self.commit,
            "machine": machine(),
            "load_start": self.load_start,
            "load_end": load(),
            "started": self.started,
            "finished": now(),
            "command": self.command,
        }

    def write(self, tables: Sequence[Table], data: Any = None, notes: Sequence[str] = ()) -> Path:
        """Write `<name>.json` and `<name>.md`, then the index; returns the Markdown path."""
        results = Results(
            self.name, self.title, self.summary, self.stamp(), list(tables), list(notes), data
        )
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / f"{self.name}.json").write_text(dumps(results))
        markdown = self.folder / f"{self.name}.md"
        markdown.write_text(render(results))
        (self.folder / INDEX).write_text(render_index(self.folder))
        return markdown


def dumps(results: Results) -> str:
    """The JSON text of a results file (stable key order, so diffs show what changed)."""
    return json.dumps(asdict(results), indent=2, default=str) + "\n"


def load_results(path: Path) -> Results:
    """Read a results JSON file back."""
    raw = json.loads(path.read_text())
    raw["tables"] = [Table(**table) for table in raw["tables"]]
    return Results(**raw)


def cell(value: Any) -> str:
    """A table cell: numbers without false precision, None as a dash, pipes escaped."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if abs(value) >= 100:
            return f"{value:,.0f}"
        digits = 1 if abs(value) >= 10 else 3
        return f"{value:.{digits}f}".rstrip("0").rstrip(".")
    return str(value).replace("|", "\\|")


def table_markdown(table: Table) -> list[str]:
    """The lines of one table, heading and caption included."""
    lines = [f"## {table.title}", ""]
    if table.caption:
        lines += [table.caption, ""]
    lines.append("| " + " | ".join(table.columns) + " |")
    lines.append("|" + "|".join("---" for _ in table.columns) + "|")
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in table.rows]
    return [*lines, ""]


def show(tables: Sequence[Table]) -> None:
    """Print tables as the Markdown they become, so a run's output reads like its results file."""
    for table in tables:
        print("\n".join(table_markdown(table)))


def stamp_markdown(stamp: dict[str, Any]) -> list[str]:
    """The stamp as a two-column table under its own heading."""
    box = stamp["machine"]
    state = "dirty tree" if stamp["dirty"] else "clean tree"
    rows = [
        ("commit", f"`{stamp['commit'][:12]}` ({state})"),
        (
            "machine",
            f"{box['cores']} cores, {box['memory_gib']} GiB, {box['cpu_model']}, "
            f"Python {box['python']}",
        ),
        (
            "load average (1, 5, 15 min)",
            f"start {' / '.join(map(str, stamp['load_start']))}, "
            f"end {' / '.join(map(str, stamp['load_end']))}",
        ),
        ("measured", f"{stamp['started']} to {stamp['finished']}"),
        ("regenerate", f"`{stamp['command']}`"),
    ]
    lines = ["## How these figures were made", "", "| | |", "|---|---|"]
    lines += [f"| {key} | {cell(value)} |" for key, value in rows]
    return [*lines, ""]


def render(results: Results) -> str:
    """The Markdown page of a results file: title, summary, tables, notes, then the stamp."""
    lines = [
        f"# {results.title}",
        "",
        "<!-- Generated from "
        f"{results.name}.json by benchmarks/results.py; do not edit: rerun the command below. -->",
        "",
        results.summary,
        "",
    ]
    for table in results.tables:
        lines += table_markdown(table)
    if results.notes:
        lines += ["## Notes", ""] + [f"- {note}" for note in results.notes] + [""]
    lines += stamp_markdown(results.stamp)
    return "\n".join(lines)


def render_index(folder: Path = RESULTS_DIR) -> str:
    """The index of every results file in `folder`, with the command that regenerates it."""
    lines = [
        "# Results",
        "",
        "<!-- Generated by benchmarks/results.py; do not edit. -->",
        "",
        "Every figure the manual quotes comes from one of these files. `make results` regenerates "
        "them all (one benchmark at a time, sizes cut to run in minutes on two cores); each file "
        "names the commit, the machine and the load it was measured at, and its own command.",
        "",
        "| results | commit | measured | command |",
        "|---|---|---|---|",
    ]
    for path in sorted(folder.glob("*.json")):
        results = load_results(path)
        stamp = results.stamp
        commit = str(stamp.get("commit", "?"))[:12] + (" (dirty)" if stamp.get("dirty") else "")
        lines.append(
            f"| [{cell(results.title)}]({results.name}.md) | `{commit}` | "
            f"{stamp.get('started', '-')} | `{cell(stamp.get('command', '-'))}` |"
        )
    return "\n".join([*lines, ""])


def problems(folder: Path = RESULTS_DIR) -> list[str]:
    """What makes the results in `folder` other than generated: one sentence per fault.

    Every Markdown page but the index must have its JSON twin with a full stamp and a command
    that runs a script in benchmarks/, and must be exactly what `render` makes of that JSON; the
    index must be what `render_index` makes of the folder. A figure typed or edited by hand
    breaks the last condition.
    """
    found = []
    for page in sorted(folder.glob("*.md")):
        if page.name == INDEX:
            continue
        twin = page.with_suffix(".json")
        if not twin.exists():
            found.append(f"{page.name} has no {twin.name}: it was not written by a benchmark")
            continue
        results = load_results(twin)
        missing = [name for name in STAMP_FIELDS if name not in results.stamp]
        missing += [f"machine.{m}" for m in MACHINE_FIELDS if m not in results.stamp["machine"]]
        if missing:
            found.append(f"{twin.name} lacks stamp fields {', '.join(missing)}")
            continue
        script = next(
            (word for word in shlex.split(results.stamp["command"]) if word.endswith(".py")), ""
        )
        if not script.startswith("benchmarks/") or not (ROOT / script).exists():
            found.append(f"{twin.name}: its command runs no script in benchmarks/")
        if page.read_text() != render(results):
            found.append(
                f"{page.name} differs from what {twin.name} renders: edited by hand (or rendered "
                "before a change to benchmarks/results.py: run it with --rerender)"
            )
    for twin in sorted(folder.glob("*.json")):
        if not twin.with_suffix(".md").exists():
            found.append(f"{twin.name} has no page")
    index = folder / INDEX
    if not index.exists() or index.read_text() != render_index(folder):
        found.append(f"{INDEX} is not the index of the files here: rerun a benchmark to rewrite it")
    return found


def rerender(folder: Path = RESULTS_DIR) -> None:
    """Rewrite every page and the index from the JSON files, after a change to the rendering.

    No figure is measured or changed: the pages are rendered again from what was stamped.
    """
    for twin in sorted(folder.glob("*.json")):
        twin.with_suffix(".md").write_text(render(load_results(twin)))
    (folder / INDEX).write_text(render_index(folder))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Check or re-render docs/results/.")
    parser.add_argument("--rerender", action="store_true", help="rewrite pages from their JSON")
    if parser.parse_args().rerender:
        rerender()
    faults = problems()
    print("\n".join(faults) or f"{RESULTS_DIR}: every page generated and stamped")
    sys.exit(1 if faults else 0)
