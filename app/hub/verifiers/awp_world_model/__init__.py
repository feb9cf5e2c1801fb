"""The world model as a verifiers environment: each env response is one world-model step.

An episode is one OpenEnv session of `awp env serve`: `reset` starts it (the task and the start
state are the first user turn), and every reply of the agent is sent as one action to `step`,
which the server answers by ONE step of the playground's step path (the world model predicts
the next observation; the step is stored as a rollout session). The rubric is the server's
reward model: by default `reference`, the domain's headline metric against the recorded
observation; with `--reward live` the live task's own check. Its total is the episode's reward.
"""

from awp_world_model.taskset import (
    AwpWorldModelConfig,
    AwpWorldModelEnv,
    AwpWorldModelTaskset,
    load_environment,
)

__all__ = ["AwpWorldModelConfig", "AwpWorldModelEnv", "AwpWorldModelTaskset", "load_environment"]
