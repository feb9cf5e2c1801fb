"""Inspect AI's `awp` sandbox: an eval's commands answered by the world model or a live sandbox.

`eval(task, sandbox="awp")` (or `("awp", AwpSandboxConfig(backing="live"))`) runs an existing
Inspect task unchanged: its `bash` tool's `exec`, and `read_file` / `write_file`, reach a
`backend.integrations.shell` backing instead of a container. The provider is registered by the
`inspect_ai` entry point (`app.inspect_registry`), the way Inspect extensions register, so
installing the playground is enough. It lives in `app` because it builds the process's context:
one per eval run and sandbox configuration, built at task init, its engines and database shared
by the samples, closed at task cleanup.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal, overload

import anyio.to_thread
from inspect_ai.log import transcript
from inspect_ai.util import (
    ExecResult,
    SandboxEnvironment,
    SandboxEnvironmentConfigType,
    SandboxUserUnsupportedError,
    sandboxenv,
)
from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import override

from app.context import AppContext, build_context
from backend.integrations.shell import (
    BACKINGS,
    LiveShell,
    ShellBacking,
    SimShell,
    check_backing,
)
from backend.provenance import stored
from backend.spec import Purpose

NAME = "awp"
PROVENANCE_KEY = "awp_provenance"
"""The key of the info event each command's answer logs its source under."""


class AwpSandboxConfig(BaseModel):
    """How the `awp` sandbox answers (every field defaults to the `AWP_*` settings).

    Attributes:
        backing: `sim` (the terminal world model) or `live` (a live bubblewrap sandbox).
        engine: the world model's engine.
        model: its model id.
        base_url: an OpenAI-compatible server for it.
        max_new_tokens: its completion budget.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    backing: str = Field(default="sim", description=f"One of {', '.join(BACKINGS)}.")
    engine: str | None = None
    model: str | None = None
    base_url: str | None = None
    max_new_tokens: int | None = Field(default=None, ge=1)


def _config(config: SandboxEnvironmentConfigType | None) -> AwpSandboxConfig:
    """The sandbox's config: a model, a dict, a backing name, or the defaults."""
    if config is None:
        return AwpSandboxConfig()
    if isinstance(config, AwpSandboxConfig):
        return config
    if isinstance(config, str):
        return AwpSandboxConfig(backing=check_backing(config))
    return AwpSandboxConfig.model_validate(
        config.model_dump() if isinstance(config, BaseModel) else config
    )


@sandboxenv(name=NAME)
class AwpSandboxEnvironment(SandboxEnvironment):
    """One sample's shell, simulated or live; its calls are steps of one `inspect` session."""

    _contexts: ClassVar[dict[AwpSandboxConfig, AppContext]] = {}
    """One context per configuration of a running eval (Inspect's lifecycle is class-level)."""

    def __init__(self, shell: ShellBacking) -> None:
        super().__init__()
        self.shell = shell

    @classmethod
    def _context(cls, config: AwpSandboxConfig) -> AppContext:
        if config not in cls._contexts:
            cls._contexts[config] = build_context(max_new_tokens=config.max_new_tokens)
        return cls._contexts[config]

    @override
    @classmethod
    async def task_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None) -> None:
        chosen = _config(config)
        check_backing(chosen.backing)
        cls._context(chosen)

    @override
    @classmethod
    def config_deserialize(cls, config: dict[str, Any]) -> BaseModel:
        return AwpSandboxConfig.model_validate(config)

    @override
    @classmethod
    async def sample_init(
        cls,
        task_name: str,
        config: SandboxEnvironmentConfigType | None,
        metadata: dict[str, str],
    ) -> dict[str, SandboxEnvironment]:
        chosen = _config(config)
        context = cls._context(chosen)
        params = context.settings.sampling()
        task = metadata.get("task")
        shell: ShellBacking
        if chosen.backing == "live":
            shell = LiveShell(context.settings.live_config(), context.sessions, params, task)
        else:
            world = context.world_spec(
                Purpose.INTEGRATION,
                engine=chosen.engine,
                model=chosen.model,
                base_url=chosen.base_url,
            )
            simulator = context.simulator(world)
            shell = SimShell(simulator, context.sessions, params, task)
        return {"default": cls(shell)}

    @override
    @classmethod
    async def sample_cleanup(
        cls,
        task_name: str,
        config: SandboxEnvironmentConfigType | None,
        environments: dict[str, SandboxEnvironment],
        interrupted: bool,
    ) -> None:
        for environment in environments.values():
            await anyio.to_thread.run_sync(environment.as_type(AwpSandboxEnvironment).shell.close)

    @override
    @classmethod
    async def task_cleanup(
        cls, task_name: str, config: SandboxEnvironmentConfigType | None, cleanup: bool
    ) -> None:
        context = cls._contexts.pop(_config(config), None)
        if context is not None:
            context.close()

    @override
    async def exec(
        self,
        cmd: list[str],
        input: str | bytes | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        user: str | None = None,
        timeout: int | None = None,
        timeout_retry: bool = True,
        concurrency: bool = True,
    ) -> ExecResult[str]:
        if user is not None:
            # Inspect probes for root before the solver runs; there is one user here.
            raise SandboxUserUnsupportedError(
                f"The {NAME} sandbox runs every command as its one user, not as {user!r}."
            )
        stdin = input.decode() if isinstance(input, bytes) else input
        result = await anyio.to_thread.run_sync(
            lambda: self.shell.exec(cmd, stdin, cwd, float(timeout or 60))
        )
        if result.provenance is not None:
            # Where the answer came from (the world model, or a live sandbox run), in the log.
            transcript().info({PROVENANCE_KEY: stored(result.provenance)}, source=NAME)
        return ExecResult(result.returncode == 0, result.returncode, result.stdout, result.stderr)

    @override
    async def write_file(self, file: str, contents: str | bytes) -> None:
        text = contents.decode() if isinstance(contents, bytes) else contents
        await anyio.to_thread.run_sync(lambda: self.shell.write_file(file, text))

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    @override
    async def read_file(self, file: str, text: bool = True) -> str | bytes:
        contents = await anyio.to_thread.run_sync(lambda: self.shell.read_file(file))
        return contents if text else contents.encode()
