"""The MCP server sets a live mcp session can start (its tasks), and what each needs.

A task is one or more real MCP servers started over stdio inside the session's sandbox, plus the
files they work on, made in the sandbox's home before they start: `time` (mcp-server-time, a
start state without a goal), `git` (mcp-server-git on a small repository with history and an
uncommitted change), `filesystem*` (the npm filesystem server, allowed only `~/files`) and
`memory*` (the npm knowledge graph server, its file in the home, empty or seeded). Every task
with a goal carries a check of the server's state (`mcp_checks`), a scripted solution (what
the `scripted` agent plays) and a no-op call (a read the check ignores).
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from backend.envs.live.base import LiveTask
from backend.envs.live.host import missing_programs
from backend.envs.live.mcp_checks import (
    MEMORY_FILE,
    committed,
    file_contains,
    forgotten,
    lines_are,
    moved,
    observed,
    remembered_with_relation,
)
from backend.envs.live.repos import commit_repo, git_commit
from backend.envs.live.runtime import node_packages, python_executable
from backend.envs.live.sandbox import HOME, Sandbox
from backend.envs.live.terminal_tasks import write_files

_NPM = "@modelcontextprotocol"
NODE_ADDRESS_SPACE_MB = 4096
_ADA = ("Ada Lovelace", "ada@example.com")
GRAPH = (
    {"type": "entity", "name": "Alice", "entityType": "person", "observations": ["engineer"]},
    {"type": "entity", "name": "Bob", "entityType": "person", "observations": ["designer"]},
    {"type": "entity", "name": "Carol", "entityType": "person", "observations": ["manager"]},
    {"type": "relation", "from": "Alice", "to": "Bob", "relationType": "knows"},
    {"type": "relation", "from": "Carol", "to": "Alice", "relationType": "manages"},
)
FILES = {
    "notes/todo.txt": "- renew the passport\n- call the plumber about the kitchen sink\n",
    "notes/ideas.md": "# Ideas\n\n* a bird feeder camera\n* learn to bake sourdough\n",
    "data/prices.csv": "item,price\nkettle,34.90\ntoaster,59.00\nblender,89.50\nmug,7.25\n",
}


@dataclass(frozen=True)
class Server:
    """One MCP server: how to start it inside the sandbox and what it needs on the host.

    Attributes:
        name: short name, used in messages and logs.
        argv: the command line inside the sandbox.
        env: variables besides the sandbox's own minimal environment.
        package: the PyPI or npm package it comes from.
        needs: says what is missing on the host to start it ("" when nothing).
        node: a node program: it gets NODE_ADDRESS_SPACE_MB of address space, and its heap
            is capped at the sandbox's memory limit instead.
    """

    name: str
    package: str
    argv: Callable[[], list[str]]
    env: dict[str, str] = field(default_factory=dict)
    needs: Callable[[], str] = lambda: ""
    node: bool = False

    def version(self) -> str:
        """`package version` from the installed PyPI or npm package."""
        try:
            if self.node:
                manifest = node_packages() / "node_modules" / self.package / "package.json"
                found = json.loads(manifest.read_text(encoding="utf-8"))["version"]
            else:
                found = metadata.version(self.package)
        except (OSError, ValueError, KeyError, metadata.PackageNotFoundError):
            found = "(absent)"
        return f"{self.package} {found}"

    def environment(self, memory_mb: int) -> dict[str, str]:
        """Its variables, with node's heap capped at `memory_mb`."""
        heap = {"NODE_OPTIONS": f"--max-old-space-size={memory_mb}"} if self.node else {}
        return {**self.env, **heap}


@dataclass(frozen=True)
class ServerSet:
    """A task: the servers and the files prepared for them."""

    task: LiveTask
    servers: tuple[Server, ...]
    prepare: Callable[[Sandbox, float], None] = lambda sandbox, timeout_s: None


def _python_module(module: str, package: str) -> Callable[[], str]:
    def needs() -> str:
        if importlib.util.find_spec(module) is None:
            return f"the PyPI package {package} is not installed (pip install {package})"
        return ""

    return needs


def _npm_entry(package: str) -> Path:
    return node_packages() / "node_modules" / _NPM / package / "dist" / "index.js"


def _npm_server(package: str) -> Callable[[], str]:
    def needs() -> str:
        missing = missing_programs(("node",))
        if missing:
            return missing
        if not _npm_entry(package).is_file():
            return (
                f"the npm package {_NPM}/{package} is not installed in {node_packages()} "
                "(scripts/setup.sh installs it)"
            )
        return ""

    return needs


def _git_repo(sandbox: Sandbox, timeout_s: float) -> None:
    """~/repo: two commits of the intervals project, then an uncommitted fix."""
    repo = sandbox.home / "repo"
    repo.mkdir(mode=0o755)
    os.chown(repo, sandbox.uid, sandbox.uid)
    commit = git_commit(_ADA)
    more = (
        "printf '\\nRun the tests with `python -m pytest`.\\n' >> README.md && "
        f"{commit} -am 'Say how to run the tests' && "
        "sed -i 's/start < merged/start <= merged/' intervals/merge.py"
    )
    commit_repo(
        sandbox,
        "intervals",
        repo,
        f"{HOME}/repo",
        timeout_s=timeout_s,
        message="Add interval merging",
        author=_ADA,
        then=more,
    )


def _files(sandbox: Sandbox, timeout_s: float) -> None:
    """~/files with a few notes and a price list, written by the sandbox uid."""
    write_files(sandbox, {f"files/{path}": text for path, text in FILES.items()}, timeout_s)


def _graph(sandbox: Sandbox, timeout_s: float) -> None:
    """~/memory.jsonl holding GRAPH, the memory server's file format."""
    text = "".join(json.dumps(item) + "\n" for item in GRAPH)
    write_files(sandbox, {"memory.jsonl": text}, timeout_s)


TIME = Server(
    "time",
    "mcp-server-time",
    lambda: [python_executable(), "-m", "mcp_server_time", "--local-timezone", "UTC"],
    needs=_python_module("mcp_server_time", "mcp-server-time"),
)
GIT = Server(
    "git",
    "mcp-server-git",
    lambda: [python_executable(), "-m", "mcp_server_git", "--repository", f"{HOME}/repo"],
    needs=_python_module("mcp_server_git", "mcp-server-git"),
)
FILESYSTEM = Server(
    "filesystem",
    f"{_NPM}/server-filesystem",
    lambda: ["node", str(_npm_entry("server-filesystem")), f"{HOME}/files"],
    needs=_npm_server("server-filesystem"),
    node=True,
)
MEMORY = Server(
    "memory",
    f"{_NPM}/server-memory",
    lambda: ["node", str(_npm_entry("server-memory"))],
    env={"MEMORY_FILE_PATH": MEMORY_FILE},
    needs=_npm_server("server-memory"),
    node=True,
)


def _call(name: str, **arguments: object) -> str:
    """A tool call in the mcp action format: a step of a task's scripted solution, or its no-op."""
    return json.dumps({"name": name, "arguments": arguments})


_NOTES = f"{HOME}/files/notes"
_TIME = "mcp-server-time: current time and time-zone conversion"
_FS = "the npm filesystem server, allowed only ~/files (notes and a price list)"
_SEEDED = "the npm knowledge-graph memory server, holding Alice, Bob and Carol"

SERVER_SETS = {
    server_set.task.name: server_set
    for server_set in (
        ServerSet(LiveTask("time", _TIME), (TIME,)),
        ServerSet(
            LiveTask(
                "git",
                "mcp-server-git on ~/repo: a small project with history and an uncommitted fix",
                "Look at the history and the uncommitted change of the repository at "
                f"{HOME}/repo, then commit the change with a fitting message.",
                committed(f"{HOME}/repo", "intervals/merge.py", 3),
                (
                    _call("git_add", repo_path=f"{HOME}/repo", files=["intervals/merge.py"]),
                    _call(
                        "git_commit", repo_path=f"{HOME}/repo", message="Merge touching intervals"
                    ),
                ),
                no_op=_call("git_status", repo_path=f"{HOME}/repo"),
            ),
            (GIT,),
            _git_repo,
        ),
        ServerSet(
            LiveTask(
                "filesystem",
                _FS,
                f"Find the most expensive item in {HOME}/files/data/prices.csv and add buying "
                "it to the to-do list in notes/todo.txt.",
                file_contains("notes/todo.txt", "blender", "renew the passport"),
                (
                    _call(
                        "write_file",
                        path=f"{_NOTES}/todo.txt",
                        content=FILES["notes/todo.txt"] + "- buy the blender\n",
                    ),
                ),
                no_op=_call("list_allowed_directories"),
            ),
            (FILESYSTEM,),
            _files,
        ),
        ServerSet(
            LiveTask(
                "filesystem-write",
                _FS,
                f"Write a new file {HOME}/files/notes/shopping.txt listing the two cheapest "
                "items of data/prices.csv, one item name a line.",
                lines_are("notes/shopping.txt", {"mug", "kettle"}),
                (_call("write_file", path=f"{_NOTES}/shopping.txt", content="mug\nkettle\n"),),
                no_op=_call("read_text_file", path=f"{_NOTES}/todo.txt"),
            ),
            (FILESYSTEM,),
            _files,
        ),
        ServerSet(
            LiveTask(
                "filesystem-move",
                _FS,
                f"Move {HOME}/files/notes/ideas.md into a new folder {HOME}/files/archive.",
                moved("notes/ideas.md", "archive/ideas.md", FILES["notes/ideas.md"]),
                (
                    _call("create_directory", path=f"{HOME}/files/archive"),
                    _call(
                        "move_file",
                        source=f"{_NOTES}/ideas.md",
                        destination=f"{HOME}/files/archive/ideas.md",
                    ),
                ),
                no_op=_call("list_directory", path=_NOTES),
            ),
            (FILESYSTEM,),
            _files,
        ),
        ServerSet(
            LiveTask(
                "memory",
                "the npm knowledge-graph memory server, starting empty",
                "Remember that Alice is an engineer at Acme who knows Bob, then look Alice up.",
                remembered_with_relation("Alice", "Bob"),
                (
                    _call(
                        "create_entities",
                        entities=[
                            {
                                "name": "Alice",
                                "entityType": "person",
                                "observations": ["engineer at Acme"],
                            },
                            {"name": "Bob", "entityType": "person", "observations": []},
                        ],
                    ),
                    _call(
                        "create_relations",
                        relations=[{"from": "Alice", "to": "Bob", "relationType": "knows"}],
                    ),
                ),
                no_op=_call("read_graph"),
            ),
            (MEMORY,),
        ),
        ServerSet(
            LiveTask(
                "memory-forget",
                _SEEDED,
                "Carol has left: remove her, and everything about her, from the memory graph. "
                "Keep the others.",
                forgotten("Carol", ("Alice", "Bob")),
                (_call("delete_entities", entityNames=["Carol"]),),
                no_op=_call("search_nodes", query="Carol"),
            ),
            (MEMORY,),
            _graph,
        ),
        ServerSet(
            LiveTask(
                "memory-observe",
                _SEEDED,
                "Bob told us he speaks French: add that to what the memory graph knows about him.",
                observed("Bob", "French"),
                (
                    _call(
                        "add_observations",
                        observations=[{"entityName": "Bob", "contents": ["speaks French"]}],
                    ),
                ),
                no_op=_call("open_nodes", names=["Bob"]),
            ),
            (MEMORY,),
            _graph,
        ),
    )
}
