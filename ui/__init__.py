"""Gradio user interface: pages over the backend and storage services, and pure renderers."""
