"""The `inspect_ai` entry point: importing it registers the `awp` sandbox with Inspect."""

from app.inspect_sandbox import AwpSandboxEnvironment

__all__ = ["AwpSandboxEnvironment"]
