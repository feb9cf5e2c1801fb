"""Grounded and hybrid simulation, measured: fidelity per k, confidence AUROC, sim/hybrid/live.

`grounding`: held-out real transitions of the bundled set (split by trajectory: each item is
grounded only in the OTHER recordings, the leakage guard every request carries), predicted by
the embedded model (or `--model`, a transformers folder such as the one `awp model prepare
--tuned` trains) with k = 0, 4, 8 demonstrations; per domain the mean headline, the mean
prompt tokens each k costs, and the AUROC of the model's confidence (token probabilities)
against headline >= 0.5. `--per-domain N` items per domain (the first N turns of each domain's
recordings in item order).

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
from backend.types import HistoryMode, SamplingParams

PARAMS = SamplingParams(temperature=0.0, max_new_tokens=48)
DOMAINS = ("terminal", "swe", "mcp", "web", "os", "android")


def embedded(data_dir: Path, model: str = ""):
    """The transformers engine: the embedded SmolLM2 prepared in `data_dir`, or `model`."""
    return build_engine(EngineConfig(name="transformers", model=model, data_dir=data_dir))


def grounding(per_domain: int, data_dir: Path, model: str = "") -> None:
    """Fidelity, prompt tokens and confidence AUROC per domain at k = 0, 4, 8."""
    items = [i for i in load_items("bundled") if i.domain in DOMAINS]
    chosen = [
        item for domain in DOMAINS for item in [i for i in items if i.domain == domain][:per_domain]
    ]
    source = FixedTransitions([t for tr in load_bundled() for t in trajectory_transitions(tr)])
    engine = embedded(data_dir, model)
    rows: dict[tuple[str, int], list[tuple[float, int, float | None]]] = defaultdict(list)
    for k in (0, 4, 8):
        grounder = Grounder(source, k=k, max_tokens=4000) if k else None
        simulator = Simulator(engine, PromptLibrary(), grounder)
        started = time.perf_counter()
        for item in chosen:  # one at a time: a batch pads every prompt to the longest
            request = item.request(PARAMS, HistoryMode.TEACHER_FORCED)
            ((sample,),) = step_batch(simulator, [request])
            if sample.prediction is None:  # a prompt longer than the model's context
                print(f"skipped {item.item_id} at k={k}: {sample.error}", flush=True)
                continue
            made = sample.made()
            rows[(item.domain, k)].append(
                (sample.scores.headline or 0.0, made.prompt_tokens, made.confidence)
            )
        print(f"k={k}: {len(chosen)} items in {time.perf_counter() - started:.0f} s", flush=True)
    print("\n| domain | k=0 | k=4 | k=8 | prompt tokens k=0 / 4 / 8 | confidence AUROC (k=0) |")
    print("|---|--:|--:|--:|---|--:|")
    for domain in DOMAINS:
        cells = [statistics.fmean([h for h, _, _ in rows[(domain, k)]] or [0]) for k in (0, 4, 8)]
        tokens = [
            round(statistics.fmean([t for _, t, _ in rows[(domain, k)]] or [0])) for k in (0, 4, 8)
        ]
        pairs = [(c, h) for h, _, c in rows[(domain, 0)] if c is not None]
        found = auroc([c for c, _ in pairs], [h >= GOOD_HEADLINE for _, h in pairs])
        shown = "n/a (one class)" if found is None else f"{found:.2f}"
        print(
            f"| {domain} | {cells[0]:.3f} | {cells[1]:.3f} | {cells[2]:.3f} | "
            f"{' / '.join(map(str, tokens))} | {shown} |"
        )
    pooled = [
        (c, h) for key, values in rows.items() if key[1] == 0 for h, _, c in values if c is not None
    ]
    found = auroc([c for c, _ in pooled], [h >= GOOD_HEADLINE for _, h in pooled])
    print(f"\npooled confidence AUROC (k=0, {len(pooled)} items): {found}")


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
    parser.add_argument("--data-dir", type=Path, default=Settings().data_dir)
    args = parser.parse_args()
    if args.what == "grounding":
        grounding(args.per_domain, args.data_dir, args.model)
    else:
        with tempfile.TemporaryDirectory() as folder:
            backings(args.domains, args.data_dir, Path(folder))


if __name__ == "__main__":
    main()
