"""`python -m app` runs the `awp` CLI."""

from app.cli import main

main()
