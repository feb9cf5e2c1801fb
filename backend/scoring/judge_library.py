"""Judge prompts: our own per-domain prompts shipped as package files, optionally overridden.

Each `judge_prompts/<name>.md` starts with a front matter of `key: value` lines between `---`
lines: `version` (bumped on every wording change, stored with every judge score) and `caps`
(true where the web/os/android score caps apply). A domain's system prompt is the shared rubric
(`_rubric.md`) followed by the domain's section; `pairwise.md` stands alone. A directory given
as `override_dir` may replace any of these files by name.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from backend.errors import UnknownNameError

RUBRIC = "_rubric"
PAIRWISE = "pairwise"


@dataclass(frozen=True)
class PromptFile:
    """One prompt file: its body and front matter."""

    body: str
    meta: dict[str, str]

    @property
    def version(self) -> str:
        """The file's declared version ("0" when it declares none)."""
        return self.meta.get("version", "0")


@dataclass(frozen=True)
class JudgePrompt:
    """A ready system prompt for the judge.

    Attributes:
        name: the domain (or `pairwise`).
        text: the system prompt.
        version: `<name>-v<version>` plus the rubric's version, stored with every score.
        caps: the web/os/android score caps apply.
    """

    name: str
    text: str
    version: str
    caps: bool


def parse_prompt_file(text: str) -> PromptFile:
    """Split a prompt file into front matter and body."""
    lines = text.split("\n")
    if not lines or lines[0].strip() != "---" or "---" not in (line.strip() for line in lines[1:]):
        return PromptFile(body=text.strip(), meta={})
    end = next(i for i, line in enumerate(lines[1:], start=1) if line.strip() == "---")
    meta = {}
    for line in lines[1:end]:
        key, _, value = line.partition(":")
        meta[key.strip().lower()] = value.strip()
    return PromptFile(body="\n".join(lines[end + 1 :]).strip(), meta=meta)


class JudgePromptLibrary:
    """Loads judge prompts from the package, with an optional override directory.

    Args:
        override_dir: a directory of `<name>.md` files that replace the built-in ones.
    """

    def __init__(self, override_dir: Path | None = None) -> None:
        self.override_dir = override_dir

    def _read(self, name: str) -> PromptFile:
        if self.override_dir is not None and (self.override_dir / f"{name}.md").is_file():
            return parse_prompt_file((self.override_dir / f"{name}.md").read_text("utf-8"))
        packaged = resources.files("backend.scoring") / "judge_prompts" / f"{name}.md"
        if not packaged.is_file():
            raise UnknownNameError(
                f"No judge prompt for {name!r}. Available: {', '.join(self.names())}."
            )
        return parse_prompt_file(packaged.read_text("utf-8"))

    def names(self) -> list[str]:
        """Names with a prompt (domains and `pairwise`), built-in and overridden."""
        packaged = resources.files("backend.scoring") / "judge_prompts"
        found = {entry.name[:-3] for entry in packaged.iterdir() if entry.name.endswith(".md")}
        if self.override_dir is not None and self.override_dir.is_dir():
            found |= {path.stem for path in self.override_dir.glob("*.md")}
        return sorted(found - {RUBRIC})

    def get(self, name: str) -> JudgePrompt:
        """The system prompt for a domain's rubric judge, or for `pairwise`.

        Raises:
            UnknownNameError: there is no prompt file of that name.
        """
        own = self._read(name)
        caps = own.meta.get("caps", "").lower() == "true"
        if name == PAIRWISE:
            return JudgePrompt(name, own.body, f"{name}-v{own.version}", caps)
        rubric = self._read(RUBRIC)
        return JudgePrompt(
            name=name,
            text=f"{rubric.body}\n\n{own.body}",
            version=f"{name}-v{own.version}+rubric-v{rubric.version}",
            caps=caps,
        )
