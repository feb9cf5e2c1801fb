"""Agreement dashboard (admins): can the LLM judge stand in for people, and do people agree?

Per domain and rubric dimension: the judge against each person (quadratic-weighted Cohen's kappa,
Spearman) beside people against each other (the same, plus Krippendorff's alpha over everyone),
the verdicts side by side, and the predictions the judge and a person scored furthest apart,
each a link that opens it on the Annotate page. Admins only: it names every annotator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gradio as gr

from backend.compare.agreement_report import AgreementReport
from backend.compare.report import ALL
from backend.domains.base import all_domains
from backend.verdicts import Verdict
from ui.errors import guarded
from ui.judging import judge_line
from ui.renderers.base import esc
from ui.services import Services
from ui.users import AccessDeniedError
from ui.views import empty

ADMIN_ONLY = True
DIMENSION_HEADERS = [
    "dimension",
    "judge-human pairs",
    "judge-human kappa",
    "judge-human rho",
    "human-human pairs",
    "human-human kappa",
    "human-human rho",
    "alpha (all people)",
]
JUDGE_VERDICTS = ("accept", "reject")
NOT_YET_READ = (
    "Press Refresh to list the predictions the judge and a person scored furthest apart; an "
    "item is listed once it has both a judge verdict and a person's ratings."
)
NO_PAIR_YET = (
    "No disagreement to list: no prediction has both a judge verdict and a person's ratings "
    "yet. Judge predictions that people rated (Judge this, or awp judge) to fill it."
)


@dataclass(frozen=True)
class AgreementPage:
    """The page's components."""

    domain: gr.Dropdown
    refresh: gr.Button
    overlap: gr.Markdown
    dimensions: gr.Dataframe
    confusion: gr.Dataframe
    worst: gr.HTML
    confidence: gr.Dataframe

    @property
    def shown(self) -> list[Any]:
        """What a refresh updates."""
        return [self.dimensions, self.confusion, self.worst, self.confidence]


def overlap_sentence(overlap: int | None) -> str:
    """How many people see each item before it leaves the queues, in words."""
    if not overlap:
        return "Items stay in the queue for any number of annotators"
    if overlap == 1:
        return "Each item leaves the queue after **one** annotator"
    return f"Each item leaves the queue after **{overlap}** different annotators"


def render(services: Services) -> AgreementPage:
    """Build the page (inside the caller's Tab)."""
    domains = [("All domains", ALL)] + [(d.title, d.name) for d in all_domains()]
    with gr.Row(equal_height=True):
        domain = gr.Dropdown(domains, value=ALL, label="Domain", scale=3, elem_id="ag-domain")
        refresh = gr.Button("Refresh", variant="primary", scale=1, elem_id="ag-refresh")
    overlap = gr.Markdown(
        f"{overlap_sentence(services.queue.overlap)} (`AWP_ANNOTATION_OVERLAP`; 2 or 3 for an "
        "agreement study). Kappa and rho: 1 perfect, 0 chance. The judge **accepts** a "
        "prediction when its total is 4 or more."
    )
    gr.Markdown(judge_line(services), elem_id="ag-judge-engine")
    dimensions = gr.Dataframe(
        headers=DIMENSION_HEADERS,
        interactive=False,
        label="Agreement per rubric dimension",
        elem_id="ag-dimensions",
    )
    confusion = gr.Dataframe(
        headers=["judge \\ person", *(v.label for v in Verdict)],
        interactive=False,
        label="Verdicts: the judge's (rows) against people's (columns)",
        elem_id="ag-confusion",
    )
    gr.Markdown("#### Worst disagreements (judge total against the person's mean rating)")
    worst = gr.HTML(empty(NOT_YET_READ), elem_id="ag-worst")
    confidence = gr.Dataframe(
        headers=CONFIDENCE_HEADERS,
        interactive=False,
        label="The model's confidence as a detector of good predictions (AUROC: 1 perfect, "
        "0.5 chance)",
        elem_id="ag-confidence",
    )
    return AgreementPage(domain, refresh, overlap, dimensions, confusion, worst, confidence)


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def dimension_rows(report: AgreementReport, domain: str) -> list[list[Any]]:
    """One row per rubric dimension of `domain`."""
    rows = [
        [
            d.dimension,
            d.judge_human.pairs,
            _number(d.judge_human.kappa),
            _number(d.judge_human.spearman),
            d.human_human.pairs,
            _number(d.human_human.kappa),
            _number(d.human_human.spearman),
            _number(d.alpha),
        ]
        for d in report.dimensions
        if d.domain == domain
    ]
    return rows or [["no judge verdicts or shared annotations yet", 0, "", "", 0, "", "", ""]]


def confusion_rows(report: AgreementReport, domain: str) -> list[list[Any]]:
    """Judge verdict rows against people's verdict columns."""
    cells = {(c.judge, c.human): c.count for c in report.confusion if c.domain == domain}
    return [
        [f"judge {judge}", *(cells.get((judge, v.value), 0) for v in Verdict)]
        for judge in JUDGE_VERDICTS
    ]


CONFIDENCE_HEADERS = [
    "domain",
    "verdicts",
    "AUROC vs people's accept",
    "scored",
    "AUROC vs headline >= 0.5",
]


def confidence_rows(report: AgreementReport, domain: str) -> list[list[Any]]:
    """The AUROC of confidence of `domain` (all: every domain's and the pooled one)."""
    rows = [
        [c.domain, c.verdicts, _number(c.verdict_auroc), c.scored, _number(c.headline_auroc)]
        for c in report.confidence
        if domain in (ALL, c.domain)
    ]
    return rows or [["no prediction with a confidence yet", 0, "", 0, ""]]


def worst_html(report: AgreementReport, domain: str) -> str:
    """The largest gaps, each linking to the prediction on the Annotate page."""
    rows = [d for d in report.worst if domain == ALL or d.domain == domain]
    if not rows:
        return empty(NO_PAIR_YET)
    body = "".join(
        f"<tr><td><a href='?prediction={d.prediction_id}' target='_blank'>#{d.prediction_id}</a>"
        f"</td><td>{esc(d.domain)}</td><td>{esc(d.engine)}</td><td>{d.judge_total:.1f}</td>"
        f"<td>{d.human_mean:.1f}</td><td>{d.gap:+.1f}</td><td>{esc(d.annotator)}</td>"
        f"<td>{esc(Verdict(d.human_verdict).label)}</td></tr>"
        for d in rows
    )
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "open on Annotate",
            "domain",
            "engine",
            "judge",
            "person",
            "gap",
            "annotator",
            "verdict",
        )
    )
    return f'<table class="awp-table" id="ag-worst-table"><tr>{head}</tr>{body}</table>'


def wire(page: AgreementPage, services: Services) -> None:
    """Bind the page's events (admins only, whatever the browser sends)."""

    def refresh(domain: str, request: gr.Request) -> list[Any]:
        if not services.identify(request).is_admin:
            raise AccessDeniedError("The agreement dashboard lists every annotator: admins only.")
        report = services.agreement()
        domain = domain or ALL
        return [
            dimension_rows(report, domain),
            confusion_rows(report, domain),
            worst_html(report, domain),
            confidence_rows(report, domain),
        ]

    gr.on(
        [page.refresh.click, page.domain.change],
        guarded(refresh),
        [page.domain],
        page.shown,
        api_name="agreement",
        concurrency_limit=None,
    )
