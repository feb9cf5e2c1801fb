"""Human-readable views of BenchResults: the per-domain table and the per-domain bar chart."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backend.benchmark.intervals import Interval
from backend.benchmark.results import BenchResults, EngineStats

CHART_FILE = "per_domain.png"


def _domains(results: BenchResults) -> list[str]:
    return sorted({d for stats in results.engines.values() for d in stats.domains})


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}"


def _judge_cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _headline_values(stats: EngineStats, domains: list[str]) -> list[float | None]:
    return [stats.domains[d].headline_value if d in stats.domains else None for d in domains]


def _judge_values(stats: EngineStats, domains: list[str]) -> list[float | None]:
    values: list[float | None] = []
    for domain in domains:
        judge = stats.domains[domain].judge if domain in stats.domains else None
        values.append(judge.score_100 if judge else None)
    return values


def _interval_cell(value: float | None, interval: Interval | None) -> str:
    if value is None:
        return "-"
    if interval is None:
        return _cell(value)
    low, high = interval
    return f"{_cell(value)} [{_cell(low)}, {_cell(high)}]"


def format_table(results: BenchResults) -> str:
    """The per-domain table, then the same headline numbers with their 95% intervals.

    The first table is headline metric x100 per engine, then judge scores if any; each domain's
    headline metric is named in the note; Overall columns are labelled macro (mean of domains)
    and micro (pooled items). The second block turns the table around (one line per domain,
    one column per engine) so that `value [low, high]` cells stay readable in a terminal.
    """
    domains = _domains(results)
    header = ["engine", *domains, "Overall macro", "Overall micro", "items", "failed"]
    lines = [header]
    for name, stats in results.engines.items():
        overall = stats.headline_overall
        lines.append(
            [
                name,
                *(_cell(v) for v in _headline_values(stats, domains)),
                _cell(overall.macro),
                _cell(overall.micro),
                str(stats.items),
                str(stats.failures),
            ]
        )
    for name, stats in results.engines.items():
        if stats.judge_overall is not None:
            judged = stats.judge_overall
            lines.append(
                [
                    f"{name} (judge 0-100)",
                    *(_judge_cell(v) for v in _judge_values(stats, domains)),
                    _judge_cell(judged.macro),
                    _judge_cell(judged.micro),
                    str(stats.items),
                    str(stats.failures),
                ]
            )
    notes = _headline_note(results, domains)
    block = [*_aligned(lines), "", notes, "", *_interval_block(results, domains)]
    return "\n".join([*block, *_auroc_lines(results, domains)])


def _auroc_lines(results: BenchResults, domains: list[str]) -> list[str]:
    """Per engine, the AUROC of its confidence against headline >= 0.5 (where it gives one)."""
    lines = []
    for name, stats in results.engines.items():
        cells = [
            f"{domain} {found:.2f}"
            for domain in domains
            if (kept := stats.domains.get(domain)) is not None
            and (found := kept.confidence_auroc) is not None
        ]
        if cells:
            lines.append(f"{name}: confidence AUROC vs headline >= 0.5: {', '.join(cells)}")
    return ["", *lines] if lines else []


def _aligned(lines: list[list[str]], label_left: bool = False) -> list[str]:
    """Right-aligned columns (the first one left-aligned if asked) with a rule under the header."""
    widths = [max(len(row[i]) for row in lines) for i in range(len(lines[0]))]

    def fit(i: int, cell: str) -> str:
        return cell.ljust(widths[i]) if label_left and i == 0 else cell.rjust(widths[i])

    rendered = ["  ".join(fit(i, cell) for i, cell in enumerate(row)) for row in lines]
    rendered.insert(1, "  ".join("-" * width for width in widths))
    return rendered


def _interval_block(results: BenchResults, domains: list[str]) -> list[str]:
    engines = list(results.engines.items())
    names = _headline_names(results, domains)
    lines = [["domain (headline)", *(name for name, _ in engines)]]
    for domain in domains:
        stats = [engine.domains.get(domain) for _, engine in engines]
        cells = [_interval_cell(s.headline_value, s.headline_interval) if s else "-" for s in stats]
        lines.append([f"{domain} ({names[domain]})", *cells])
    for label in ("macro", "micro"):
        cells = []
        for _, engine in engines:
            overall = engine.headline_overall
            cells.append(
                _interval_cell(getattr(overall, label), getattr(overall, f"{label}_interval"))
            )
        lines.append([f"Overall {label}", *cells])
    return ["Headline x100, bootstrap 95% interval [low, high]:", *_aligned(lines, True)]


def _headline_names(results: BenchResults, domains: list[str]) -> dict[str, str]:
    names: dict[str, str] = {}
    for stats in results.engines.values():
        for domain in domains:
            if domain in stats.domains:
                names[domain] = stats.domains[domain].headline
    return names


def _headline_note(results: BenchResults, domains: list[str]) -> str:
    names = _headline_names(results, domains)
    listed = ", ".join(f"{d}={names[d]}" for d in domains if d in names)
    return (
        f"Headline metric x100 per domain ({listed}). "
        "Overall macro = mean of domains; micro = pooled items."
    )


def _headline_errors(stats: EngineStats, domains: list[str]) -> list[Interval | None]:
    return [stats.domains[d].headline_interval if d in stats.domains else None for d in domains]


Values = Callable[[EngineStats, list[str]], list[float | None]]
Errors = Callable[[EngineStats, list[str]], list[Interval | None]]


@dataclass(frozen=True)
class Panel:
    """One chart panel: what it plots, its whiskers (None: none), scale and tick labels."""

    title: str
    values_of: Values
    errors_of: Errors | None
    scale: float
    ticks: list[str]


def _bars(
    axis: Any,
    positions: list[float],
    values: list[float | None],
    errors: list[Interval | None] | None,
    width: float,
    scale: float,
    label: str,
) -> None:
    """One engine's bars, with 95% interval whiskers if given and each value above its bar."""
    intervals = errors or [None] * len(values)
    shown = [
        (x, v * scale, e)
        for x, v, e in zip(positions, values, intervals, strict=True)
        if v is not None
    ]
    if not shown:
        return
    xs, heights = [x for x, _, _ in shown], [h for _, h, _ in shown]
    below = [h - e[0] * scale if e else 0.0 for _, h, e in shown]
    above = [e[1] * scale - h if e else 0.0 for _, h, e in shown]
    whiskers: dict[str, Any] = {}
    if errors is not None:
        whiskers = {
            "yerr": [below, above],
            "capsize": 3,
            "error_kw": {"elinewidth": 1, "ecolor": "#333333"},
        }
    axis.bar(xs, heights, width, label=label, **whiskers)
    for x, height, top in zip(xs, heights, above, strict=True):
        axis.annotate(
            f"{height:.1f}",
            (x, height + top),
            xytext=(0, 2),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=7,
        )


def write_chart(results: BenchResults, out_dir: Path) -> Path:
    """Grouped bars per domain, one bar per engine: headline metric, plus judge when present.

    Whiskers are the headline's bootstrap 95% intervals; the y axis leaves room above 100 for
    the value labels, and the legend sits below the plot so it never hides a bar.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    domains = _domains(results)
    names = _headline_names(results, domains)
    panels = [
        Panel(
            "headline metric x100 (whiskers: 95% interval)",
            _headline_values,
            _headline_errors,
            100.0,
            [f"{d}\n{names.get(d, '')}" for d in domains],
        ),
    ]
    if any(stats.judge_overall is not None for stats in results.engines.values()):
        panels.append(Panel("judge score (0-100)", _judge_values, None, 1.0, domains))
    engines = len(results.engines)
    figure, axes = plt.subplots(
        len(panels), 1, figsize=(max(7, 1.5 * len(domains)), 4.2 * len(panels)), squeeze=False
    )
    width = 0.8 / max(1, engines)
    for axis, panel in zip(axes[:, 0], panels, strict=True):
        for offset, (name, stats) in enumerate(results.engines.items()):
            errors = panel.errors_of(stats, domains) if panel.errors_of else None
            positions = [i + offset * width for i in range(len(domains))]
            _bars(
                axis, positions, panel.values_of(stats, domains), errors, width, panel.scale, name
            )
        axis.set_xticks([i + width * (engines - 1) / 2 for i in range(len(domains))])
        axis.set_xticklabels(panel.ticks, fontsize=8)
        axis.set_ylim(0, 112)
        axis.set_yticks(range(0, 101, 20))
        axis.set_title(f"{results.dataset}: {panel.title}", fontsize=10)
        axis.legend(
            loc="upper center",
            bbox_to_anchor=(0.5, -0.2),
            ncol=min(engines, 4),
            frameon=False,
            fontsize=8,
        )
    figure.tight_layout()
    path = out_dir / CHART_FILE
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
