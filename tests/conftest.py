"""Shared fixtures: each tier's support modules are registered as pytest plugins here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.prepared_model import link_prepared_model

pytest_plugins = [
    "tests.support.fixtures",
    "tests.support.postgres",
    "tests.support.cli",
    "tests.support.inspect_ep",
    "tests.support.hygiene",
]

REPO = Path(__file__).resolve().parents[1]
RECORDED = REPO.parent / "shared" / "data" / "recorded"


HEAVY_FIXTURES = frozenset({"tiny_model_dir", "openai_server"})
"""Fixtures that build and load a model or start `transformers serve`: their users are `slow`."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark what the fast tier (`make test-fast`) must leave out, whatever a module declares.

    A test that needs a heavy fixture (directly or through another fixture) is `slow`; every test
    under tests/browser is `browser`. An explicit marker in the module stays the documentation.
    """
    browser_dir = Path(__file__).parent / "browser"
    for item in items:
        if HEAVY_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
        if browser_dir in Path(item.path).parents:
            item.add_marker(pytest.mark.browser)
    items[:] = heaviest_files_first(items)


def heaviest_files_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """The items, whole files at a time, those with the most slow or browser tests first.

    The workers (`--dist loadfile --no-loadscope-reorder`, scripts/run_tests.sh) take files in
    this order, so the files of a few minutes start early and the many light ones fill the end:
    one worker no longer runs a model file alone while the other has finished. A file's tests
    stay together and in their order, so its module fixtures are still built once.
    """
    files: dict[Path, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(Path(item.path), []).append(item)

    def heavy(tests: list[pytest.Item]) -> int:
        return sum(1 for test in tests if any(map(test.get_closest_marker, ("slow", "browser"))))

    ordered = sorted(files.values(), key=heavy, reverse=True)  # stable: ties keep their order
    return [item for tests in ordered for item in tests]


@pytest.fixture(scope="session")
def recorded_root() -> Path:
    """The real recorded transitions shipped beside the project."""
    if not RECORDED.is_dir():
        pytest.skip(f"recorded data not found at {RECORDED}")
    return RECORDED


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A fresh data directory that reuses the embedded model prepared by `awp model prepare`."""
    target = tmp_path / "data"
    target.mkdir()
    return link_prepared_model(target)
