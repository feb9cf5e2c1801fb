"""Build the bundled sample set `backend/data/bundled/recorded.jsonl` from the recorded data.

Usage: `python scripts/build_bundled.py [RECORDED_DIR]` (default: ../shared/data/recorded next to
the repository). The recorded files are checked against SHA256SUMS first. Each source is capped
to a few trajectories of a few whole turns (a prefix, so every kept history still leads to the
next state); observation strings are never cut. Per-turn metadata lists keep describing the full
recording; `metadata.recorded_turns` says how many turns it had.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from backend.data.bundled import BUNDLED_FILE
from backend.data.recorded import CONVERTERS, verify_checksums
from backend.types import Trajectory

REPO = Path(__file__).resolve().parents[1]
DEFAULT_ROOT = REPO.parent / "shared" / "data" / "recorded"
OUTPUT = REPO / "backend" / "data" / BUNDLED_FILE
NOTICE = OUTPUT.parent / "NOTICE.md"

CAPS: dict[str, tuple[int, int]] = {
    "mkrww": (6, 10),  # tiny text; keep whole sequences so the fully recorded last steps stay
    "swe-agent": (3, 8),
    "swe-agent-ctf": (3, 8),
    "tau-bench": (4, 6),  # 182 trajectories in the source: a handful shows the domain
    "widesearch": (1, 15),  # turns 11-15 are the five web_extractor calls
    "miniwob": (4, 8),
    "opencua": (3, 8),
    "android": (8, 8),
}
"""Source -> (most trajectories, most turns per trajectory)."""


def cap(trajectory: Trajectory, max_turns: int) -> Trajectory:
    """Keep the first `max_turns` whole turns, recording how many the source had."""
    metadata = {**trajectory.metadata, "recorded_turns": len(trajectory.turns)}
    return trajectory.model_copy(
        update={"turns": trajectory.turns[:max_turns], "metadata": metadata}
    )


def build(root: Path) -> list[Trajectory]:
    """Select the bundled trajectories from every registered source, in registry order."""
    verify_checksums(root)
    selected: list[Trajectory] = []
    for name in CONVERTERS:
        max_trajectories, max_turns = CAPS[name]
        converted = CONVERTERS.get(name)(root)
        selected.extend(cap(t, max_turns) for t in converted[:max_trajectories])
    return selected


def notice(root: Path, trajectories: list[Trajectory]) -> str:
    """The third-party notice shipped beside the bundled file: sources, then their licence texts.

    MIT and Apache-2.0 ask that the copyright and licence travel with the material. Licence files
    missing from the recorded data (the android repositories) are named by repository instead.
    """
    lines = [
        "# Third-party material in recorded.jsonl",
        "",
        "Every observation comes from the repositories below, unchanged, under their licences.",
        "",
        "| trajectory | source | commit | licence |",
        "|---|---|---|---|",
    ]
    lines += [f"| {t.id} | {t.source} | {t.commit or ''} | {t.licence} |" for t in trajectories]
    for path in sorted(root.rglob("LICENSE*")):
        text = path.read_text(encoding="utf-8").strip()
        lines += ["", f"## {path.parent.relative_to(root)}", "", "```text", text, "```"]
    return "\n".join(lines) + "\n"


def main() -> None:
    """Build and write the bundled file, then print what it holds."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("root", nargs="?", type=Path, default=DEFAULT_ROOT)
    args = parser.parse_args()
    trajectories = build(args.root)
    OUTPUT.parent.mkdir(parents=True, exist_ok=True)
    OUTPUT.write_text("".join(t.model_dump_json() + "\n" for t in trajectories), encoding="utf-8")
    NOTICE.write_text(notice(args.root, trajectories), encoding="utf-8")
    turns = sum(len(t.turns) for t in trajectories)
    size_kib = OUTPUT.stat().st_size / 1024
    print(f"wrote {OUTPUT}: {len(trajectories)} trajectories, {turns} turns, {size_kib:.0f} KiB")


if __name__ == "__main__":
    main()
