"""The embedded model that `awp model prepare` made, shared with the tests' fresh data dirs."""

from __future__ import annotations

import os
from pathlib import Path


def link_prepared_model(data_dir: Path) -> Path:
    """Link the prepared embedded model into a fresh data dir; returns the dir.

    The conversion takes half a minute; tests about other things should not pay for it again.
    Without a prepared model nothing is linked, and the first use prepares one (or says why not).
    """
    prepared = Path(os.environ.get("AWP_DATA_DIR", Path.home() / ".agentworld")) / "models"
    if prepared.is_dir():
        (data_dir / "models").symlink_to(prepared, target_is_directory=True)
    return data_dir
