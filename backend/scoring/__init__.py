"""Deterministic metrics, the rubric judge and reward combination."""
