"""The MCP mirror: a simulated MCP server answering from fixtures, records, reality or the model.

An agent (Claude Code, OpenClaw, any MCP client) sees an ordinary server with the tools of a
JSON file or of a real server mirrored in the sandbox. Each call goes to the first source that
can answer it:

1. **fixture**: a pinned answer for the tool (and, if given, exactly these arguments);
2. **record**: the latest real answer to the identical call (same tool, same arguments, same
   tool definition) stored by an earlier mirror session;
3. **real**: the mirrored server itself, for the tools on the allow-list (by default the tools
   the server marks read-only, so a simulated agent never changes the real world by accident);
4. **world_model**: one step of the world model (`backend.stepping`), with the calls so far as
   history and the tool definitions in its prompt.

Every result names its source in `_meta` (`agentworld/answered_by`), and every call is a step
of one `mcp` session: a real answer as the step's real observation (origin live, which is what
the record reads next time), a world-model answer as its prediction. With `shadow` the world
model also predicts the calls other sources answered, scored against them: what the world
model would have said, on exactly the calls agents make.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from backend.domains.base import get_domain
from backend.envs.live.base import LiveConfig, LiveTask, live_kind
from backend.envs.live.host import HOST_PATH
from backend.envs.live.mcp import McpEnvironment
from backend.envs.live.mcp_servers import Server, ServerSet
from backend.envs.live.runtime import python_bin, python_executable
from backend.errors import AWPError, BadActionError, BadInputError, LiveEnvironmentError
from backend.integrations.mcp_definitions import Fixture, conformed, mcp_tool, observation_result
from backend.provenance import Provenance, Recorded, describe, stored
from backend.recording import NewSession, Recorder, SessionTarget, StepInput
from backend.simulate import Simulator
from backend.sources import live
from backend.stepping import record_prediction, step_batch
from backend.types import (
    HistoryMode,
    PromptContext,
    ReferenceOrigin,
    SamplingParams,
    SimRequest,
    Turn,
)

DOMAIN = "mcp"
SESSION_KIND = "mcp"
META_SOURCE = "agentworld/answered_by"
META_SESSION = "agentworld/session_id"
META_STEP = "agentworld/step_id"
META_PROVENANCE = "agentworld/provenance"
META_SOURCE_WORDS = "agentworld/source"
SOURCES = ("fixture", "record", "real", "world_model")
"""Who may answer a call, in the order they are asked."""


class Scenario(BaseModel):
    """What the simulated world is told: the hook a pinned world file fills.

    A world file of the Sim-RL issue (`backend.worlds.World`) maps onto it field by field; until
    that format is on main, `awp mcp serve --task` fills `task` alone.

    Attributes:
        task: the agent's task, shown to the world model.
        initial_state: the state before the first call, when the world has one.
        system_prompt: replaces the mcp world-model prompt.
        seed: the sampling seed (None: the settings').
        temperature: the world model's temperature (None: the settings').
    """

    model_config = ConfigDict(frozen=True)

    task: str | None = None
    initial_state: str | None = None
    system_prompt: str | None = None
    seed: int | None = None
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)

    def sampling(self, base: SamplingParams) -> SamplingParams:
        """`base` with the scenario's seed and temperature where it pins them."""
        pinned = {"seed": self.seed, "temperature": self.temperature}
        return base.model_copy(update={k: v for k, v in pinned.items() if v is not None})


class RealServer(Protocol):
    """The mirrored MCP server (a live mcp environment started on the mirror's command)."""

    def act(self, action: str) -> Any:
        """Call the tool `action` names; the result's `observation` is the mcp observation."""
        ...


class CallRecord(Protocol):
    """Earlier real answers of identical calls (`storage.tool_calls.ToolCallRecord`)."""

    def answers(
        self, kind: str, domain: str, action: str
    ) -> list[tuple[str, list[Any], Provenance | None]]:
        """(observation, that session's tool definitions, its source), the latest first."""
        ...


@dataclass(frozen=True)
class Answer:
    """One answered call: who answered, the observation, and where it was stored."""

    source: str
    observation: str
    session_id: int
    step_id: int
    provenance: Provenance | None = None

    def result(self, tool: dict[str, Any] | None = None) -> dict[str, Any]:
        """The answer as an MCP tool result, its source and storage named in `_meta`.

        `agentworld/answered_by` says who answered, `agentworld/provenance` where the
        observation came from (`backend.provenance`), `agentworld/source` the same in words.

        Args:
            tool: the called tool's definition, whose output schema the result must meet.
        """
        result = conformed(observation_result(self.observation), tool)
        result["_meta"] = {
            META_SOURCE: self.source,
            META_SESSION: self.session_id,
            META_STEP: self.step_id,
        }
        if self.provenance is not None:
            result["_meta"][META_PROVENANCE] = stored(self.provenance)
            result["_meta"][META_SOURCE_WORDS] = describe(self.provenance)
        return result


def sandboxed_program(program: str) -> list[str]:
    """How the sandbox runs `program`: by its host path, a Python script by the app's Python.

    The sandbox sees the app's Python and /usr at their host paths, so a host path names the
    same program inside; but a console script's `#!` line may name the venv's interpreter by
    another path (a symlinked venv), so a script of this Python is run by it explicitly.
    """
    with open(program, "rb") as handle:
        first = handle.readline(512)
    if first.startswith(b"#!"):
        interpreter = first[2:].decode(errors="replace").split()
        if interpreter and os.path.realpath(interpreter[0]) == os.path.realpath(
            python_executable()
        ):
            return [python_executable(), program]
    return [program]


def start_mirrored(command: str, config: LiveConfig) -> tuple[McpEnvironment, list[dict[str, Any]]]:
    """Start the real MCP server `command` in a live sandbox and copy its `list_tools`.

    The command runs as the live mcp environment runs its servers: inside bubblewrap, without
    network or the host's environment, seeing the app's Python packages and the npm servers
    `scripts/setup.sh` installs. Close the environment returned when done.

    Raises:
        BadInputError: an empty command, or a program found on neither PATH.
        LiveEnvironmentError: the machine cannot run sandboxes, or the server did not start.
    """
    argv = shlex.split(command)
    if not argv:
        raise BadInputError("--mirror names no command.")
    path = os.pathsep.join((python_bin(), HOST_PATH))
    program = shutil.which(argv[0], path=path)
    if program is None:
        raise BadInputError(f"{argv[0]!r} is not a program the sandbox can run (PATH: {path}).")
    argv = [*sandboxed_program(program), *argv[1:]]
    missing = live_kind(DOMAIN).missing()
    if missing:
        raise LiveEnvironmentError(f"The mirrored server cannot start: {missing}.")
    name = Path(argv[0]).name
    server = Server(name=name, package=name, argv=lambda: list(argv))
    task = LiveTask(name="mirror", description=f"the mirrored server {command}")
    environment = McpEnvironment(config)
    listing = environment.start_set(ServerSet(task, (server,)))
    return environment, [mcp_tool(tool) for tool in json.loads(listing)["tools"]]


@dataclass
class Mirror:
    """Answers tool calls for one simulated world and stores them as one `mcp` session.

    Calls are answered one at a time (a lock), so the history each world-model step sees is the
    calls before it, in order, whichever client made them: the world, like a real server's, is
    shared.

    Args:
        tools: the tool definitions served (MCP form).
        simulator: the world model.
        recorder: where steps are stored.
        params: the world model's sampling.
        fixtures: pinned answers, asked first.
        record: earlier real answers (None: not asked).
        real: the mirrored server (None: none).
        allowed: the tools the real server may answer.
        scenario: what the world model is told.
        shadow: also let the world model predict calls other sources answered.
    """

    tools: list[dict[str, Any]]
    simulator: Simulator
    recorder: Recorder
    params: SamplingParams
    fixtures: Sequence[Fixture] = ()
    record: CallRecord | None = None
    real: RealServer | None = None
    allowed: frozenset[str] = frozenset()
    scenario: Scenario = field(default_factory=Scenario)
    shadow: bool = False
    _turns: list[Turn] = field(default_factory=list, init=False)
    _session: int | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    @property
    def context(self) -> PromptContext:
        """The tool definitions and task the world model's prompt is filled with."""
        return PromptContext(tools=self.tools, task=self.scenario.task)

    def canonical(self, name: str, arguments: dict[str, Any]) -> str:
        """The call as the mcp domain writes it, checked against the tool definitions.

        Raises:
            BadActionError: an unknown tool, or arguments its input schema refuses.
        """
        action = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
        return get_domain(DOMAIN).validate(action, self.context)

    def answer(self, name: str, arguments: dict[str, Any]) -> Answer:
        """Answer one call from the first source that can, and store it.

        Raises:
            BadActionError: an unknown tool or bad arguments (nothing is stored).
            AWPError: the world model failed (nothing is stored).
        """
        with self._lock:
            action = self.canonical(name, arguments)
            found = self._known(name, arguments, action)
            if found is None:
                return self._simulated(action)
            source, observation, origin, provenance = found
            return self._stored(action, source, observation, origin, provenance)

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A call's MCP result; a world model that failed is an error result saying why.

        Raises:
            BadActionError: an unknown tool or bad arguments (a protocol error for the client).
        """
        try:
            return self.answer(name, arguments).result(self.definition(name))
        except BadActionError:
            raise
        except AWPError as exc:
            return {"content": [{"type": "text", "text": str(exc)}], "isError": True}

    def _known(
        self, name: str, arguments: dict[str, Any], action: str
    ) -> tuple[str, str, ReferenceOrigin, Provenance] | None:
        """The first answer a fixture, the record or the real server gives (None: none does).

        Each with its source: a fixture is a recorded answer of the mirror's fixtures, the
        record's is the earlier real call's own, the real server's a live call now.
        """
        fixture = next((f for f in self.fixtures if f.matches(name, arguments)), None)
        if fixture is not None:
            pinned = Recorded(dataset="mcp fixtures", row_id=f"fixture:{fixture.tool}")
            return "fixture", fixture.observation(), "recorded", pinned
        if self.record is not None:
            definition = self.definition(name)
            for observation, tools, earlier in self.record.answers(SESSION_KIND, DOMAIN, action):
                if any(tool == definition for tool in tools):
                    return "record", observation, "recorded", earlier or live(DOMAIN)
        if self.real is not None and name in self.allowed:
            try:
                return "real", self.real.act(action).observation, "live", live(DOMAIN)
            except LiveEnvironmentError:
                return None  # the world model answers while the real server is down
        return None

    def definition(self, name: str) -> dict[str, Any] | None:
        """The served definition of the tool `name` (None: no such tool)."""
        return next((tool for tool in self.tools if tool.get("name") == name), None)

    def _request(self, action: str, reference: str | None = None) -> SimRequest:
        return SimRequest(
            domain=DOMAIN,
            system_prompt=self.scenario.system_prompt,
            context=self.context,
            initial_state=self.scenario.initial_state,
            history=list(self._turns),
            action=action,
            history_mode=HistoryMode.TEACHER_FORCED,
            params=self.scenario.sampling(self.params),
            reference=reference,
        )

    def _target(self, request: SimRequest) -> SessionTarget:
        if self._session is not None:
            return self._session
        engine = self.simulator.engine
        return NewSession.for_request(
            request,
            SESSION_KIND,
            engine=engine.name,
            model=engine.model,
            world=self.simulator.spec,
        )

    def _simulated(self, action: str) -> Answer:
        request = self._request(action)
        ((sample,),) = step_batch(self.simulator, [request])
        prediction = sample.made()
        outcome = record_prediction(
            self.recorder, self._target(request), request, prediction, scores=sample.scores
        )
        self._session = outcome.session_id
        self._turns.append(Turn(action=action, predicted=prediction.observation))
        return Answer(
            "world_model",
            prediction.observation,
            outcome.session_id,
            outcome.step_id,
            prediction.provenance,
        )

    def _stored(
        self,
        action: str,
        source: str,
        observation: str,
        origin: ReferenceOrigin,
        provenance: Provenance,
    ) -> Answer:
        request = self._request(action, observation).model_copy(
            update={"reference_origin": origin, "reference_provenance": provenance}
        )
        target = self._target(request)
        shadowed = step_batch(self.simulator, [request])[0][0] if self.shadow else None
        if shadowed is not None and shadowed.prediction is not None:
            outcome = record_prediction(
                self.recorder, target, request, shadowed.prediction, scores=shadowed.scores
            )
            session_id, step_id = outcome.session_id, outcome.step_id
        else:
            step = StepInput(action, observation, origin, provenance=provenance)
            record = self.recorder.record(target, step)
            session_id, step_id = record.session_id, record.step_id
        self._session = session_id
        self._turns.append(Turn(action=action, observation=observation, provenance=provenance))
        return Answer(source, observation, session_id, step_id, provenance)
