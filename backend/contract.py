"""The registry contract: every registered name carries every fact the rest of the code reads.

Facts about a name live on its registered object (a domain's system and judge prompts, metric
set and finish action, an engine's capabilities, a reward's version), so adding a name is one
module and one registration. What keeps that honest is this checker, in the spirit of
Gymnasium's `env_checker`: it walks every registry and lists, per entry, each declared fact that
is missing or does not resolve (a prompt file or renderer that does not exist, a metric nobody
registered). It returns problems instead of raising, so one run shows everything still missing,
and a test can show that an incomplete entry is caught; `check_registries` raises them at
start-up.

The UI's renderers are passed in: backend must not import ui.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import Any

from pydantic import BaseModel

from backend.domains.base import ActionKind, Domain, MetricSet
from backend.engines.base import Capabilities, EngineConfig, EngineSpec, build_engine
from backend.envs.live.base import LiveKind, LiveTask
from backend.envs.sim.rewards import RewardFactory, RewardOptions
from backend.errors import AWPError, IncompleteRegistryError
from backend.export.builders import ExportFormat
from backend.registry import Registry
from backend.scoring.base import Metric
from backend.types import ObservationKind, PromptContext

RendererFn = Callable[[str, str | None], str]


def _blank(entry: str, obj: Any, *names: str) -> list[str]:
    return [f"{entry}: no {name}" for name in names if not getattr(obj, name, "")]


def domain_problems(
    name: str,
    domain: Any,
    *,
    metrics: Container[str],
    renderers: Container[str],
    live: Container[str],
) -> list[str]:
    """What the domain registered as `name` lacks: texts, prompts, renderer, metrics, finish, live.

    Args:
        name: the registry key.
        domain: the registered object.
        metrics: registered metric names (METRICS).
        renderers: registered UI renderer names (ui.renderers RENDERERS).
        live: domains with a registered live environment (LIVE).
    """
    entry = f"domain {name!r}"
    if not isinstance(domain, Domain):
        return [f"{entry}: is a {type(domain).__name__}, not a Domain"]
    problems = _blank(entry, domain, "title", "action_help", "example_action")
    if domain.name != name:
        problems.append(f"{entry}: registered under another name than its own {domain.name!r}")
    if not isinstance(domain.observation_kind, ObservationKind):
        problems.append(f"{entry}: observation_kind is not an ObservationKind")
    if not isinstance(domain.action_kind, ActionKind):
        problems.append(f"{entry}: action_kind is not an ActionKind")
    problems += _prompt_problems(entry, domain)
    try:
        domain.validate(domain.example_action, PromptContext())
    except Exception as exc:  # any failure of the example is the finding
        problems.append(f"{entry}: its example action does not validate ({exc})")
    if domain.renderer not in renderers:
        problems.append(f"{entry}: renderer {domain.renderer!r} is not a registered renderer")
    if domain.metrics is None:
        problems.append(f"{entry}: no metric set (Domain.metrics)")
    else:
        problems += metric_set_problems(name, domain.metrics, metrics)
    if domain.finish is not None and not domain.finish.hint:
        problems.append(f"{entry}: a finish test without the hint that tells the agent about it")
    if domain.finish is not None and domain.finish.action:
        try:
            finish = domain.finish.test(domain.validate(domain.finish.action, PromptContext()))
        except Exception:  # a finish action the domain refuses is the finding
            finish = False
        if not finish:
            problems.append(f"{entry}: its finish action is not a valid finish action")
    if domain.live and name not in live:
        problems.append(f"{entry}: declares live=True but registers no live environment (LIVE)")
    if not domain.live and name in live:
        problems.append(f"{entry}: has a live environment but does not declare live=True")
    if domain.live and domain.recorded_only:
        problems.append(f"{entry}: declares both live=True and recorded_only")
    problems.extend(_routing_problems(entry, domain))
    return problems


def _prompt_problems(entry: str, domain: Domain) -> list[str]:
    """Each missing prompt, by name, and each declared prompt file that is absent.

    Without a system prompt a domain fails at its first step; without a judge prompt the judge
    cannot score it.
    """
    problems = []
    for what, prompt in (("system", domain.prompts.system), ("judge", domain.prompts.judge)):
        if prompt is None:
            problems.append(f"{entry}: no {what} prompt (Domain.prompts.{what})")
        elif not prompt.is_file():
            problems.append(f"{entry}: its {what} prompt file {prompt} does not exist")
    return problems


def _routing_problems(entry: str, domain: Domain) -> list[str]:
    """A hybrid route needs reality to answer it: a live environment, an executor or live."""
    problems = []
    for route in domain.hybrid.routes:
        if route.answered_by not in ("executor", "live"):
            problems.append(f"{entry}: a hybrid route answered by {route.answered_by!r}")
        if not route.description:
            problems.append(f"{entry}: a hybrid route without a description")
    if domain.hybrid.routes and not domain.live:
        problems.append(f"{entry}: hybrid routes, but no live environment to run them in")
    return problems


def engine_problems(name: str, spec: Any) -> list[str]:
    """What the engine registered as `name` lacks: an EngineSpec with a factory and capabilities."""
    entry = f"engine {name!r}"
    if not isinstance(spec, EngineSpec):
        return [f"{entry}: is a {type(spec).__name__}, not an EngineSpec with capabilities"]
    problems: list[str] = [] if callable(spec.build) else [f"{entry}: its build is not callable"]
    if not isinstance(spec.capabilities, Capabilities):
        return [*problems, f"{entry}: no capabilities"]
    built = spec.build if isinstance(spec.build, type) else None  # a class can be inspected
    missing = [m for m in ("context_length", "prompt_tokens") if not hasattr(built, m)]
    if spec.capabilities.context_window and built is not None and missing:
        problems.append(f"{entry}: declares a context window but has no {', '.join(missing)}")
    return problems


def live_problems(
    name: str, kind: Any, domains: Registry[Domain], *, tasks: bool = True
) -> list[str]:
    """What the live environment registered as `name` lacks: its domain, factory and checks.

    A listed task with a goal must carry a success check (with a description), or an episode
    of it can end without anyone being able to say whether it succeeded.

    Args:
        name: the registry key.
        kind: the registered object.
        domains: the domain registry.
        tasks: also list the tasks and check each (this imports the environment's packages).
    """
    entry = f"live environment {name!r}"
    if not isinstance(kind, LiveKind):
        return [f"{entry}: is a {type(kind).__name__}, not a LiveKind"]
    problems = [
        f"{entry}: its {what} is not callable"
        for what in ("build", "tasks", "missing")
        if not callable(getattr(kind, what))
    ]
    if kind.domain != name:
        problems.append(f"{entry}: serves domain {kind.domain!r}, not its registered name")
    if name not in domains:
        problems.append(f"{entry}: no domain is registered under its name")
    elif not domains.get(name).live:
        problems.append(f"{entry}: its domain does not declare live=True")
    if tasks and callable(kind.missing) and callable(kind.tasks) and not kind.missing():
        problems += task_problems(entry, kind.tasks())
    return problems


def task_problems(entry: str, tasks: Sequence[LiveTask]) -> list[str]:
    """The tasks of `entry` that have a goal but no success check, or an undescribed check."""
    problems = []
    for task in tasks:
        if task.goal and task.check is None:
            problems.append(f"{entry}: task {task.name!r} has a goal but no success check")
        elif task.check is not None and not task.check.description:
            problems.append(f"{entry}: task {task.name!r} has a check without a description")
    return problems


def solution_problems(entry: str, domain: Domain, tasks: Sequence[LiveTask]) -> list[str]:
    """The tasks of `entry` whose scripted solution or no-op has an action the domain refuses."""
    problems = []
    for task in tasks:
        steps = [("solution step", action) for action in task.solution]
        for what, action in [*steps, *([("no-op", task.no_op)] if task.no_op else [])]:
            try:
                domain.validate(action, PromptContext())
            except AWPError as exc:
                problems.append(f"{entry}: task {task.name!r} has an invalid {what}: {exc}")
    return problems


def perturbation_problems(name: str, preset: Any, domains: Container[str]) -> list[str]:
    """What the perturbation preset registered as `name` lacks: texts, known tool domains."""
    entry = f"perturbation {name!r}"
    problems = _blank(entry, preset, "description", "instruction")
    if getattr(preset, "name", name) != name:
        problems.append(f"{entry}: registered under another name than its own")
    problems += [
        f"{entry}: names the unknown domain {domain!r}"
        for domain in getattr(preset, "domains", ())
        if domain not in domains
    ]
    return problems


def format_problems(name: str, fmt: Any) -> list[str]:
    """What the export format registered as `name` lacks: its row model, builder, description."""
    entry = f"export format {name!r}"
    if not isinstance(fmt, ExportFormat):
        return [f"{entry}: is a {type(fmt).__name__}, not an ExportFormat"]
    problems = _blank(entry, fmt, "description")
    if fmt.name != name:
        problems.append(f"{entry}: registered under another name than its own {fmt.name!r}")
    if not (isinstance(fmt.row_model, type) and issubclass(fmt.row_model, BaseModel)):
        problems.append(f"{entry}: its row model is not a pydantic model")
    if not callable(fmt.build):
        problems.append(f"{entry}: its build is not callable")
    return problems


def trajectory_format_problems(name: str, fmt: Any) -> list[str]:
    """What the trajectory format registered as `name` lacks: a reader, suffixes, description."""
    from backend.data.formats.registry import TrajectoryFormat

    entry = f"trajectory format {name!r}"
    if not isinstance(fmt, TrajectoryFormat):
        return [f"{entry}: is a {type(fmt).__name__}, not a TrajectoryFormat"]
    problems = _blank(entry, fmt, "description", "suffixes")
    if fmt.name != name:
        problems.append(f"{entry}: registered under another name than its own {fmt.name!r}")
    if not callable(fmt.read):
        problems.append(f"{entry}: its reader is not callable")
    return problems


def metric_problems(name: str, metric: Any) -> list[str]:
    """What the metric registered as `name` lacks: a positive version and a description."""
    entry = f"metric {name!r}"
    if not isinstance(metric, Metric):
        return [f"{entry}: is a {type(metric).__name__}, not a Metric"]
    problems = _blank(entry, metric, "description")
    if metric.name != name:
        problems.append(f"{entry}: registered under another name than its own {metric.name!r}")
    if not (isinstance(metric.version, int) and metric.version >= 1):
        problems.append(f"{entry}: no version (an integer from 1)")
    return problems


def metric_set_problems(name: str, metric_set: Any, metrics: Container[str]) -> list[str]:
    """What domain `name`'s metric set lacks: known metrics, and a headline among them."""
    entry = f"metric set of domain {name!r}"
    if not isinstance(metric_set, MetricSet):
        return [f"{entry}: is a {type(metric_set).__name__}, not a MetricSet"]
    problems = []
    if not metric_set.metrics:
        problems.append(f"{entry}: no metrics")
    problems += [
        f"{entry}: metric {metric!r} is not registered"
        for metric in metric_set.metrics
        if metric not in metrics
    ]
    if metric_set.headline not in metric_set.metrics:
        problems.append(f"{entry}: headline {metric_set.headline!r} is not one of its metrics")
    return problems


def reward_problems(name: str, factory: RewardFactory, options: RewardOptions) -> list[str]:
    """What the reward registered as `name` lacks: a model that builds, with its name and version.

    The version is stored beside every verdict, so a reward without one makes results that
    cannot be told apart after the reward changes.
    """
    entry = f"reward {name!r}"
    try:
        model = factory(options)
    except Exception as exc:  # a factory that cannot build is the finding
        return [f"{entry}: does not build ({exc})"]
    problems = _blank(entry, model, "version")
    if getattr(model, "name", None) != name:
        problems.append(f"{entry}: its model is named {getattr(model, 'name', None)!r}")
    if not callable(getattr(model, "assess", None)):
        problems.append(f"{entry}: its model has no assess method")
    return problems


def renderer_problems(name: str, renderer: Any) -> list[str]:
    """What the renderer registered as `name` lacks: it must turn an observation into HTML text."""
    entry = f"renderer {name!r}"
    try:
        html = renderer("x", None)
    except Exception as exc:  # a renderer failing on a plain observation is the finding
        return [f"{entry}: fails on a plain observation ({exc})"]
    return [] if isinstance(html, str) else [f"{entry}: returns {type(html).__name__}, not str"]


def registry_problems(renderers: Registry[RendererFn], *, live_tasks: bool = True) -> list[str]:
    """Every problem of every registry entry; empty when all are complete.

    Walks domains (with their prompts and metric sets), engines, live environments, export and
    trajectory formats, metrics, rewards and renderers, importing the built-in modules first so
    that every registration is in place.

    Args:
        renderers: the UI's renderer registry (ui.renderers RENDERERS).
        live_tasks: also list every live environment's tasks and check their checks and
            scripted solutions (listing web's imports browsergym, about 0.4 s).
    """
    from backend.data.formats.registry import TRAJECTORY_FORMATS
    from backend.domains import load_builtin_domains
    from backend.domains.base import DOMAINS
    from backend.engines import load_builtin_engines
    from backend.engines.base import ENGINES
    from backend.envs.live import load_builtin_live
    from backend.envs.live.base import LIVE
    from backend.envs.sim.rewards import REWARDS
    from backend.envs.sim.worlds import PERTURBATIONS
    from backend.export.builders import FORMATS
    from backend.scoring import score  # noqa: F401  (registers every metric in METRICS)
    from backend.scoring.base import METRICS

    load_builtin_domains()
    load_builtin_engines()
    load_builtin_live()
    judge = build_engine(EngineConfig(name="persistence"))
    problems: list[str] = []
    for name, domain in DOMAINS.items():
        problems += domain_problems(name, domain, metrics=METRICS, renderers=renderers, live=LIVE)
    for name, spec in ENGINES.items():
        problems += engine_problems(name, spec)
    for name, kind in LIVE.items():
        problems += live_problems(name, kind, DOMAINS, tasks=live_tasks)
        if live_tasks and name in DOMAINS:
            problems += solution_problems(f"live {name!r}", DOMAINS.get(name), kind.tasks())
    for name, preset in PERTURBATIONS.items():
        problems += perturbation_problems(name, preset, DOMAINS)
    for name, fmt in FORMATS.items():
        problems += format_problems(name, fmt)
    for name, trajectory_format in TRAJECTORY_FORMATS.items():
        problems += trajectory_format_problems(name, trajectory_format)
    for name, metric in METRICS.items():
        problems += metric_problems(name, metric)
    for name, factory in REWARDS.items():
        problems += reward_problems(name, factory, RewardOptions(judge=judge))
    for name, renderer in renderers.items():
        problems += renderer_problems(name, renderer)
    return problems


def check_registries(renderers: Registry[RendererFn]) -> None:
    """Refuse to start with an incomplete registry, naming every entry and missing fact.

    The composition root calls it once per process (`app.context.build_context`), so a domain
    added without its prompts stops `awp` and the server at start-up, not at its first step.
    Live tasks are left to the contract test: listing them imports the environments' packages.

    Raises:
        IncompleteRegistryError: some entry lacks a fact (the message has one line for each).
    """
    problems = registry_problems(renderers, live_tasks=False)
    if problems:
        lines = "\n".join(f"  {problem}" for problem in problems)
        raise IncompleteRegistryError(
            "Registered names lack facts the code needs (backend/contract.py; run "
            f"pytest tests/unit/test_registries.py):\n{lines}"
        )
