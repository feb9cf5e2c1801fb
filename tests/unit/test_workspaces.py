"""The app's map: every page in exactly one workspace, and links land where they say."""

from __future__ import annotations

from ui.app import linked_tabs
from ui.workspaces import WORKSPACES, page_id


def test_every_page_is_in_one_workspace_and_data_is_for_admins():
    ids = [page_id(module) for space in WORKSPACES for _, module in space.pages]
    assert len(ids) == len(set(ids)) == 13
    assert [space.id for space in WORKSPACES] == [
        "start",
        "explore",
        "evaluate",
        "feedback",
        "data",
    ]
    assert [space.id for space in WORKSPACES if space.admin_only] == ["data"]


def test_links_open_their_workspace_and_page():
    def where(query: dict[str, str]) -> tuple[str | None, str | None]:
        space, page = linked_tabs(query)
        return (space.id if space else None), page

    assert where({"workspace": "evaluate"}) == ("evaluate", None)
    assert where({"tab": "runs"}) == ("evaluate", "runs")
    assert where({"session": "3"}) == ("explore", "sessions")
    assert where({"annotation": "7"}) == ("explore", "sessions")  # a correction's session
    assert where({"recording": "rec/a", "turn": "2"}) == ("explore", "replay")
    assert where({"run": "2", "item": "9"}) == ("evaluate", "runs")
    assert where({"prediction": "4"}) == ("feedback", "annotate")
    assert where({"tab": "nonsense"}) == (None, "nonsense")
    assert where({}) == (None, None)
