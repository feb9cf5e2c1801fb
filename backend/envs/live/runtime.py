"""Host folders a sandbox sees read-only besides /usr and /etc: this app's Python and npm servers.

The sandbox gets the app's own interpreter and installed packages (pytest for the swe tasks, the
MCP servers from PyPI), read-only, at the same paths as on the host, so that console scripts and
the venv's symlinks resolve unchanged. The npm MCP servers are installed by `scripts/setup.sh` into
`<sys.prefix>/share/awp-mcp-node` (the Docker image does the same at build time): beside the
Python packages, owned by whoever installed those, and never fetched at run time.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

NODE_PACKAGES = "awp-mcp-node"


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def python_runtime() -> tuple[Path, ...]:
    """The host folders holding this interpreter, its standard library and its packages.

    Folders under /usr are left out (the sandbox binds /usr anyway) except /usr/local, which the
    sandbox hides unless the interpreter lives there (the python Docker images put it there).
    """
    usr, local = Path("/usr"), Path("/usr/local")
    candidates = {
        Path(sys.prefix),
        Path(sys.base_prefix),
        Path(os.path.realpath(sys.executable)).parent.parent,
    }
    keep = [path for path in candidates if not _under(path, usr) or _under(path, local)]
    return tuple(
        sorted(path for path in keep if not any(o != path and _under(path, o) for o in keep))
    )


def python_executable() -> str:
    """The interpreter's path, valid inside the sandbox too (bound at the same place)."""
    return sys.executable


def python_bin() -> str:
    """The folder of the app's Python programs; first on the sandbox's PATH, as in a venv."""
    return str(Path(sys.prefix) / "bin")


def node_packages() -> Path:
    """The folder whose `node_modules` holds the npm MCP servers (see the module docstring)."""
    return Path(sys.prefix) / "share" / NODE_PACKAGES
