"""Agents inside the world model: episodes over the one step path, rewards, agents, rollouts.

`world.WorldEnv` is the environment (the Gymnasium and OpenEnv faces in `app` wrap it);
`rewards` and `finish` decide rewards and termination; `agents` act in it; `rollout` runs
episodes of an agent in simulation, in a live environment, or both at once (shadow).
"""
