"""Reading a Playground step's status line in tests.

A step's status names the session it was stored in ("... of session #N; ..."), and, when the
shown step links its grounding, also "correction of session #M, step K". Every test reads the
step's own session through `session_of`, so none mistakes the grounding link for it.
"""

from __future__ import annotations

import re

OWN_SESSION = re.compile(r"(?<!correction )of session #(\d+)")
"""The step's own "of session #N": a grounding link's "correction of session #M" is skipped."""


def session_of(status: str) -> int:
    """The id of the session a step's status says the step was stored in.

    Raises:
        AssertionError: the status names no session of its own (the step was not stored).
    """
    found = OWN_SESSION.search(status)
    assert found is not None, f"no 'of session #N' in the status: {status!r}"
    return int(found.group(1))
