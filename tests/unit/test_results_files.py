"""Results are generated, not typed: the stamping module and the files in docs/results/.

Every figure the manual quotes comes from a file a benchmark wrote through
`benchmarks/results.py`; these tests check that the module stamps what a reader needs to trust a
figure (commit, machine, load, date, command) and that each file in docs/results/ is exactly what
its stamped JSON renders, so a figure typed or edited by hand fails here.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from benchmarks.results import (
    MACHINE_FIELDS,
    RESULTS_DIR,
    STAMP_FIELDS,
    ResultsRun,
    Table,
    problems,
)
from benchmarks.time_tests import pytest_report


def write_demo(folder: Path) -> Path:
    run = ResultsRun(
        "demo",
        "A demonstration",
        "What is measured.",
        argv=["benchmarks/bench_layer.py", "--sizes", "4", "--results"],
        folder=folder,
    )
    return run.write([Table("Figures", ["domain", "ms"], [["terminal", 1.25]])], data={"x": 1})


def test_a_run_stamps_commit_machine_load_dates_and_command(tmp_path: Path) -> None:
    page = write_demo(tmp_path)
    stamp = json.loads((tmp_path / "demo.json").read_text())["stamp"]
    assert set(STAMP_FIELDS) <= set(stamp)
    assert set(MACHINE_FIELDS) <= set(stamp["machine"])
    assert re.fullmatch(r"[0-9a-f]{40}", stamp["commit"])
    assert isinstance(stamp["dirty"], bool)
    assert stamp["machine"]["cores"] >= 1
    assert len(stamp["load_start"]) == len(stamp["load_end"]) == 3
    assert stamp["started"] <= stamp["finished"]
    command = "PYTHONPATH=. .venv/bin/python benchmarks/bench_layer.py --sizes 4 --results"
    assert stamp["command"] == command
    text = page.read_text()
    assert command in text and stamp["commit"][:12] in text and "| terminal | 1.25 |" in text
    assert "[A demonstration](demo.md)" in (tmp_path / "index.md").read_text()
    assert problems(tmp_path) == []


def test_every_results_file_in_the_docs_is_generated_and_stamped() -> None:
    assert sorted(RESULTS_DIR.glob("*.json")), "docs/results/ holds no results: run make results"
    assert problems(RESULTS_DIR) == []


def test_a_figure_edited_by_hand_is_named(tmp_path: Path) -> None:
    write_demo(tmp_path)
    page = tmp_path / "demo.md"
    page.write_text(page.read_text().replace("1.25", "0.5"))
    (fault,) = problems(tmp_path)
    assert fault.startswith("demo.md differs from what demo.json renders: edited by hand")


def test_a_page_with_no_stamped_source_is_named(tmp_path: Path) -> None:
    write_demo(tmp_path)
    shutil.copy(tmp_path / "demo.md", tmp_path / "typed.md")
    stamp_less = json.loads((tmp_path / "demo.json").read_text())
    del stamp_less["stamp"]["command"]
    stamp_less["name"] = "demo"
    (tmp_path / "demo.json").write_text(json.dumps(stamp_less))
    found = problems(tmp_path)
    assert "typed.md has no typed.json: it was not written by a benchmark" in found
    assert "demo.json lacks stamp fields command" in found


def test_the_tier_timer_reads_pytest_s_summary_and_slowest_tests() -> None:
    output = """....                                                                     [100%]
============================= slowest 3 durations ==============================
0.03s call     tests/unit/test_x.py::test_y
1.20s setup    tests/integration/test_cli.py::test_bench
2 failed, 1487 passed, 3 skipped in 1229.41s (0:20:29)
"""
    counts, seconds, slow = pytest_report(output)
    assert counts == "2 failed, 1487 passed, 3 skipped"
    assert seconds == 1229.41
    assert slow == [
        [
            0.03,
            "call",
            "tests/unit/test_x.py::test_y",
        ],
        [1.2, "setup", "tests/integration/test_cli.py::test_bench"],
    ]
    assert pytest_report("make: *** [test-fast] Error 1") == ("-", None, [])
