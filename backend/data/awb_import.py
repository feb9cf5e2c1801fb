"""Import AgentWorldBench rows as trajectories in two streaming passes, in flat memory.

Holding every row (`load_agentworldbench`) costs several times the file's size: a 127 MB file
peaked at 862 MB. A trajectory needs only one of its rows, the one whose lists reach furthest,
but the rows of one trajectory may be anywhere in the files. So a first pass reads and validates
every row and remembers, per trajectory, where that row is and which turns were evaluated; a
second pass reads the rows again and builds each trajectory from its row alone, one at a time, as
the caller stores them. Memory grows with the number of trajectories (a few small values each),
not with the size of the files, and a malformed row stops the import before anything is stored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from backend.data.agentworldbench import reach, row_trajectory, unique_items, validate_row
from backend.data.rows import read_rows
from backend.types import Trajectory


@dataclass
class _Plan:
    """What the first pass keeps of one trajectory."""

    domain: str
    where: str
    reach: tuple[int, int]
    evaluated: list[int] = field(default_factory=list)


class AgentWorldBenchScan:
    """The first pass over rows: counts, duplicates, and where each trajectory's row is.

    Args:
        path: a JSONL/Parquet file, a `datasets` folder or a folder of data files.
        source: provenance given to the trajectories (default: the path).

    Raises:
        BadInputError: a row is malformed; the message names the file and line or row.
    """

    def __init__(self, path: Path, source: str | None = None) -> None:
        self.path = path
        self.source = source or str(path)
        self.rows: Counter[str] = Counter()
        """Rows per domain, duplicates left out."""
        self.duplicates: list[str] = []
        """Where each skipped duplicate row was."""
        self._plans: dict[str, _Plan] = {}
        for where, item in unique_items(path, self.duplicates):
            self.rows[item.domain] += 1
            plan = self._plans.setdefault(item.id, _Plan(item.domain, where, reach(item)))
            if reach(item) > plan.reach:
                plan.where, plan.reach = where, reach(item)
            plan.evaluated.append(item.turn_idx)

    def __len__(self) -> int:
        """How many trajectories the rows hold."""
        return len(self._plans)

    def trajectory_counts(self) -> Counter[str]:
        """Trajectories per domain."""
        return Counter(plan.domain for plan in self._plans.values())

    def trajectories(self) -> Iterator[Trajectory]:
        """The second pass: each trajectory, built from its furthest-reaching row as it is read.

        Raises:
            BadInputError: a row changed since the first pass and is now malformed.
        """
        wanted = {plan.where: plan.evaluated for plan in self._plans.values()}
        for where, raw in read_rows(self.path):
            evaluated = wanted.get(where)
            if evaluated is not None:
                yield row_trajectory(validate_row(raw, where), evaluated, self.source)
