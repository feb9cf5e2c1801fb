"""`awp simulate` as a person runs it: cold (first use converts the GGUF) and warm, and the venv.

Each run is a fresh `python -m app simulate` process under `/usr/bin/time -v`, so the wall time
includes imports and the model load, and the peak RSS is the process's own. Cold uses a new
data directory (the embedded model is converted again); warm reuses it. Also prints the size
of `.venv`, what `make test` installs.

Usage: PYTHONPATH=. python benchmarks/bench_cli.py [--runs 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ACTION = '[{"keystrokes": "ls -la\\n", "duration": 1}]'
TOKENS = 64


def simulate(data_dir: Path) -> tuple[float, float, dict]:
    """One `awp simulate --json` run: wall seconds, peak RSS in MiB, and its JSON output."""
    env = {**os.environ, "AWP_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1"}
    command = [
        "/usr/bin/time",
        "-v",
        sys.executable,
        "-m",
        "app",
        "simulate",
        "--domain",
        "terminal",
        "--action",
        ACTION,
        "--max-new-tokens",
        str(TOKENS),
        "--seed",
        "0",
        "--json",
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", done.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    if wall is None or rss is None:
        raise RuntimeError(f"/usr/bin/time said:\n{done.stderr[-2000:]}")
    hours, minutes, seconds = wall.groups()
    elapsed = int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)
    return elapsed, int(rss.group(1)) / 1024, json.loads(done.stdout.strip().splitlines()[-1])


def venv_size() -> str:
    """Size of `.venv`, as `du -sh` prints it."""
    done = subprocess.run(["du", "-sh", str(ROOT / ".venv")], capture_output=True, text=True)
    return done.stdout.split()[0] if done.returncode == 0 else "unknown"


def main() -> None:
    """Print cold and warm `awp simulate` wall time and peak RSS, and the venv size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        data = Path(scratch)
        cold_s, cold_mib, _ = simulate(data)
        warm = [simulate(data) for _ in range(options.runs)]
    out = warm[-1][2]
    figures = {
        "cold": {"wall_s": round(cold_s, 1), "peak_rss_mib": round(cold_mib)},
        "warm": {
            "wall_s_median": round(statistics.median(w[0] for w in warm), 1),
            "peak_rss_mib_median": round(statistics.median(w[1] for w in warm)),
            "prompt_tokens": out["prompt_tokens"],
            "completion_tokens": out["completion_tokens"],
        },
        "venv": venv_size(),
    }
    print(json.dumps(figures, indent=2))
    if options.json:
        options.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
