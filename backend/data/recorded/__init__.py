"""Converters of the real recorded transitions in `shared/data/recorded`, one per source.

`CONVERTERS` maps a source name to a function `root -> list[Trajectory]`; `load_recorded` runs
them all (or some) over a recorded-data folder. Each module's docstring says how its
observations are composed from the recorded fields.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from backend.data.recorded import android, miniwob, mkrww, opencua, swe_agent, tau_bench, widesearch
from backend.data.recorded.common import Converter, verify_checksums
from backend.registry import Registry
from backend.types import Trajectory

__all__ = ["CONVERTERS", "load_recorded", "verify_checksums"]


def _converters() -> Registry[Converter]:
    registry: Registry[Converter] = Registry("recorded source")
    registry.register("mkrww", mkrww.convert)
    registry.register("swe-agent", swe_agent.convert_swe)
    registry.register("swe-agent-ctf", swe_agent.convert_ctf)
    registry.register("tau-bench", tau_bench.convert)
    registry.register("widesearch", widesearch.convert)
    registry.register("miniwob", miniwob.convert)
    registry.register("opencua", opencua.convert)
    registry.register("android", android.convert)
    return registry


CONVERTERS = _converters()


def load_recorded(root: Path, sources: Iterable[str] | None = None) -> list[Trajectory]:
    """Convert the recorded data under `root` into trajectories.

    Args:
        root: the recorded-data folder (the one holding MANIFEST.md and SHA256SUMS).
        sources: converter names to run; all of them when None.

    Returns:
        The trajectories, grouped by source in registry order.

    Raises:
        UnknownNameError: a source name is not registered.
        BadInputError: a recorded file is missing or malformed.
    """
    names = CONVERTERS.names() if sources is None else list(sources)
    return [traj for name in names for traj in CONVERTERS.get(name)(root)]
