"""Environments: live real environments (`live/`) and, later, the world-model environment."""
