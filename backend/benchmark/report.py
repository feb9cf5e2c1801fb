"""Human-readable views of BenchResults: the per-domain table and the per-domain bar chart."""

from __future__ import annotations

from pathlib import Path

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


def format_table(results: BenchResults) -> str:
    """The per-domain table: headline metric x100 per engine, then judge scores if any.

    Each domain's headline metric is named in the header note; Overall columns are labelled
    macro (mean of domains) and micro (pooled items).
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
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    rendered = ["  ".join(cell.rjust(widths[i]) for i, cell in enumerate(row)) for row in lines]
    rendered.insert(1, "  ".join("-" * width for width in widths))
    notes = _headline_note(results, domains)
    return "\n".join([*rendered, "", notes])


def _headline_note(results: BenchResults, domains: list[str]) -> str:
    names: dict[str, str] = {}
    for stats in results.engines.values():
        for domain in domains:
            if domain in stats.domains:
                names[domain] = stats.domains[domain].headline
    listed = ", ".join(f"{d}={names[d]}" for d in domains if d in names)
    return (
        f"Headline metric x100 per domain ({listed}). "
        "Overall macro = mean of domains; micro = pooled items."
    )


def write_chart(results: BenchResults, out_dir: Path) -> Path:
    """Grouped bars per domain, one bar per engine: headline metric, plus judge when present."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    domains = _domains(results)
    judged = any(stats.judge_overall is not None for stats in results.engines.values())
    panels = [("headline metric x100", _headline_values, 100.0)]
    if judged:
        panels.append(("judge score (0-100)", _judge_values, 1.0))
    figure, axes = plt.subplots(
        len(panels), 1, figsize=(max(6, 1.4 * len(domains)), 4 * len(panels))
    )
    axes_list = list(axes) if len(panels) > 1 else [axes]
    width = 0.8 / max(1, len(results.engines))
    for axis, (title, values_of, scale) in zip(axes_list, panels, strict=True):
        for offset, (name, stats) in enumerate(results.engines.items()):
            values = [(v or 0.0) * scale for v in values_of(stats, domains)]
            positions = [i + offset * width for i in range(len(domains))]
            axis.bar(positions, values, width, label=name)
        axis.set_xticks([i + width * (len(results.engines) - 1) / 2 for i in range(len(domains))])
        axis.set_xticklabels(domains)
        axis.set_ylim(0, 100)
        axis.set_title(f"{results.dataset}: {title}")
        axis.legend()
    figure.tight_layout()
    path = out_dir / CHART_FILE
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path
