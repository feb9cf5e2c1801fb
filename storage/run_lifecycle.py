"""The one way work runs under a run record: start, progress, then finished, failed or interrupted.

Every edge (the `awp` commands, the pages, training threads) wraps its work in `recorded`, so
every kind of run ends the same way: Ctrl-C and a page's Cancel read `interrupted` (saying which),
a domain error keeps its message (written for people), and anything else is logged with its
traceback while the run only says it failed unexpectedly: the text of an arbitrary exception can
hold paths, URLs or secrets.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from backend.errors import AWPError, JobCancelledError
from backend.jobs import attach_run
from storage.models import RunStatus
from storage.runs import RunRecord, RunStore

logger = logging.getLogger(__name__)

UNEXPECTED = "Failed unexpectedly; see the server log."
CANCELLED = "Cancelled"
"""How an interrupted run's message begins when the person cancelled its job (a job cancelled
because the server stopped says so instead)."""


class RunHandle:
    """The running run, as the work inside `recorded` sees it.

    Args:
        store: where the run is stored.
        run_id: its id.

    """

    def __init__(self, store: RunStore, run_id: int) -> None:
        self._store = store
        self.id = run_id
        self.results: Mapping[str, Any] = {}
        self.done: int | None = None
        self.failures = 0

    def progress(self, done: int, total: int, **metrics: float) -> None:
        """Store how far the run is; `metrics` (e.g. `loss=`) join its logged points."""
        self._store.progress(self.id, done, total, metrics)

    def conclude(
        self, results: Mapping[str, Any], done: int | None = None, failures: int = 0
    ) -> None:
        """Say what the run produced; stored when the work leaves `recorded` without an error."""
        self.results, self.done, self.failures = results, done, failures


@contextmanager
def recorded(
    store: RunStore,
    kind: type[RunRecord],
    spec: Mapping[str, Any],
    *,
    out_dir: str | None = None,
    owner: str | None = None,
    resume: bool = False,
) -> Iterator[RunHandle]:
    """Run the block between a stored start and end, so every run is listed with its outcome.

    Exceptions are re-raised after they are recorded, for the caller's edge to report.

    Args:
        store: the run store.
        kind: the record class of the run's kind (`storage.run_kinds`).
        spec: what was asked (the kind's `new_spec`).
        out_dir: the folder of its files, if any.
        owner: who started it (None from the CLI).
        resume: reopen the latest run of this kind stored for `out_dir`.

    Yields:
        The run's handle: its id, `progress` and `conclude`.

    """
    handle = RunHandle(store, store.start(kind, spec, out_dir, owner, resume=resume))
    attach_run(handle.id)  # a page's job (if this runs in one) links to its run
    try:
        yield handle
    except KeyboardInterrupt:
        _end(store, handle.id, RunStatus.INTERRUPTED, kind.interrupted_message(out_dir))
        raise
    except JobCancelledError as exc:  # Cancel, or the server stopping: stopped, not broken
        cause = str(exc).rstrip(".") or CANCELLED  # "Cancelled", "The server stopped"
        _end(store, handle.id, RunStatus.INTERRUPTED, kind.interrupted_message(out_dir, cause))
        raise
    except AWPError as exc:
        _end(store, handle.id, RunStatus.FAILED, str(exc))
        raise
    except BaseException:
        logger.exception("%s %d failed", kind.label, handle.id)
        _end(store, handle.id, RunStatus.FAILED, UNEXPECTED)
        raise
    store.finish(handle.id, handle.results, handle.done, handle.failures)


def _end(store: RunStore, run_id: int, status: RunStatus, message: str) -> None:
    """Record how the run ended, never hiding why it ended.

    The database can itself be why (a full disk, a lock held by the interrupted write): then the
    run stays `running`, which is what a killed run shows too, and the original error goes on.
    """
    try:
        store.end(run_id, status, message)
    except SQLAlchemyError:
        logger.exception("run %d could not be marked %s", run_id, status.value)
