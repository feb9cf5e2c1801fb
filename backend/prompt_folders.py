"""Prompt folders: our `<name>.md` files, or the official repository's `prompts/` layout.

A researcher points `AWP_PROMPTS_DIR` or `--judge-prompts` at either a folder of `<domain>.md`
files (ours) or the `prompts/` folder of the official release (QwenLM/Qwen-AgentWorld), which
holds `<domain>/system_prompt.txt` and `<domain>/judge_system_prompt.txt`. Both layouts are
read; a folder holding neither is refused, so a wrong path never silently falls back to the
built-in prompts, and a domain the folder lacks is named when it is asked for.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from backend.errors import BadInputError, NotFoundError

OFFICIAL_SYSTEM = "system_prompt.txt"
"""The world-model system prompt of a domain in the official layout."""
OFFICIAL_JUDGE = "judge_system_prompt.txt"
"""The judge system prompt of a domain in the official layout."""

logger = logging.getLogger(__name__)


@dataclass
class PromptFolder:
    """One folder of prompt files in our layout, the official one, or both.

    Attributes:
        path: the folder.
        official_file: the file name a domain's folder holds in the official layout.
        what: what the prompts are, for messages ("system prompt", "judge prompt").
    """

    path: Path
    official_file: str
    what: str
    _named: set[str] = field(default_factory=set, repr=False)

    @classmethod
    def open(cls, path: Path, official_file: str, what: str) -> PromptFolder:
        """Check that `path` is a prompt folder in a known layout.

        Raises:
            BadInputError: `path` is not a folder, or it holds neither `<name>.md` files nor
                `<name>/<official_file>` files.
        """
        path = Path(path)
        if not path.is_dir():
            raise BadInputError(f"The {what} folder {path} does not exist.")
        folder = cls(path, official_file, what)
        if not folder.names():
            raise BadInputError(
                f"The {what} folder {path} holds neither `<domain>.md` files nor the official "
                f"layout `<domain>/{official_file}` (the `prompts/` folder of "
                "QwenLM/Qwen-AgentWorld); nothing in it could be used."
            )
        return folder

    def names(self) -> set[str]:
        """Every name the folder has a prompt for, in either layout."""
        ours = {entry.stem for entry in self.path.glob("*.md") if entry.is_file()}
        found = self.path.glob(f"*/{self.official_file}")
        official = {entry.parent.name for entry in found if entry.is_file()}
        return ours | official

    def find(self, name: str) -> Path | None:
        """The file holding `name`'s prompt (`<name>.md` first), or None."""
        ours = self.path / f"{name}.md"
        if ours.is_file():
            return ours
        official = self.path / name / self.official_file
        return official if official.is_file() else None

    def is_official(self, name: str) -> bool:
        """Whether `name`'s prompt comes from the official layout (used as written)."""
        found = self.find(name)
        return found is not None and found.name == self.official_file

    def require(self, name: str) -> Path:
        """The file of `name`, or an error that names the missing domain.

        Raises:
            NotFoundError: the folder has no prompt for `name` in either layout.
        """
        found = self.find(name)
        if found is None:
            raise NotFoundError(self.missing_message(name))
        return found

    def missing_message(self, name: str) -> str:
        """Say which domain the folder lacks, and under which file names it was looked for."""
        return (
            f"The {self.what} folder {self.path} has no prompt for {name!r} (looked for "
            f"{name}.md and {name}/{self.official_file})."
        )

    def note_missing(self, name: str) -> None:
        """Log, once per name, that the folder lacks `name` and the built-in prompt is used."""
        if name not in self._named:
            self._named.add(name)
            logger.warning("%s; the built-in prompt is used for it.", self.missing_message(name))
