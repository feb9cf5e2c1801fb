"""Judge prompts: our own per-domain prompts shipped as package files, optionally overridden.

A domain's own section is its `Domain.prompts.judge` file (the built-ins ship theirs as
`judge_prompts/<domain>.md`); the shared rubric and `pairwise.md` are this package's. Each file
starts with a front matter of `key: value` lines between `---`
lines: `version` (bumped on every wording change, stored with every judge score) and `caps`
(true where the web/os/android score caps apply). A domain's system prompt is the shared rubric
(`_rubric.md`) followed by the domain's section; `pairwise.md` stands alone. A directory given
as `override_dir` may replace any of these files by name, or be the official release's
`prompts/` folder, whose `<domain>/judge_system_prompt.txt` is a whole system prompt used as
written (versioned by its content's hash). A domain the folder lacks keeps the built-in prompt,
and its first use is logged with its name; the official judge (`official`) refuses it instead.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from backend.domains.base import DOMAINS, all_domains
from backend.errors import BadInputError, NotFoundError, UnknownNameError
from backend.prompt_folders import OFFICIAL_JUDGE, PromptFolder

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
        override_dir: a directory of `<name>.md` files that replace the built-in ones, or the
            official `prompts/` folder (`<domain>/judge_system_prompt.txt`).

    Raises:
        BadInputError: `override_dir` is not a directory, or holds neither layout.
    """

    def __init__(self, override_dir: Path | None = None) -> None:
        self.folder = (
            PromptFolder.open(Path(override_dir), OFFICIAL_JUDGE, "judge prompt")
            if override_dir is not None
            else None
        )
        self.override_dir = self.folder.path if self.folder is not None else None

    def _read(self, name: str) -> PromptFile:
        if self.folder is not None:
            found = self.folder.find(name)
            if found is not None and found.suffix == ".md":
                return parse_prompt_file(found.read_text("utf-8"))
            if found is None and name not in (RUBRIC, PAIRWISE):
                self.folder.note_missing(name)
        packaged = self._builtin(name)
        if packaged is None or not packaged.is_file():
            raise UnknownNameError(
                f"No judge prompt for {name!r}. Available: {', '.join(self.names())}."
            )
        return parse_prompt_file(packaged.read_text("utf-8"))

    @staticmethod
    def _builtin(name: str) -> Traversable | None:
        """The built-in file of `name`: the rubric's or pairwise's, else the domain's own."""
        if name in (RUBRIC, PAIRWISE):
            return resources.files("backend.scoring") / "judge_prompts" / f"{name}.md"
        all_domains()
        return DOMAINS.get(name).prompts.judge if name in DOMAINS else None

    @staticmethod
    def _packaged() -> set[str]:
        """The domains whose judge prompt file exists, and pairwise."""
        own = {d.name for d in all_domains() if d.prompts.judge and d.prompts.judge.is_file()}
        return own | {PAIRWISE}

    def names(self) -> list[str]:
        """Names with a prompt (domains and `pairwise`), built-in and overridden."""
        found = self._packaged()
        if self.folder is not None:
            found |= self.folder.names()
        return sorted(found - {RUBRIC})

    def official(self, name: str) -> JudgePrompt:
        """The official judge system prompt of a domain: its file's text, exactly as read.

        Raises:
            BadInputError: no prompt folder was given.
            NotFoundError: the folder has no `<name>/judge_system_prompt.txt` (the message
                names the domain).
        """
        if self.folder is None:
            raise BadInputError(
                "The official judge reads the official judge prompts: pass --judge-prompts with "
                "the `prompts/` folder of a QwenLM/Qwen-AgentWorld checkout."
            )
        path = self.folder.path / name / OFFICIAL_JUDGE
        if not path.is_file():
            raise NotFoundError(self.folder.missing_message(name))
        text = path.read_text(encoding="utf-8")
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
        return JudgePrompt(name, text, f"{name}-official-{digest}", caps=False)

    def get(self, name: str) -> JudgePrompt:
        """The system prompt for a domain's rubric judge, or for `pairwise`.

        Raises:
            UnknownNameError: there is no prompt file of that name.
        """
        if self.folder is not None and self.folder.is_official(name):
            official = self.official(name)
            builtin = JudgePromptLibrary().get(name) if name in self._packaged() else None
            return JudgePrompt(
                name, official.text, official.version, builtin.caps if builtin else False
            )
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
