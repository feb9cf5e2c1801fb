"""A terminal session too long for a small context, for the tests of the history cut.

Shared by the transformers engine's test (`tests/integration/test_context_fit.py`) and the vLLM
tier's in-process driver, which imports nothing but the backend, so this module does neither.
"""

from __future__ import annotations

import json

from backend.types import SamplingParams, SimRequest, Turn


def keys(text: str) -> str:
    """A terminal action typing `text` and Enter."""
    return json.dumps([{"keystrokes": text + "\n", "duration": 0.1}])


def long_session(turns: int, budget: int) -> SimRequest:
    """A terminal step after `turns` turns of about 600 tokens each, decoding at most `budget`."""
    history = [
        Turn(action=keys(f"cat log{i}"), observation=f"log {i}: " + "entry value " * 280 + "$ ")
        for i in range(turns)
    ]
    return SimRequest(
        domain="terminal",
        initial_state="$ ",
        history=history,
        action=keys("ls"),
        params=SamplingParams(temperature=0.0, max_new_tokens=budget, seed=0),
        reference="notes.txt\n$ ",
    )
