"""The step core: a self-contained request -> chat messages -> engine -> parsed prediction.

The action is checked once, in `canonical`; everything after works on its canonical text, and
every prediction carries that text, the exact messages the engine received and the real
transitions that grounded it (`backend.grounding`), when the simulator has a grounder.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from backend.domains.base import get_domain
from backend.domains.prompts import PromptLibrary, with_demonstrations
from backend.domains.turns import format_assistant_turn, format_user_turn
from backend.engines.base import Engine, context_window
from backend.grounding.grounder import Grounder, Grounding
from backend.grounding.record import RecordBook
from backend.history import fit_context, shown_observation, state_before
from backend.parsing import parse_output, whole_completion
from backend.provenance import Predicted, Provenance
from backend.spec import WorldSpec
from backend.types import (
    AnsweredBy,
    ChatMessage,
    ChatRequest,
    Completion,
    Diagnostics,
    HistoryMode,
    Prediction,
    SimRequest,
    StreamChunk,
    VerbatimChat,
)


def canonical(request: SimRequest) -> SimRequest:
    """Check the action against its domain (and the request's tools); a copy in canonical text.

    A verbatim official row is sent as recorded, as the official harness sends it, so its
    action is not refused (nor rewritten) here; nor is a task check, which no agent sends.

    Raises:
        BadActionError: the action does not follow the domain's format.
        UnknownNameError: no such domain.
    """
    get_domain(request.domain)
    if verbatim_chat(request) is not None or request.task_check:
        return request
    action = get_domain(request.domain).validate(request.action, request.context)
    return request if action == request.action else request.model_copy(update={"action": action})


def verbatim_chat(request: SimRequest) -> VerbatimChat | None:
    """The row texts a request is sent as: only a teacher-forced step uses them."""
    teacher_forced = request.history_mode is HistoryMode.TEACHER_FORCED
    return request.verbatim if teacher_forced else None


def build_messages(request: SimRequest, system_prompt: str) -> list[ChatMessage]:
    """Lay out a (canonical) request in the official chat layout.

    A teacher-forced request with an official row's texts (`verbatim`) is sent as the release
    sends it: the system prompt when it is not empty, the row's earlier pairs and its current
    turn, each text exactly as in the row.

    The system message holds the world-model prompt; each history turn is a user message (the
    action) and an assistant message (what `backend.history` says the turn shows); the last user
    message is the current action. The first user message carries `**Current State:**` when the
    state before it is known: the initial state, or in blind mode the last known state. The
    official data does this for terminal; for web, os and android it is the only way the model
    sees the start page.
    """
    verbatim = verbatim_chat(request)
    if verbatim is not None:
        chat = [ChatMessage(role="system", content=system_prompt)] if system_prompt else []
        for user, assistant in verbatim.turns:
            chat.append(ChatMessage(role="user", content=user))
            chat.append(ChatMessage(role="assistant", content=assistant))
        return [*chat, ChatMessage(role="user", content=verbatim.current)]
    blind = request.history_mode is HistoryMode.BLIND
    history = [] if blind else request.history
    first_index = len(request.history) - len(history) + 1
    state = state_before(request.history, request.initial_state) if blind else request.initial_state
    messages = [ChatMessage(role="system", content=system_prompt)]
    for offset, turn in enumerate(history):
        text = format_user_turn(first_index + offset, turn.action, state if offset == 0 else None)
        messages.append(ChatMessage(role="user", content=text))
        observation = shown_observation(turn, request.history_mode)
        messages.append(ChatMessage(role="assistant", content=format_assistant_turn(observation)))
    current = format_user_turn(len(request.history) + 1, request.action, None if history else state)
    messages.append(ChatMessage(role="user", content=current))
    return messages


def to_prediction(
    completion: Completion,
    request: ChatRequest,
    action: str,
    grounded_by: Sequence[str] = (),
    history_dropped: int = 0,
    spec: WorldSpec | None = None,
) -> Prediction:
    """Apply the official output rules to an engine completion, keeping what was asked.

    Its provenance names the engine, the model and the digest of the world spec it ran under
    (`spec`; none for a simulator built without one), so a stored prediction says which world.
    """
    parsed = parse_output(completion.text, completion.reasoning)
    source = Predicted(
        engine=completion.engine,
        model=completion.model,
        spec=spec.digest() if spec is not None else None,
    )
    return Prediction(
        observation=parsed.observation,
        reasoning=parsed.reasoning,
        raw_text=whole_completion(completion.text, completion.reasoning),
        finish_reason=completion.finish_reason,
        prompt_tokens=completion.prompt_tokens,
        completion_tokens=completion.completion_tokens,
        latency_s=completion.latency_s,
        engine=completion.engine,
        model=completion.model,
        diagnostics=parsed.diagnostics,
        action=action,
        messages=request.messages,
        grounded_by=list(grounded_by),
        confidence=completion.confidence,
        history_dropped=history_dropped,
        provenance=source,
    )


def exact_prediction(
    action: str,
    observation: str,
    answered_by: AnsweredBy,
    source: str,
    grounded_by: Sequence[str] = (),
    provenance: Provenance | None = None,
) -> Prediction:
    """A step answered by reality (the record, an executor, the live environment) as a prediction.

    Stored like any prediction, so every edge shows, scores and exports it the same way; its
    engine is the answerer's name (never a model's), its model the source (`live:<domain>`, a
    transition id), its confidence 1, and its `provenance` the reality that answered (the
    matched transition's own source, the live run); storage refuses one without it.
    """
    diagnostics = Diagnostics(
        open_tags=0,
        close_tags=0,
        speculative_words=0,
        chars_outside_block=0,
        extracted_length=len(observation),
        empty_extraction=not observation,
    )
    return Prediction(
        observation=observation,
        raw_text=observation,
        finish_reason="exact",
        engine=answered_by,
        model=source,
        diagnostics=diagnostics,
        action=action,
        grounded_by=list(grounded_by),
        answered_by=answered_by,
        confidence=1.0,
        provenance=provenance,
    )


@dataclass(frozen=True)
class Prepared:
    """A request ready for the engine.

    Attributes:
        request: the request in canonical text, its demonstrations filled when grounded.
        chat: the chat request the engine receives.
        grounded_by: the provenance ids of the real transitions shown as demonstrations.
        history_dropped: the oldest history turns left out so the prompt fits the context.
        answer: the record's exact answer, when it has one (the engine is then not asked).
    """

    request: SimRequest
    chat: ChatRequest
    grounded_by: tuple[str, ...] = ()
    history_dropped: int = 0
    answer: Prediction | None = None


class Simulator:
    """Runs simulation steps on one engine with one prompt library.

    Args:
        engine: any registered engine.
        prompts: the system prompt library (built-ins, optionally overridden from a directory).
        grounder: retrieves real transitions as each step's demonstrations; None keeps the
            prompt as it is (the official prompt, as `awp bench` uses by default).
        record: answers a step that exactly matches a real transition from that transition,
            without the engine (`answered_by="record"`); None asks the engine every step.
        spec: the resolved world it simulates (`app.context.AppContext.world_spec`), which
            runs and sessions store; None only for a simulator built outside the composition
            root (a test's, a benchmark script's), whose sessions then store no world.
    """

    def __init__(
        self,
        engine: Engine,
        prompts: PromptLibrary,
        grounder: Grounder | None = None,
        record: RecordBook | None = None,
        spec: WorldSpec | None = None,
    ) -> None:
        self.engine = engine
        self.prompts = prompts
        self.grounder = grounder
        self.record = record
        self.spec = spec

    def recorded(self, requests: Sequence[SimRequest]) -> list[Prediction | None]:
        """The record's exact answer to each canonical request, where it has one.

        One lookup for the batch, so the record checks its freshness once, not once a step.
        """
        if self.record is None:
            return [None] * len(requests)
        return [
            None
            if found is None
            else exact_prediction(
                request.action, found.after, "record", found.ref, [found.ref], found.provenance
            )
            for request, found in zip(requests, self.record.lookup_all(requests), strict=True)
        ]

    def system_prompt(self, request: SimRequest) -> str:
        """The request's own system prompt, else its domain's filled from its context.

        Demonstrations in the context are appended to a request's own prompt (which has no
        slot to fill); the domain's template places them in its slot. An official row with an
        empty `system_str` keeps it empty, as the official harness does.
        """
        if request.system_prompt or verbatim_chat(request) is not None:
            return with_demonstrations(request.system_prompt or "", request.context)
        return self.prompts.system_prompt(request.domain, request.context)

    def _groundings(self, requests: Sequence[SimRequest]) -> list[Grounding]:
        """Each request's grounding; a request that brings its own demonstrations keeps them."""
        open_ = [i for i, r in enumerate(requests) if r.context.demonstrations is None]
        found = [Grounding()] * len(requests)
        if self.grounder is not None and open_:
            for i, grounding in zip(
                open_, self.grounder.ground([requests[i] for i in open_]), strict=True
            ):
                found[i] = grounding
        return found

    def prepare_all(self, requests: Sequence[SimRequest]) -> list[Prepared]:
        """Check each action, ground each request and build its engine request (no generation).

        A prompt that would not fit the engine's context loses its oldest history turns
        (`fit_context`), after grounding: the demonstrations already keep to the grounder's own
        token budget and were chosen for this very step, while a dropped turn's state still
        reaches the model as the first kept turn's current state, so the history is what can
        go with the least lost.

        Raises:
            BadActionError: an action does not follow its domain's format (nothing is sent).
            EngineUnavailableError: the engine must be loaded to measure a prompt and cannot be.
        """
        checked = [canonical(request) for request in requests]
        # a step the record answers never reaches the engine: nothing to measure or load
        answers = self.recorded(checked)
        prepared = []
        for request, grounding, answer in zip(
            checked, self._groundings(checked), answers, strict=True
        ):
            if grounding.demonstrations is not None:
                context = request.context.model_copy(
                    update={"demonstrations": grounding.demonstrations}
                )
                request = request.model_copy(update={"context": context})
            system = self.system_prompt(request)
            fitted = request if answer is not None else self._fitted(request, system)
            dropped = len(request.history) - len(fitted.history)
            chat = _chat(fitted, system)
            prepared.append(Prepared(fitted, chat, grounding.refs, dropped, answer))
        return prepared

    def _fitted(self, request: SimRequest, system: str) -> SimRequest:
        """The request cut to the engine's context; as it is where nothing can be cut or known.

        An official row's verbatim chat is sent as the release sends it (its turns are not
        the request's history), and a blind request shows no history; an engine that does not
        say its context (`Capabilities.context_window`) gets the prompt as it is and refuses it
        if too long.
        """
        cuttable = request.history and request.history_mode is not HistoryMode.BLIND
        if not cuttable or verbatim_chat(request) is not None:
            return request
        engine = context_window(self.engine)
        if engine is None:
            return request
        context = engine.context_length()
        if context is None:
            return request

        def tokens(candidate: SimRequest) -> int:
            return engine.prompt_tokens(_chat(candidate, system))

        return fit_context(request, tokens, context, request.params.max_new_tokens)

    def prepare(self, request: SimRequest) -> Prepared:
        """`prepare_all` of one request."""
        return self.prepare_all([request])[0]

    def step(self, request: SimRequest) -> Prediction:
        """Predict the observation after `request.action`."""
        return self.step_batch([request])[0]

    def step_batch(self, requests: Sequence[SimRequest]) -> list[Prediction]:
        """Predict many steps in one engine call, so the engine can batch them."""
        prepared = self.prepare_all(requests)
        asked = [p for p in prepared if p.answer is None]
        completions = iter(self.engine.generate([p.chat for p in asked]) if asked else [])
        return [
            p.answer
            if p.answer is not None
            else to_prediction(
                next(completions),
                p.chat,
                p.request.action,
                p.grounded_by,
                p.history_dropped,
                self.spec,
            )
            for p in prepared
        ]

    def stream(self, request: SimRequest) -> Iterator[StreamChunk | Prediction]:
        """Yield streamed deltas, then the parsed Prediction as the last item."""
        prepared = self.prepare(request)
        if prepared.answer is not None:
            yield prepared.answer
            return
        for chunk in self.engine.stream(prepared.chat):
            if chunk.completion is not None:
                yield to_prediction(
                    chunk.completion,
                    prepared.chat,
                    prepared.request.action,
                    prepared.grounded_by,
                    prepared.history_dropped,
                    self.spec,
                )
            else:
                yield chunk


def _chat(request: SimRequest, system_prompt: str) -> ChatRequest:
    """The engine request for a (canonical, grounded) request under its system prompt."""
    return ChatRequest(
        messages=build_messages(request, system_prompt),
        params=request.params,
        reference=request.reference,
    )
