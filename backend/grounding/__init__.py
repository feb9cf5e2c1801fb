"""Grounding: real transitions retrieved per step and shown to the model as demonstrations."""
