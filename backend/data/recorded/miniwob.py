"""AgentLab MiniWoB episodes: BrowserGym observations of a real Chromium, as web trajectories.

Read from `derived_episodes.json` only (the plain-JSON copy of the step pickles, which are never
unpickled). Each step holds the page's BrowserGym accessibility tree (`axtree_txt`, with `[bid]`
ids) and the action taken after it (`click('18')`). The first step's tree is the initial state;
each action's observation is the next step's tree, exactly as recorded. Actions are recorded
verbatim, in BrowserGym's own syntax.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from backend.data.recorded.common import Provenance, read_json
from backend.types import Trajectory, Turn

FOLDER = "web/agentlab-miniwob"
FILE = f"{FOLDER}/derived_episodes.json"
PROVENANCE = Provenance(
    "ServiceNow/AgentLab", "31e5bf55c49f04bc618f30e4f3792b56c3a985fa", "Apache-2.0"
)
NOTES = (
    "GenericAgent (gpt-4o-mini) on MiniWoB++ in a real Chromium via BrowserGym. Actions are "
    "recorded BrowserGym actions; observations are the recorded axtree_txt of the next step. "
    "MiniWoB is a toy environment, not WebArena."
)


def _episode_turns(steps: list[dict[str, Any]]) -> list[Turn]:
    """One turn per step but the last: the action taken there and the next step's tree."""
    return [
        Turn(action=before["action_taken_after_this_obs"], observation=after["axtree_txt"])
        for before, after in itertools.pairwise(steps)
    ]


def convert(root: Path) -> list[Trajectory]:
    """Every episode of `derived_episodes.json` with at least one action."""
    trajectories = []
    for episode in read_json(root / FILE):
        steps = episode["steps"]
        name = episode["episode"]
        task_name = name.rsplit("miniwob.", 1)[-1]
        trajectories.append(
            PROVENANCE.trajectory(
                id=f"miniwob/{task_name}",
                domain="web",
                path=f"tests/data/error_analysis/{name}/",
                files=[FILE],
                turns=_episode_turns(steps),
                task=steps[0]["goal"],
                initial_state=steps[0]["axtree_txt"],
                notes=NOTES,
                metadata={
                    "episode": name,
                    "urls": [step["url"] for step in steps],
                    "cum_reward": episode["summary_info"]["cum_reward"],
                },
            )
        )
    return trajectories
