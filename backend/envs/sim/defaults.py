"""The defaults of a rollout, wherever it starts (`awp rollout`, the Rollouts page).

A module of its own, free of imports, so the CLI can show them in `--help` without loading the
rollout machinery.
"""

REPLAY = "replay"
"""The agent that replays the recordings' actions."""
DEFAULT_REWARD = "reference"
DEFAULT_BATCH = 8
DEFAULT_MAX_STEPS = 10
AGENT_MAX_NEW_TOKENS = 128
