"""Serve the world-model environment on the Space's port with the playground's own command.

Everything else is the playground's: `awp env serve` builds the OpenEnv server through its one
composition root, so the world model is configured by the `AWP_*` settings as anywhere else
(`AWP_ENGINE`, `AWP_BASE_URL`, `AWP_MODEL`; `AWP_ENV_TOKEN` is required beyond loopback). The
Space's own variables say what to serve: `AWP_ENV_DOMAIN` (default terminal), `HOST` (default
every interface) and `PORT` (default 8000).
"""

from __future__ import annotations

import os
import sys

DEFAULT_DOMAIN = "terminal"
DEFAULT_HOST = "0.0.0.0"
DEFAULT_PORT = "8000"


def arguments() -> list[str]:
    """The `awp` command line this Space runs."""
    domain = os.environ.get("AWP_ENV_DOMAIN", DEFAULT_DOMAIN)
    host = os.environ.get("HOST", DEFAULT_HOST)
    port = os.environ.get("PORT", DEFAULT_PORT)
    return ["env", "serve", "--domain", domain, "--host", host, "--port", port]


def main() -> None:
    """Run `awp env serve` for the Space (the `server` script and `python -m server.app`)."""
    from app.cli import main as awp

    sys.argv = ["awp", *arguments()]
    awp()


if __name__ == "__main__":
    main()
