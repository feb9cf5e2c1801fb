"""Every `awp` command's bad input: one clear line, a non-zero exit, never a traceback.

The table runs the real entry point (`app.cli.main`) in this process against a fresh data
folder; a raw exception escaping `main` fails the case as a traceback would.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

import app.context
from app.cli import EXIT_USER_ERROR, main
from backend.domains.base import DOMAINS, DomainPrompts, get_domain

CASES: dict[str, tuple[list[str], str]] = {
    # name: (arguments, with {tmp} for the folder holding `file.txt` and `folder/`; message part)
    "simulate unknown domain": (
        ["simulate", "--domain", "bogus", "--action", "ls"],
        "bogus",
    ),
    "record --out a folder": (
        ["record", "--domain", "terminal", "--actions", "{tmp}/actions.json", "--out", "{tmp}"],
        "is a folder",
    ),
    "record missing actions": (
        ["record", "--domain", "terminal", "--actions", "{tmp}/none.json", "--out", "{tmp}/o"],
        "not found",
    ),
    "bench missing dataset": (
        ["bench", "--dataset", "{tmp}/none.jsonl", "--engine", "persistence"],
        "none.jsonl",
    ),
    "rollout empty --domain": (
        ["rollout", "--domain", ",", "--agent", "replay", "--out", "{tmp}/r"],
        "names no domain",
    ),
    "rollout --out a file": (
        ["rollout", "--domain", "terminal", "--agent", "replay", "--out", "{tmp}/file.txt"],
        "is a file",
    ),
    "rollout --reward live in sim": (
        ["rollout", "--domain", "terminal", "--reward", "live", "--out", "{tmp}/r"],
        "--env live or shadow",
    ),
    "judge unknown domain": (
        ["judge", "--judge", "persistence", "--domain", "bogus"],
        "no domain is called 'bogus'",
    ),
    "export unknown format": (
        ["export", "--format", "bogus", "--out", "{tmp}/x.jsonl"],
        "bogus",
    ),
    "export unknown domain": (
        ["export", "--format", "sft", "--out", "{tmp}/x.jsonl", "--domain", "bogus"],
        "no domain is called",
    ),
    "sessions list unknown domain": (["sessions", "list", "--domain", "bogus"], "no domain"),
    "sessions show missing": (["sessions", "show", "999999"], "999999"),
    "annotations import missing file": (
        ["annotations", "import", "{tmp}/none.jsonl"],
        "none.jsonl",
    ),
    "env serve beyond loopback without a token": (
        ["env", "serve", "--domain", "terminal", "--host", "0.0.0.0"],
        "token",
    ),
    "train unknown method": (["train", "bogus", "--data", "recorded", "--out", "{tmp}/t"], "bogus"),
    "train missing data": (
        ["train", "sft", "--data", "{tmp}/none.jsonl", "--out", "{tmp}/t"],
        "no such file",
    ),
    "train data of no format": (
        ["train", "sft", "--data", "{tmp}/file.txt", "--out", "{tmp}/t"],
        "expected .jsonl",
    ),
    "train --out a file": (
        ["train", "sft", "--data", "recorded", "--out", "{tmp}/file.txt"],
        "is a file",
    ),
    "train --base no model": (
        ["train", "sft", "--data", "recorded", "--out", "{tmp}/t", "--base", "{tmp}/folder"],
        "no model folder there",
    ),
    "train --eval-split 1.5": (
        ["train", "sft", "--data", "recorded", "--out", "{tmp}/t", "--eval-split", "1.5"],
        "--eval-split: Input should be less than 1",
    ),
    "train --max-length 0": (
        ["train", "sft", "--data", "recorded", "--out", "{tmp}/t", "--max-length", "0"],
        "--max-length",
    ),
    "train --learning-rate -1": (
        ["train", "sft", "--data", "recorded", "--out", "{tmp}/t", "--learning-rate", "-1"],
        "--learning-rate",
    ),
    "train no corrections": (
        ["train", "sft", "--data", "corrections", "--out", "{tmp}/t"],
        "holds no rows",
    ),
    "db upgrade unknown revision": (["db", "upgrade", "9999"], "9999"),
}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "file.txt").write_text("not json\n")
    (tmp_path / "folder").mkdir()
    (tmp_path / "actions.json").write_text('["ls\\n"]')
    monkeypatch.setenv("AWP_DATA_DIR", str(tmp_path / "data"))
    return tmp_path


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_bad_input_gets_a_clear_message_and_a_non_zero_exit(
    case: str, folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments, message = CASES[case]
    monkeypatch.setattr(sys, "argv", ["awp", *(a.format(tmp=folder) for a in arguments)])
    with pytest.raises(SystemExit) as ended:
        main()
    shown = capsys.readouterr()
    assert ended.value.code not in (0, None)
    assert "Traceback" not in shown.err + shown.out
    assert message in shown.err + shown.out


def test_an_incomplete_registry_stops_the_start_naming_each_missing_fact(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The 8th-domain experiment at start-up: a domain without prompts stops `awp` by name."""
    terminal = get_domain("terminal")
    eighth = replace(terminal, name="eighth", live=False, prompts=DomainPrompts())
    monkeypatch.setitem(DOMAINS._items, "eighth", eighth)
    monkeypatch.setattr(app.context, "_REGISTRIES_CHECKED", [])
    monkeypatch.setattr(sys, "argv", ["awp", "sessions", "list"])
    with pytest.raises(SystemExit) as ended:
        main()
    shown = capsys.readouterr()
    assert ended.value.code == EXIT_USER_ERROR
    assert "Traceback" not in shown.err + shown.out
    assert "domain 'eighth': no system prompt (Domain.prompts.system)" in shown.err
    assert "domain 'eighth': no judge prompt (Domain.prompts.judge)" in shown.err
