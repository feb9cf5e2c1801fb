"""Domain exceptions: raised in the core, translated once at each edge (CLI, UI)."""

from __future__ import annotations


class AWPError(Exception):
    """Base of every error the playground reports to a person.

    The message is written for the person who caused it: what is wrong and what to do.
    """


class IncompleteRegistryError(AWPError):
    """A registered name lacks a fact the code reads from it (backend.contract), at start-up."""


class UnknownNameError(AWPError, KeyError):
    """A registry lookup (domain, engine, metric, renderer, format) named nothing registered."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown name"


class BadActionError(AWPError, ValueError):
    """An agent action does not follow its domain's action format."""


class BadInputError(AWPError, ValueError):
    """A file, row or argument given by the user is malformed."""


class EngineUnavailableError(AWPError):
    """The engine cannot be reached or loaded (server down, package missing, model absent)."""


class EngineRequestError(AWPError):
    """The engine answered, but refused the request (wrong model name, bad parameters)."""


class PromptTooLongError(EngineRequestError):
    """The prompt does not fit the model's context window."""


class NotFoundError(AWPError, LookupError):
    """A stored object (session, step, prediction, trajectory) does not exist."""


class ConflictError(AWPError):
    """A write was refused because the stored object changed since it was read (stale edit)."""


class ExportError(AWPError):
    """An export could not be written or pushed."""


class SchemaOutOfDateError(AWPError):
    """The database schema is older than the code: run `awp db upgrade`."""


class LiveEnvironmentError(AWPError):
    """A live environment could not start, died, or is not available on this machine."""


class BusyError(AWPError):
    """The person already uses their share of the engine; they may step again once it frees."""


class JobCancelledError(AWPError):
    """The person cancelled the job this work ran for; nothing it half-made is kept."""
