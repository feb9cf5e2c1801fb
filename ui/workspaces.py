"""The app's map: a Start page and four workspaces, each a few pages, in the order shown.

A workspace groups pages by what a person came to do (explore a model, evaluate it, give human
feedback, build data and train); each page keeps its own module with `render(services)` and
`wire(page, services)`. Links name a workspace and a page by id: `?workspace=evaluate&tab=runs`.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from ui.pages import (
    agreement,
    annotate,
    arena,
    benchmark,
    export,
    playground,
    real_or_not,
    replay,
    rollouts,
    runs,
    sessions,
    start,
    train,
)


@dataclass(frozen=True)
class Workspace:
    """One top-level tab.

    Attributes:
        id: its name in links (`?workspace=<id>`) and its tab id.
        title: the tab's title.
        blurb: one line under the title saying what it is for.
        pages: (tab title, page module) in tab order; a single page is shown without inner tabs.
    """

    id: str
    title: str
    blurb: str
    pages: tuple[tuple[str, ModuleType], ...]

    @property
    def admin_only(self) -> bool:
        """Whether only admins see it (every page in it is for admins)."""
        return all(getattr(module, "ADMIN_ONLY", False) for _, module in self.pages)


def page_id(module: ModuleType) -> str:
    """A page's name in links and its tab id: its module's name (`annotate`, `runs`)."""
    return module.__name__.rsplit(".", 1)[-1]


WORKSPACES = (
    Workspace("start", "Start", "", (("Start", start),)),
    Workspace(
        "explore",
        "Explore",
        "Act against a world model, replay recordings, and browse every stored session.",
        (("Playground", playground), ("Replay", replay), ("Sessions", sessions)),
    ),
    Workspace(
        "evaluate",
        "Evaluate",
        "Score engines on recorded steps, run agents in the model, and read every run.",
        (("Benchmark", benchmark), ("Rollouts", rollouts), ("Runs", runs)),
    ),
    Workspace(
        "feedback",
        "Human feedback",
        "Correct predictions, tell real from predicted, vote in the arena, measure agreement.",
        (
            ("Annotate", annotate),
            ("Which one is real?", real_or_not),
            ("Arena", arena),
            ("Agreement", agreement),
        ),
    ),
    Workspace(
        "data",
        "Data and training",
        "Export reviewed data as training sets, and fine-tune a model on them (admins).",
        (("Export", export), ("Train", train)),
    ),
)


def locate(page: str) -> Workspace | None:
    """The workspace that holds the page with id `page`."""
    return next((w for w in WORKSPACES if any(page_id(m) == page for _, m in w.pages)), None)
