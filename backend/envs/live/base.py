"""The live-environment contract: start / observe / act / close, a version and named tasks.

A live environment runs an agent's action for real (a shell in a sandbox, a browser on a local
task page, an MCP server) and returns what really happened, in the same observation form as the
domain's recorded data, so that every place a recorded "real next state" is used (scores, diffs,
annotation, exports, benchmark rows) can use a live one instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.abc import Traversable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from backend.domains.base import PromptContext
from backend.registry import Registry


@dataclass(frozen=True)
class Check:
    """How a live task's success is decided.

    Attributes:
        description: what passes, in one sentence (listed with the task).
        program: Python source run after the prelude of `checks` (`text_of`, `output_of`,
            `passed`); "" where the environment's own validation is the check (MiniWoB's).
        files: files shown read-only at checks.CHECK_DIR while the program runs (hidden tests).
    """

    description: str
    program: str = ""
    files: Traversable | None = None


@dataclass(frozen=True)
class LiveTask:
    """A named start state of a live environment.

    Attributes:
        name: the `--task` value (a MiniWoB task, a task repository, an MCP server set).
        description: one line shown in `awp live tasks` and the UI.
        goal: the agent's task text, when the start state comes with one.
        check: how success is decided in the live environment; a task with a goal has one
            (a start state without a goal, a plain shell, needs none).
        solution: actions that solve the task, in the domain's action format: what the
            `scripted` agent plays (empty: no scripted solution).
        no_op: an action valid on this task that changes nothing its check looks at (a read):
            what `scripted` plays on a task it does not solve, and what the sim-to-real replay
            sends to run the live check of an episode that has no finish action to send (mcp
            checks after each call, and a call the simulation refused is never replayed);
            "": the domain's example action serves.
    """

    name: str
    description: str
    goal: str = ""
    check: Check | None = None
    solution: tuple[str, ...] = ()
    no_op: str = ""


@dataclass(frozen=True)
class LiveStep:
    """What the real environment did after one action.

    Attributes:
        observation: the observation, in the domain's recorded observation form.
        reward: the environment's own reward where it has one (MiniWoB tasks do), else None.
        done: the environment ended the episode (task finished, agent submitted, shell exited).
        info: anything else worth storing (exit code, elapsed seconds, the environment's errors).
    """

    observation: str
    reward: float | None = None
    done: bool = False
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LiveConfig:
    """Limits and places every live environment is built with; `app` fills it from Settings.

    Attributes:
        work_dir: a private folder under which each live environment makes its scratch folder.
        memory_mb: memory of one sandbox, all its processes together where cgroups hold
            (its tmpfs files come on top), else the address space of each process.
        disk_mb: size of the tmpfs that bounds all files a session writes.
        processes: tasks (threads included) of one sandbox, counted by its cgroup where
            cgroups hold, else per sandbox uid.
        cpu_seconds: CPU-time limit of one sandboxed process.
        cpu_share: CPU cores one sandbox may use at once (a cgroup quota).
        sandbox_cpu_seconds: CPU time of one sandbox, all its processes together (cgroups).
        file_mb: largest single file a sandboxed process may write.
        action_timeout_s: longest an action may run before it is stopped.
        uid_base: first host uid of the pool that sandboxes drop to (one uid per sandbox).
        uid_count: size of that pool, and so the most sandboxes at once.
        cgroups: give each sandbox its own control group where the machine allows it (False:
            only the per-process limits hold, as on a machine without cgroups).
    """

    work_dir: Path
    memory_mb: int = 1024
    disk_mb: int = 256
    processes: int = 128
    cpu_seconds: int = 60
    cpu_share: float = 1.0
    sandbox_cpu_seconds: int = 600
    file_mb: int = 64
    action_timeout_s: float = 60.0
    uid_base: int = 61_000
    uid_count: int = 64
    cgroups: bool = True


@runtime_checkable
class LiveEnvironment(Protocol):
    """One running real environment, owned by one session; not shared between threads.

    `start` (re)starts it at a task's initial state; `act` takes an action in the domain's
    canonical text (already validated by the domain) and returns the real next observation.
    """

    domain: str

    @property
    def version(self) -> str:
        """The environment's own version string (programs and their versions), stored with data."""
        ...

    @property
    def task(self) -> LiveTask | None:
        """The task it last started (a web task with its instance), None before any start."""
        ...

    def start(self, task: str | None = None) -> str:
        """Start fresh at `task`'s initial state (None: the default); returns the observation.

        Raises:
            UnknownNameError: no such task.
            LiveEnvironmentError: the environment could not start (and says why).
        """
        ...

    def observe(self) -> str:
        """The current observation, without acting."""
        ...

    def act(self, action: str) -> LiveStep:
        """Run one action for real.

        Raises:
            LiveEnvironmentError: the environment died or failed (an action that merely fails,
                such as a command with an error, is an observation, not an exception).
        """
        ...

    def prompt_context(self) -> PromptContext:
        """What the world model's prompt needs from this environment (tools, the task)."""
        ...

    def close(self) -> None:
        """Stop every process and remove every file the environment made; safe to call twice."""
        ...


@runtime_checkable
class Pictured(Protocol):
    """A live environment that can show its current state as a picture (the web page)."""

    def screenshot(self) -> bytes:
        """The current state as a PNG, bounded in size (the web page's viewport).

        Raises:
            LiveEnvironmentError: the environment is not started, died or failed.
        """
        ...


LiveFactory = Callable[[LiveConfig], LiveEnvironment]


@dataclass(frozen=True)
class LiveKind:
    """A registered live environment of one domain.

    Attributes:
        domain: the domain it produces observations for.
        build: makes a (not yet started) environment.
        tasks: lists the named start states.
        missing: says what the machine lacks to run it ("" when it can run), e.g. the apt
            package to install; checked without starting anything.
    """

    domain: str
    build: LiveFactory
    tasks: Callable[[], list[LiveTask]]
    missing: Callable[[], str]

    def task_named(self, name: str | None) -> LiveTask | None:
        """The task called `name`; None where there is none (or no name)."""
        return next((task for task in self.tasks() if name and task.name == name), None)


LIVE: Registry[LiveKind] = Registry("live environment")
"""Live environments by domain name."""


def live_kind(domain: str) -> LiveKind:
    """Return the live environment of `domain`, importing the built-in modules on first use.

    Raises:
        UnknownNameError: the domain has no live environment (android never does: no emulator
            can be had offline).
    """
    from backend.envs.live import load_builtin_live

    load_builtin_live()
    return LIVE.get(domain)
