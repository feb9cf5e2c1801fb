"""Trajectories: importers for datasets and recorded data, and the bundled sample set."""
