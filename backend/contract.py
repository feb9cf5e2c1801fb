"""The registry contract: every registered name carries every fact the rest of the code reads.

Facts about a name live on its registered object (a domain's finish action, an engine's
capabilities, a reward's version), so adding a name is one module and one registration. What
keeps that honest is this checker, in the spirit of Gymnasium's `env_checker`: it walks every
registry and lists, per entry, each declared fact that is missing or does not resolve (a
renderer or metric set that nobody registered). It returns problems instead of raising, so one
run shows everything still missing, and a test can show that an incomplete entry is caught.

The UI's renderers are passed in: backend must not import ui.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from typing import Any

from pydantic import BaseModel

from backend.domains.base import Domain
from backend.engines.base import Capabilities, EngineConfig, EngineSpec, build_engine
from backend.envs.live.base import LiveKind, LiveTask
from backend.envs.sim.rewards import RewardFactory, RewardOptions
from backend.errors import AWPError
from backend.export.builders import ExportFormat
from backend.registry import Registry
from backend.scoring.base import Metric
from backend.scoring.domain_sets import MetricSet
from backend.types import ObservationKind, PromptContext

RendererFn = Callable[[str, str | None], str]


def _blank(entry: str, obj: Any, *names: str) -> list[str]:
    return [f"{entry}: no {name}" for name in names if not getattr(obj, name, "")]


def domain_problems(
    name: str,
    domain: Any,
    *,
    metric_sets: Container[str],
    renderers: Container[str],
    live: Container[str],
) -> list[str]:
    """What the domain registered as `name` lacks: its texts, renderer, metric set, finish, live.

    Args:
        name: the registry key.
        domain: the registered object.
        metric_sets: names with a registered metric set (DOMAIN_SETS).
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
    try:
        domain.validate(domain.example_action, PromptContext())
    except Exception as exc:  # any failure of the example is the finding
        problems.append(f"{entry}: its example action does not validate ({exc})")
    if domain.renderer not in renderers:
        problems.append(f"{entry}: renderer {domain.renderer!r} is not a registered renderer")
    if name not in metric_sets:
        problems.append(f"{entry}: no metric set registered under its name (DOMAIN_SETS)")
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
        problems.append(f"{entry}: no capabilities")
    return problems


def live_problems(name: str, kind: Any, domains: Registry[Domain]) -> list[str]:
    """What the live environment registered as `name` lacks: its domain, factory and checks.

    A listed task with a goal must carry a success check (with a description), or an episode
    of it can end without anyone being able to say whether it succeeded.
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
    if callable(kind.missing) and callable(kind.tasks) and not kind.missing():
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


def metric_set_problems(
    name: str, metric_set: Any, domains: Container[str], metrics: Container[str]
) -> list[str]:
    """What domain `name`'s metric set lacks: a domain, known metrics, a headline among them."""
    entry = f"metric set {name!r}"
    if not isinstance(metric_set, MetricSet):
        return [f"{entry}: is a {type(metric_set).__name__}, not a MetricSet"]
    problems = [] if name in domains else [f"{entry}: no domain is registered under its name"]
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


def registry_problems(renderers: Registry[RendererFn]) -> list[str]:
    """Every problem of every registry entry; empty when all are complete.

    Walks domains, engines, live environments, export and trajectory formats, metrics, metric
    sets, rewards and renderers, importing the built-in modules first so that every
    registration is in place.

    Args:
        renderers: the UI's renderer registry (ui.renderers RENDERERS).
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
    from backend.scoring.base import METRICS
    from backend.scoring.domain_sets import DOMAIN_SETS

    load_builtin_domains()
    load_builtin_engines()
    load_builtin_live()
    judge = build_engine(EngineConfig(name="persistence"))
    problems: list[str] = []
    for name, domain in DOMAINS.items():
        problems += domain_problems(
            name, domain, metric_sets=DOMAIN_SETS, renderers=renderers, live=LIVE
        )
    for name, spec in ENGINES.items():
        problems += engine_problems(name, spec)
    for name, kind in LIVE.items():
        problems += live_problems(name, kind, DOMAINS)
        if name in DOMAINS:
            problems += solution_problems(f"live {name!r}", DOMAINS.get(name), kind.tasks())
    for name, preset in PERTURBATIONS.items():
        problems += perturbation_problems(name, preset, DOMAINS)
    for name, fmt in FORMATS.items():
        problems += format_problems(name, fmt)
    for name, trajectory_format in TRAJECTORY_FORMATS.items():
        problems += trajectory_format_problems(name, trajectory_format)
    for name, metric in METRICS.items():
        problems += metric_problems(name, metric)
    for name, metric_set in DOMAIN_SETS.items():
        problems += metric_set_problems(name, metric_set, DOMAINS, METRICS)
    for name, factory in REWARDS.items():
        problems += reward_problems(name, factory, RewardOptions(judge=judge))
    for name, renderer in renderers.items():
        problems += renderer_problems(name, renderer)
    return problems
