"""Grounded and hybrid simulation, measured: fidelity per k, confidence AUROC, sim/hybrid/live.

`grounding`: held-out real transitions of the bundled set (split by trajectory: each item is
grounded only in the OTHER recordings, the leakage guard every request carries), predicted by
the embedded model (or `--model`, a transformers folder such as the one `awp model prepare
--tuned` trains) with k = 0, 4, 8 demonstrations; per domain the mean headline, the mean
prompt tokens each k costs, and the AUROC of the model's confidence (token probabilities)
against headline >= 0.5. `--per-domain N` items per domain (the first N turns of each domain's
recordings in item order, after the first `--offset`); `--k` picks the k values,
`--max-tokens` the new tokens per prediction, `--grounding-domains` the domains (search too).

`backings`: a scripted agent's actions in the live swe, terminal, mcp and web environments
(`--domains` picks some), run three ways with the embedded world model: `live` (the truth),
`sim`, `hybrid`. Per backing: the headline of what the agent saw against the live truth at each
step (fidelity), who answered each step, and the wall clock per step with the environment's
start included; T_live / T_sim is the crossover.

Usage: python benchmarks/bench_hybrid.py grounding --per-domain 4 [--model FOLDER]
       python benchmarks/bench_hybrid.py backings [--domains mcp web]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.settings import Settings
from backend.benchmark.items import load_items
from backend.confidence import GOOD_HEADLINE, auroc
from backend.data.bundled import load_bundled
from backend.domains.prompts import PromptLibrary
from backend.engines.base import EngineConfig, build_engine
from backend.envs.live.base import LiveConfig
from backend.envs.sim.episode import EnvOptions, EpisodeSpec
from backend.envs.sim.rewards import RewardOptions, build_reward
from backend.envs.sim.world import WorldEnv
from backend.grounding.grounder import Grounder
from backend.grounding.transitions import FixedTransitions, trajectory_transitions
from backend.simulate import Simulator
from backend.stepping import compare, step_batch
from backend.types import HistoryMode, Prediction, SamplingParams

PARAMS = SamplingParams(temperature=0.0, max_new_tokens=48)
DOMAINS = ("terminal", "swe", "mcp", "web", "os", "android")
GROUNDING_DOMAINS = (*DOMAINS, "search")
KS = (0, 4, 8)


def embedded(data_dir: Path, model: str = ""):
    """The transformers engine: the embedded SmolLM2 prepared in `data_dir`, or `model`."""
    return build_engine(EngineConfig(name="transformers", model=model, data_dir=data_dir))


def grounding(
    per_domain: int,
    data_dir: Path,
    model: str = "",
    ks: tuple[int, ...] = KS,
    domains: tuple[str, ...] = DOMAINS,
    params: SamplingParams = PARAMS,
    offset: int = 0,
) -> None:
    """Fidelity, prompt tokens and confidence AUROC per domain at each k, with one line per item.

    The per-item lines (headline, confidence, finish reason, the prediction's start) show why a
    domain has one class: an output cut by the token cap, or a wrong one.
    """
    items = [i for i in load_items("bundled") if i.domain in domains]
    chosen = [
        item
        for domain in domains
        for item in [i for i in items if i.domain == domain][offset : offset + per_domain]
    ]
    source = FixedTransitions([t for tr in load_bundled() for t in trajectory_transitions(tr)])
    engine = embedded(data_dir, model)
    rows: dict[tuple[str, int], list[tuple[float, int, float | None]]] = defaultdict(list)
    for k in ks:
        grounder = Grounder(source, k=k, max_tokens=4000) if k else None
        simulator = Simulator(engine, PromptLibrary(), grounder)
        started = time.perf_counter()
        for item in chosen:  # one at a time: a batch pads every prompt to the longest
            request = item.request(params, HistoryMode.TEACHER_FORCED)
            ((sample,),) = step_batch(simulator, [request])
            if sample.prediction is None:  # a prompt longer than the model's context
                print(f"skipped {item.item_id} at k={k}: {sample.error}", flush=True)
                continue
            made = sample.made()
            headline = sample.scores.headline or 0.0
            rows[(item.domain, k)].append((headline, made.prompt_tokens, made.confidence))
            print(_item_line(item.item_id, k, headline, made), flush=True)
        print(f"k={k}: {len(chosen)} items in {time.perf_counter() - started:.0f} s", flush=True)
    _fidelity_table(rows, ks, domains)
    _confidence_table(rows, domains)


def _item_line(item_id: str, k: int, headline: float, made: Prediction) -> str:
    """One item's outcome: headline, confidence, tokens, why decoding stopped, its start."""
    confidence = "none" if made.confidence is None else f"{made.confidence:.3f}"
    return (
        f"item {item_id} k={k} headline={headline:.3f} confidence={confidence} "
        f"tokens={made.prompt_tokens}+{made.completion_tokens} stop={made.finish_reason} "
        f"output={made.observation[:80]!r} raw={made.raw_text[:60]!r}"
    )


def _fidelity_table(
    rows: dict[tuple[str, int], list[tuple[float, int, float | None]]],
    ks: tuple[int, ...],
    domains: tuple[str, ...],
) -> None:
    """Mean headline and prompt tokens per domain and k."""
    heads = " | ".join(f"k={k}" for k in ks)
    print(f"\n| domain | {heads} | prompt tokens k={' / '.join(map(str, ks))} |")
    print("|---|" + "--:|" * len(ks) + "---|")
    for domain in domains:
        cells = [statistics.fmean([h for h, _, _ in rows[(domain, k)]] or [0]) for k in ks]
        tokens = [round(statistics.fmean([t for _, t, _ in rows[(domain, k)]] or [0])) for k in ks]
        shown = " | ".join(f"{c:.3f}" for c in cells)
        print(f"| {domain} | {shown} | {' / '.join(map(str, tokens))} |")


def _confidence_table(
    rows: dict[tuple[str, int], list[tuple[float, int, float | None]]], domains: tuple[str, ...]
) -> None:
    """At k = 0: items, good ones (headline >= 0.5), AUROC, confidence median, headline spread."""
    print(
        "\n| domain (k=0) | items | headline >= 0.5 | confidence AUROC | confidence median "
        "| headline min / median / max |"
    )
    print("|---|--:|--:|--:|--:|---|")
    for domain in [*domains, "pooled"]:
        values = [
            (h, c)
            for (d, k), found in rows.items()
            if k == 0 and domain in (d, "pooled")
            for h, _, c in found
            if c is not None
        ]
        if not values:
            continue
        heads = [h for h, _ in values]
        good = [h >= GOOD_HEADLINE for h in heads]
        found = auroc([c for _, c in values], good)
        shown = f"one class ({len(values) - sum(good)} bad, {sum(good)} good)"
        median = statistics.median(c for _, c in values)
        spread = " / ".join(f"{v:.3f}" for v in (min(heads), statistics.median(heads), max(heads)))
        print(
            f"| {domain} | {len(values)} | {sum(good)} | "
            f"{shown if found is None else f'{found:.2f}'} | {median:.3f} | {spread} |"
        )


def call(name: str, **arguments: object) -> str:
    """A tool-call action."""
    return json.dumps({"name": name, "arguments": arguments})


def keys(text: str) -> str:
    """A terminal action."""
    return json.dumps([{"keystrokes": text, "duration": 0.3}])


@dataclass(frozen=True)
class Script:
    """A scripted agent for one live task.

    Attributes:
        task: the live task (a fixed instance where the task draws one, so every backing starts
            on the same page).
        actions: the actions, from the live start's first observation and goal (web needs the
            page's element ids; the others ignore them).
    """

    task: str
    actions: Callable[[str, str], list[str]]


def _bid(observation: str, pattern: str) -> str:
    found = re.search(r"\[(\w+)\] " + pattern, observation)
    if found is None:
        raise SystemExit(f"{pattern!r} is not on the page:\n{observation}")
    return found.group(1)


def _enter_text(first: str, goal: str) -> list[str]:
    """MiniWoB enter-text: click the box, type the goal's word, submit."""
    word = re.search(r'"([^"]+)"', goal)
    if word is None:
        raise SystemExit(f"No quoted word in the goal {goal!r}")
    box, submit = _bid(first, "textbox"), _bid(first, "button 'Submit'")
    return [f"click('{box}')", f"fill('{box}', {word.group(1)!r})", f"click('{submit}')"]


_SWE = "/testbed/romans/numerals.py"
SCRIPTS: dict[str, Script] = {
    "swe": Script(
        "romans",
        lambda first, goal: [
            call("str_replace_editor", command="view", path=_SWE),
            call("bash", command="python -m pytest -q -p no:cacheprovider"),
            call(
                "str_replace_editor",
                command="str_replace",
                path=_SWE,
                old_str="    return sum(VALUES[letter] for letter in numeral.upper())",
                new_str="    values = [VALUES[c] for c in numeral.upper()]\n"
                "    return sum(-v if v < n else v for v, n in zip(values, values[1:] + [0]))",
            ),
            call("str_replace_editor", command="view", path=_SWE),
            call("bash", command="python -m pytest -q -p no:cacheprovider"),
        ],
    ),
    "terminal": Script(
        "shell",
        lambda first, goal: [
            keys("echo hello > a.txt\n"),
            keys("ls\n"),
            keys("cat a.txt\n"),
            keys("pwd\n"),
        ],
    ),
    # memory-observe's 9 tools fit the embedded model's 8,192 tokens twice (the system prompt's
    # tool list and the first observation); filesystem's 14 do not. read_graph and open_nodes
    # are read-only (the executor answers them in hybrid), add_observations is not.
    "mcp": Script(
        "memory-observe",
        lambda first, goal: [
            call("read_graph"),
            call(
                "add_observations",
                observations=[{"entityName": "Bob", "contents": ["speaks French"]}],
            ),
            call("open_nodes", names=["Bob"]),
        ],
    ),
    "web": Script("miniwob.enter-text@7", _enter_text),
}


def backings(domains: list[str], data_dir: Path, work: Path) -> None:
    """Fidelity against the live truth and wall clock per step, for live, sim and hybrid."""
    engine = embedded(data_dir)
    simulator = Simulator(engine, PromptLibrary())
    # load the model before timing anything
    simulator.step_batch([load_items("bundled")[0].request(PARAMS, HistoryMode.TEACHER_FORCED)])
    print("| domain | backing | fidelity vs live | s / step (start included) | answered by |")
    print("|---|---|--:|--:|---|")
    for domain in domains:
        script = SCRIPTS[domain]
        truth: list[str] = []
        actions: list[str] = []
        start = EpisodeSpec(domain=domain, live_task=script.task)
        seconds: dict[str, float] = {}
        for backing in ("live", "sim", "hybrid"):
            options = EnvOptions(
                backing=backing,
                max_steps=10,
                record=False,
                params=PARAMS,
                live_config=LiveConfig(work_dir=work / backing, action_timeout_s=60.0),
            )
            env = WorldEnv(simulator, build_reward("reference", RewardOptions()), options)
            started = time.perf_counter()
            first, info = env.reset(start)
            if backing == "live":  # sim starts where the live run started, with its tools
                actions = script.actions(first, info["task"])
                start_state, context = first, env.context
                sim_start = EpisodeSpec(domain=domain, initial_state=first, context=context)
            if backing == "sim":
                first, _ = env.reset(sim_start)
            seen, who, cut = [], [], []
            for action in actions:
                result = env.step(action)
                seen.append(result.observation)
                who.append(result.info.get("answered_by", "model"))
                cut.append(result.info.get("history_dropped", 0))
            seconds[backing] = (time.perf_counter() - started) / len(actions)
            env.close()
            if backing == "live":
                truth = seen
            previous = [start_state, *truth[:-1]]
            fidelity = statistics.fmean(
                compare(domain, s, t, p).headline or 0.0
                for s, t, p in zip(seen, truth, previous, strict=True)
            )
            counts = ", ".join(f"{n} {a}" for a, n in sorted(_count(who).items()))
            if any(cut):
                counts += f"; history turns cut per step {cut}"
            print(
                f"| {domain} | {backing} | {fidelity:.3f} | {seconds[backing]:.2f} | {counts} |",
                flush=True,
            )
        print(f"| {domain} | T_live / T_sim | | {seconds['live'] / seconds['sim']:.2f}x | |")
        print(f"actions: {actions}", flush=True)


def _count(values: list[str]) -> dict[str, int]:
    found: dict[str, int] = defaultdict(int)
    for value in values:
        found[value] += 1
    return found


def main() -> None:
    """Run one of the two measurements."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["grounding", "backings"])
    parser.add_argument("--per-domain", type=int, default=4)
    parser.add_argument(
        "--domains",
        nargs="+",
        choices=list(SCRIPTS),
        default=list(SCRIPTS),
        help="backings: the live tasks to run (default: all four)",
    )
    parser.add_argument(
        "--model",
        default="",
        help="grounding: a transformers model folder (a tuned one); default the embedded model",
    )
    parser.add_argument(
        "--k",
        type=int,
        nargs="+",
        default=list(KS),
        help="grounding: the demonstration counts to run (default 0 4 8)",
    )
    parser.add_argument(
        "--grounding-domains",
        nargs="+",
        choices=GROUNDING_DOMAINS,
        default=list(DOMAINS),
        help="grounding: the domains whose bundled items are predicted (default all but search)",
    )
    parser.add_argument(
        "--offset",
        type=int,
        default=0,
        help="grounding: skip each domain's first N items (to extend an earlier run)",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        default=PARAMS.max_new_tokens,
        help=f"grounding: new tokens per prediction (default {PARAMS.max_new_tokens})",
    )
    parser.add_argument("--data-dir", type=Path, default=Settings().data_dir)
    args = parser.parse_args()
    if args.what == "grounding":
        if args.per_domain < 1 or args.max_tokens < 1 or min(args.k) < 0 or args.offset < 0:
            parser.error("--per-domain and --max-tokens must be positive, --k and --offset not")
        grounding(
            args.per_domain,
            args.data_dir,
            args.model,
            tuple(args.k),
            tuple(args.grounding_domains),
            PARAMS.model_copy(update={"max_new_tokens": args.max_tokens}),
            args.offset,
        )
    else:
        with tempfile.TemporaryDirectory() as folder:
            backings(args.domains, args.data_dir, Path(folder))


if __name__ == "__main__":
    main()
