"""What a results file needs to be reproduced: settings, software versions, commit, data hash.

Collected once per run by the service and stored in `results.json`, so that a number quoted
from it can be traced to the exact data, code and settings that produced it.
"""

from __future__ import annotations

import hashlib
import platform
import subprocess
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from backend.benchmark.intervals import BootstrapSettings
from backend.benchmark.items import BenchItem
from backend.scoring.base import METRICS
from backend.scoring.score import metric_set
from backend.types import SamplingParams

PACKAGES = ("torch", "transformers", "agentworld-playground", "numpy", "patiencediff", "zss")
REPO_ROOT = Path(__file__).resolve().parents[2]
GIT_TIMEOUT_S = 10


class Reproduction(BaseModel):
    """What reproduces the numbers: settings, software, data and metric versions.

    Attributes:
        sampling: the engines' sampling settings.
        limit: only the first N items were run (None: all).
        packages: versions of python, torch, transformers, this project and the metric
            libraries (None where not installed).
        git_commit: the checkout's commit (None outside a git checkout); `git_dirty` whether
            tracked files differed from it.
        dataset_sha256: sha256 over the items run (their JSON, one per line, in order).
        dataset_items: how many items that is.
        metric_versions: the version of every metric of the domains run.
        bootstrap: how the intervals were computed.
    """

    sampling: dict[str, Any]
    limit: int | None = None
    packages: dict[str, str | None]
    git_commit: str | None = None
    git_dirty: bool | None = None
    dataset_sha256: str
    dataset_items: int
    metric_versions: dict[str, int]
    bootstrap: BootstrapSettings = Field(default_factory=BootstrapSettings)


def package_versions() -> dict[str, str | None]:
    """Python's version and each package's installed version (None when not installed)."""
    found: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(REPO_ROOT), *args],
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def git_state() -> tuple[str | None, bool | None]:
    """(commit, whether tracked files differ from it); (None, None) outside a git checkout."""
    if not (REPO_ROOT / ".git").exists():
        return None, None
    commit = _git("rev-parse", "HEAD")
    if commit is None:
        return None, None
    status = _git("status", "--porcelain", "--untracked-files=no")
    return commit.strip(), None if status is None else bool(status.strip())


def dataset_sha256(items: Sequence[BenchItem]) -> str:
    """sha256 over the items' JSON, one per line, in run order."""
    digest = hashlib.sha256()
    for item in items:
        digest.update(item.model_dump_json().encode("utf-8") + b"\n")
    return digest.hexdigest()


def metric_versions(domains: set[str]) -> dict[str, int]:
    """The version of every metric of the given domains' metric sets."""
    names = {name for domain in domains for name in metric_set(domain).metrics}
    return {name: METRICS.get(name).version for name in sorted(names)}


def reproduction(
    items: Sequence[BenchItem], sampling: SamplingParams, limit: int | None
) -> Reproduction:
    """The reproduction block of a run over `items` (already cut to the limit)."""
    commit, dirty = git_state()
    return Reproduction(
        sampling=sampling.model_dump(),
        limit=limit,
        packages=package_versions(),
        git_commit=commit,
        git_dirty=dirty,
        dataset_sha256=dataset_sha256(items),
        dataset_items=len(items),
        metric_versions=metric_versions({item.domain for item in items}),
    )
