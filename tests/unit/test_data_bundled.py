"""The bundled sample set: small, all seven domains, and exactly what the converters give."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from backend.data.bundled import BUNDLED_FILE, bundled_summary, load_bundled
from backend.data.recorded import CONVERTERS, load_recorded
from backend.domains import BUILTIN
from backend.types import Trajectory

REPO = Path(__file__).resolve().parents[2]
MAX_BUNDLED_BYTES = 1_500_000


@pytest.fixture(scope="module")
def recorded(recorded_root: Path) -> dict[str, Trajectory]:
    return {t.id: t for t in load_recorded(recorded_root)}


def test_bundled_set_is_small_and_covers_every_domain() -> None:
    path = REPO / "backend" / "data" / BUNDLED_FILE
    assert path.stat().st_size < MAX_BUNDLED_BYTES
    summary = bundled_summary()
    assert set(summary) == set(BUILTIN)
    assert all(entry.trajectories > 0 and entry.turns > 0 for entry in summary.values())
    assert sum(entry.trajectories for entry in summary.values()) == len(load_bundled())


def test_bundled_observations_equal_the_sources(recorded: dict[str, Trajectory]) -> None:
    for bundled in load_bundled():
        source = recorded[bundled.id]
        assert bundled.initial_state == source.initial_state
        assert bundled.turns == source.turns[: len(bundled.turns)]
        assert bundled.metadata["recorded_turns"] == len(source.turns)
        assert (bundled.source, bundled.commit, bundled.licence) == (
            source.source,
            source.commit,
            source.licence,
        )


def test_bundled_file_is_what_the_script_builds(recorded_root: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "build_bundled", REPO / "scripts/build_bundled.py"
    )
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    built = script.build(recorded_root)
    assert built == load_bundled()
    assert set(script.CAPS) == set(CONVERTERS)
