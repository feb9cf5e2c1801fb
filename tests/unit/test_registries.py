"""The registry contract: every registered name carries every fact the code reads from it.

The first test walks the real registries; the others show that the checker catches incomplete
entries (built by hand or registered in a fresh Registry, never in the shared ones).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from backend.contract import (
    domain_problems,
    engine_problems,
    live_problems,
    metric_problems,
    metric_set_problems,
    perturbation_problems,
    registry_problems,
    renderer_problems,
    reward_problems,
    solution_problems,
)
from backend.domains import load_builtin_domains, metric_sets
from backend.domains.base import DOMAINS, ActionKind, Domain, Finish, MetricSet, get_domain
from backend.domains.routing import RoutingPolicy
from backend.domains.terminal import validate as terminal_validate
from backend.engines.base import (
    NO_CAPABILITIES,
    EngineSpec,
    reference_answerers,
)
from backend.engines.openai_engine import OpenAIEngine
from backend.envs.live.base import Check, LiveKind, LiveTask
from backend.envs.sim.rewards import RewardOptions, StepView, Verdict
from backend.envs.sim.worlds import Perturbation
from backend.registry import Registry
from backend.scoring.base import METRICS, Metric
from ui.renderers import RENDERERS


def test_every_registered_entry_has_every_fact() -> None:
    problems = registry_problems(RENDERERS)
    assert not problems, "Registry entries lack facts:\n" + "\n".join(problems)


def test_an_eighth_domain_without_its_prompts_fails_the_contract_by_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The issue's experiment: a domain added by the checklist, minus its two prompt files.

    It used to pass the contract and then fail at its first step (no system prompt) and in the
    judge (no judge prompt). It is registered in the real registry for this test only.
    """
    eighth = Domain(
        name="eighth",
        title="Eighth",
        observation_kind=get_domain("terminal").observation_kind,
        action_kind=ActionKind.KEYSTROKES,
        action_help="A keystroke batch, as the terminal takes it.",
        example_action='[{"keystrokes": "ls\\n", "duration": 0.1}]',
        validate=terminal_validate,
        renderer="terminal",
        metrics=metric_sets.SCREEN,
    )
    monkeypatch.setitem(DOMAINS._items, "eighth", eighth)

    assert registry_problems(RENDERERS) == [
        "domain 'eighth': no system prompt (Domain.prompts.system)",
        "domain 'eighth': no judge prompt (Domain.prompts.judge)",
    ]


def _eighth() -> Domain:
    """A new domain someone started: copied from terminal, with its facts half declared."""
    return replace(
        get_domain("terminal"),
        name="eighth",
        renderer="no_such_renderer",
        metrics=None,
        finish=Finish(lambda action: action == "done", hint=""),
        live=True,
    )


def test_an_incomplete_domain_is_listed_with_each_missing_fact() -> None:
    domains: Registry[Domain] = Registry("domain")
    domains.register("eighth", _eighth())
    problems = domain_problems(
        "eighth", domains.get("eighth"), metrics=METRICS, renderers=RENDERERS, live=()
    )
    assert problems == [
        "domain 'eighth': renderer 'no_such_renderer' is not a registered renderer",
        "domain 'eighth': no metric set (Domain.metrics)",
        "domain 'eighth': a finish test without the hint that tells the agent about it",
        "domain 'eighth': declares live=True but registers no live environment (LIVE)",
    ]


def test_a_domain_registered_under_another_name_or_with_a_bad_example_is_listed() -> None:
    terminal = get_domain("terminal")
    domain = replace(terminal, name="eighth", example_action="ls", title="", live=False)
    problems = domain_problems("ninth", domain, metrics=METRICS, renderers=RENDERERS, live=())
    assert problems[0] == "domain 'ninth': no title"
    assert problems[1] == "domain 'ninth': registered under another name than its own 'eighth'"
    assert problems[2].startswith("domain 'ninth': its example action does not validate")
    assert len(problems) == 3


def test_a_hybrid_route_without_reality_to_answer_it_is_listed() -> None:
    swe = get_domain("swe")
    model_route = replace(swe.hybrid.routes[0], answered_by="model", description="")
    domain = replace(swe, live=False, hybrid=RoutingPolicy((model_route,)))
    problems = domain_problems("swe", domain, metrics=METRICS, renderers=RENDERERS, live=())
    assert problems == [
        "domain 'swe': a hybrid route answered by 'model'",
        "domain 'swe': a hybrid route without a description",
        "domain 'swe': hybrid routes, but no live environment to run them in",
    ]


def test_an_engine_registered_as_a_bare_factory_lacks_its_capabilities() -> None:
    engines: Registry[object] = Registry("engine")
    engines.register("bare", lambda config: None)
    assert engine_problems("bare", engines.get("bare")) == [
        "engine 'bare': is a function, not an EngineSpec with capabilities"
    ]


def test_an_engine_declaring_a_context_window_it_cannot_measure_is_listed() -> None:
    spec = EngineSpec(OpenAIEngine, replace(NO_CAPABILITIES, context_window=True))
    assert engine_problems("openai", spec) == [
        "engine 'openai': declares a context window but has no context_length, prompt_tokens"
    ]


def test_the_oracle_alone_answers_with_the_reference() -> None:
    assert reference_answerers() == ["oracle"]


def test_a_live_environment_without_a_live_domain_is_listed() -> None:
    kind = LiveKind("search", build=lambda config: None, tasks=list, missing=str)
    assert live_problems("os", kind, Registry("domain")) == [
        "live environment 'os': serves domain 'search', not its registered name",
        "live environment 'os': no domain is registered under its name",
    ]


def test_a_live_task_with_a_goal_but_no_check_is_listed() -> None:
    def tasks() -> list[LiveTask]:
        return [
            LiveTask("free", "a start state without a goal needs no check"),
            LiveTask("unchecked", "a goal nobody can check", "Fix the bug."),
            LiveTask("mute", "a check that says nothing", "Fix it.", Check("", "passed(True)")),
            LiveTask("checked", "fine", "Fix it.", Check("the tests pass", "passed(True)")),
        ]

    load_builtin_domains()
    kind = LiveKind("terminal", build=lambda config: None, tasks=tasks, missing=str)
    assert live_problems("terminal", kind, DOMAINS) == [
        "live environment 'terminal': task 'unchecked' has a goal but no success check",
        "live environment 'terminal': task 'mute' has a check without a description",
    ]


def test_a_metric_set_naming_an_unknown_metric_is_listed() -> None:
    metric_set = MetricSet(("text_exact", "no_such_metric"), "change_f1")
    assert metric_set_problems("eighth", metric_set, metrics=METRICS) == [
        "metric set of domain 'eighth': metric 'no_such_metric' is not registered",
        "metric set of domain 'eighth': headline 'change_f1' is not one of its metrics",
    ]


class _Unversioned:
    name = "unversioned"
    version = ""

    def assess(self, steps: Sequence[StepView]) -> list[Verdict]:
        return [Verdict(0.0) for _ in steps]


def test_a_reward_without_a_version_is_listed() -> None:
    assert reward_problems("unversioned", lambda options: _Unversioned(), RewardOptions()) == [
        "reward 'unversioned': no version"
    ]


def test_a_reward_that_cannot_build_is_listed() -> None:
    def broken(options: RewardOptions) -> _Unversioned:
        raise ValueError("needs a judge")

    assert reward_problems("broken", broken, RewardOptions()) == [
        "reward 'broken': does not build (needs a judge)"
    ]


def test_a_renderer_that_fails_on_plain_text_is_listed() -> None:
    def broken(observation: str, previous: str | None) -> str:
        raise IndexError("no results")

    assert renderer_problems("broken", broken) == [
        "renderer 'broken': fails on a plain observation (no results)"
    ]


def test_a_metric_without_version_or_description_is_listed() -> None:
    metric = Metric("new_metric", 0, lambda pair: (0.0, {}), "")
    assert metric_problems("new_metric", metric) == [
        "metric 'new_metric': no description",
        "metric 'new_metric': no version (an integer from 1)",
    ]


def test_a_perturbation_without_an_instruction_or_with_an_unknown_domain_is_listed() -> None:
    preset = Perturbation("quake", "the ground shakes", "", ("mcp", "atlantis"))
    assert perturbation_problems("quake", preset, DOMAINS) == [
        "perturbation 'quake': no instruction",
        "perturbation 'quake': names the unknown domain 'atlantis'",
    ]


def test_a_scripted_solution_or_no_op_the_domain_refuses_is_listed() -> None:
    task = LiveTask("t", "d", "goal", solution=("ls",), no_op="pwd")
    solution, no_op = solution_problems("live 'terminal'", get_domain("terminal"), [task])
    assert solution.startswith("live 'terminal': task 't' has an invalid solution step")
    assert no_op.startswith("live 'terminal': task 't' has an invalid no-op")
