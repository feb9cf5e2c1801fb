"""World-model system prompts: built-in templates per domain, an override directory, safe slots.

Templates are Markdown files, each domain's named by its `Domain.prompts.system` (the built-ins
ship `prompts/<domain>.md` as package data). The override
directory replaces a built-in with `<domain>.md` or, in the official release's layout,
`<domain>/system_prompt.txt` (`backend.prompt_folders`), so a researcher can try another prompt
without touching code. Slots are filled in one pass by name only: `$tools`, `${tools}` and
`{tools}` are all accepted (the last is how many public prompts write them; the official prompts
call the tools slot `{tool_definitions}`), and any other `$` or brace, such as the JSON inside a
prompt or a tool definition, is left exactly as it is.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from backend.domains.base import PromptContext, get_domain
from backend.errors import NotFoundError
from backend.prompt_folders import OFFICIAL_SYSTEM, PromptFolder

SLOTS = ("tools", "tool_definitions", "demonstrations", "task", "simulation_instruction")
NONE_PROVIDED = "none provided"
BUILTIN = "builtin"

_NAMES = "|".join(SLOTS)
_SLOT = re.compile(rf"\$\{{({_NAMES})\}}|\$({_NAMES})\b|\{{({_NAMES})\}}")


def slot_values(ctx: PromptContext) -> dict[str, str]:
    """Render each slot's text; absent context reads "none provided" so the prompt stays whole."""
    tools = json.dumps(ctx.tools, indent=2, ensure_ascii=False, default=str) if ctx.tools else None
    values = {
        "tools": tools,
        "tool_definitions": tools,
        "demonstrations": ctx.demonstrations,
        "task": ctx.task,
        "simulation_instruction": ctx.simulation_instruction,
    }
    return {
        name: text.strip() if text and text.strip() else NONE_PROVIDED
        for name, text in values.items()
    }


def with_demonstrations(prompt: str, ctx: PromptContext) -> str:
    """`prompt` with the context's demonstrations appended as a section (unchanged without any).

    For a prompt with no `demonstrations` slot: a request's own (recorded) system prompt, or a
    built-in template without one. Without demonstrations it stays byte for byte the same, so
    an ungrounded step keeps the official prompt.
    """
    demonstrations = (ctx.demonstrations or "").strip()
    return (
        f"{prompt.rstrip()}\n\n## Demonstrations\n\n{demonstrations}\n"
        if demonstrations
        else prompt
    )


def fill(template: str, ctx: PromptContext) -> str:
    """Fill the known slots of `template` in one pass (inserted text is never re-scanned)."""
    values = slot_values(ctx)
    return _SLOT.sub(lambda match: values[next(g for g in match.groups() if g)], template)


def has_slot(template: str, name: str) -> bool:
    """Whether `template` has the slot `name` in any of its spellings."""
    return any(next(g for g in m.groups() if g) == name for m in _SLOT.finditer(template))


class PromptLibrary:
    """The system prompt of each domain, from the built-ins or an override directory.

    A domain the override directory lacks keeps its built-in prompt, and the first use of it
    is logged with the domain's name, so a partial folder is never mistaken for a full one.

    Args:
        override_dir: a directory of `<domain>.md` files, or the official `prompts/` folder
            (`<domain>/system_prompt.txt`), whose prompts replace the built-in templates.

    Raises:
        BadInputError: `override_dir` is given but is not a directory, or holds neither layout.
    """

    def __init__(self, override_dir: Path | None = None) -> None:
        self.folder = (
            PromptFolder.open(Path(override_dir), OFFICIAL_SYSTEM, "system prompt")
            if override_dir is not None
            else None
        )
        self.override_dir = self.folder.path if self.folder is not None else None

    def _override(self, domain: str) -> Path | None:
        if self.folder is None:
            return None
        path = self.folder.find(domain)
        if path is None:
            self.folder.note_missing(domain)
        return path

    def source(self, domain: str) -> str:
        """Say where the domain's template comes from: "builtin" or the override file's path."""
        get_domain(domain)
        path = self._override(domain)
        return str(path) if path is not None else BUILTIN

    def template(self, domain: str) -> str:
        """Return the unfilled template of `domain`.

        Raises:
            UnknownNameError: no such domain (the message lists the valid ones).
            NotFoundError: a registered domain without a built-in prompt and no override file.
        """
        builtin = get_domain(domain).prompts.system
        path = self._override(domain)
        if path is not None:
            return path.read_text(encoding="utf-8")
        if builtin is None or not builtin.is_file():
            raise NotFoundError(
                f"Domain {domain!r} has no built-in system prompt; put {domain}.md in the prompt "
                "override directory."
            )
        return builtin.read_text(encoding="utf-8")

    def system_prompt(self, domain: str, ctx: PromptContext) -> str:
        """Return the filled system prompt of `domain` for this context.

        A built-in template without a `demonstrations` slot gets them as a last section
        (`with_demonstrations`); an override file is used as written, so demonstrations reach
        it only through a slot it has.
        """
        template = self.template(domain)
        filled = fill(template, ctx)
        if self._override(domain) is None and not has_slot(template, "demonstrations"):
            return with_demonstrations(filled, ctx)
        return filled
