"""The Playground's pinned worlds: "Save this world" from a session, and load one to start from.

A saved world is the session's start (recording or blank state, task, tools, system prompt)
with the engine panel's temperature and seed, as a YAML world file (`backend.envs.sim.worlds`)
that `awp simulate --world`, `awp rollout --world`, Gymnasium's `world=` and the OpenEnv reset
load unchanged. Loading one starts a session from it and sets the panel's temperature and seed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gradio as gr

from backend.envs.sim.worlds import dump_world, parse_world, session_world, world_trajectory
from backend.errors import BadInputError
from ui.services import Services
from ui.session import PlaySession


@dataclass(frozen=True)
class WorldControls:
    """The world section's components."""

    name: gr.Textbox
    save: gr.Button
    text: gr.Code
    file: gr.File
    load: gr.Button


def render() -> WorldControls:
    """Draw the section (inside the caller's column)."""
    with gr.Accordion("Pinned world", open=False, elem_id="pg-world"):
        name = gr.Textbox("my-world", label="World name", elem_id="pg-world-name")
        save = gr.Button("Save this world", elem_id="pg-world-save")
        text = gr.Code(
            "", language="yaml", label="World file (YAML or JSON)", elem_id="pg-world-text"
        )
        file = gr.File(label="World file", elem_id="pg-world-file")
        load = gr.Button("Load this world", elem_id="pg-world-load")
    return WorldControls(name, save, text, file, load)


def save(
    services: Services, session: PlaySession, name: str, temperature: float, seed: float | None
) -> tuple[str, str]:
    """The session's world as YAML, and the file it was written to (for download).

    Raises:
        BadInputError: the name is empty or the session cannot be pinned.
    """
    clean = "".join(c if c.isalnum() or c in "-_" else "-" for c in name.strip())
    if not clean:
        raise BadInputError("Give the world a name.")
    pinned_seed = None if seed is None or seed < 0 else int(seed)
    world = session_world(
        clean, session.trajectory, session.domain, session.initial_state, temperature, pinned_seed
    )
    text = dump_world(world)
    folder = services.data_dir / "worlds"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{clean}.yaml"
    path.write_text(text, encoding="utf-8")
    return text, str(path)


def load(services: Services, text: str, upload: str | None) -> tuple[PlaySession, Any, Any]:
    """A session starting in the world (the uploaded file, else the text), and its sampling.

    Returns the session and the temperature and seed the engine panel takes.

    Raises:
        BadInputError: neither a file nor text, or not a valid world.
    """
    if upload:
        text = Path(upload).read_text(encoding="utf-8")
    if not (text or "").strip():
        raise BadInputError("Paste a world file or upload one first.")
    world = parse_world(text)
    trajectory = world_trajectory(world, services.prompts)
    services.trajectories.upsert(trajectory)  # a session's start is a stored recording
    session = PlaySession.from_trajectory(trajectory, 0)
    notice = (
        f"Started in world {world.name!r} (temperature {world.temperature}, seed {world.seed})."
    )
    session = PlaySession(
        session.domain, trajectory, session.initial_state, session.steps, notice=notice
    )
    return session, world.temperature, -1 if world.seed is None else world.seed
