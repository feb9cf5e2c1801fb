"""Checks of the live mcp tasks: programs of `checks` that read the servers' state from disk.

An MCP server keeps its state in the sandbox's home (the memory server's graph file, the files
of the filesystem server, the git server's repository), so each check reads that state itself,
in a fresh process, rather than trusting what a tool call answered.
"""

from __future__ import annotations

from backend.envs.live.base import Check
from backend.envs.live.sandbox import HOME

MEMORY_FILE = f"{HOME}/memory.jsonl"
FILES = f"{HOME}/files"

_GRAPH = f"""
import json
lines = (text_of({MEMORY_FILE!r}) or "").splitlines()
items = [json.loads(line) for line in lines if line.strip()]
entities = {{item["name"]: item for item in items if item.get("type") == "entity"}}
relations = [item for item in items if item.get("type") == "relation"]
"""


def remembered_with_relation(name: str, other: str) -> Check:
    """The graph holds entity `name` and a relation from it to `other`."""
    program = f"""{_GRAPH}
related = any(r["from"] == {name!r} and r["to"] == {other!r} for r in relations)
passed({name!r} in entities and related, "the entity and its relation")
"""
    return Check(f"the memory graph holds {name} with a relation to {other}", program)


def forgotten(name: str, kept: tuple[str, ...]) -> Check:
    """Entity `name` and every relation naming it are gone; the `kept` entities are still there."""
    program = f"""{_GRAPH}
gone = {name!r} not in entities and not any({name!r} in (r["from"], r["to"]) for r in relations)
passed(gone and all(k in entities for k in {kept!r}), "forgotten, the others kept")
"""
    return Check(f"the memory graph no longer holds {name}, and still holds the others", program)


def observed(name: str, words: str) -> Check:
    """Entity `name` has an observation that contains `words` (case ignored)."""
    program = f"""{_GRAPH}
notes = entities.get({name!r}, {{}}).get("observations", [])
passed(any({words.lower()!r} in str(note).lower() for note in notes), "the observation")
"""
    return Check(f"the memory graph's {name} has an observation saying {words!r}", program)


def file_contains(path: str, *needles: str) -> Check:
    """`path` (under ~/files) is a regular file containing every one of `needles` (case ignored)."""
    program = f"""
text = (text_of("{FILES}/{path}") or "").lower()
passed(all(n.lower() in text for n in {needles!r}), "every expected phrase")
"""
    return Check(f"~/files/{path} mentions {', '.join(needles)}", program)


def lines_are(path: str, expected: set[str]) -> Check:
    """`path` (under ~/files) holds exactly the `expected` lines, in any order (case ignored)."""
    program = f"""
text = text_of("{FILES}/{path}")
found = {{line.strip().lower() for line in (text or "").splitlines() if line.strip()}}
passed(found == set({sorted(expected)!r}), "the lines")
"""
    return Check(f"~/files/{path} lists {', '.join(sorted(expected))}, one a line", program)


def moved(source: str, target: str, text: str) -> Check:
    """`source` is gone and `target` holds its original `text` (both under ~/files)."""
    program = f"""
gone = not os.path.lexists("{FILES}/{source}")
passed(gone and text_of("{FILES}/{target}") == {text!r}, "moved with its content")
"""
    return Check(f"~/files/{source} was moved to ~/files/{target}", program)


def committed(repo: str, path: str, commits: int) -> Check:
    """The repository is clean, has `commits` commits, and the last one changes `path`."""
    git = ["git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-C", repo]
    program = f"""
status = output_of({[*git, "status", "--porcelain"]!r})
count = output_of({[*git, "rev-list", "--count", "HEAD"]!r})
changed = output_of({[*git, "show", "--name-only", "--format=", "HEAD"]!r})
clean = status == "" and (count or "").strip() == "{commits}"
passed(clean and {path!r} in (changed or "").split(), "a clean tree whose last commit has it")
"""
    return Check(f"the change to {path} is committed and the tree is clean", program)
