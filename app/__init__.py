"""Composition root: settings, the `awp` CLI and the wiring of services and UI."""
