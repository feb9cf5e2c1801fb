"""World-model system prompts: built-in templates per domain, an override directory, safe slots.

Templates are Markdown files (`prompts/<domain>.md`, shipped as package data). A file with the same
name in the override directory replaces the built-in, so a researcher can try another prompt
without touching code. Slots are filled in one pass by name only: `$tools`, `${tools}` and
`{tools}` are all accepted (the last is how many public prompts write them), and any other `$` or
brace, such as the JSON inside a prompt or a tool definition, is left exactly as it is.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

from backend.domains.base import PromptContext, get_domain
from backend.errors import BadInputError, NotFoundError

SLOTS = ("tools", "demonstrations", "task", "simulation_instruction")
NONE_PROVIDED = "none provided"
BUILTIN = "builtin"

_NAMES = "|".join(SLOTS)
_SLOT = re.compile(rf"\$\{{({_NAMES})\}}|\$({_NAMES})\b|\{{({_NAMES})\}}")


def slot_values(ctx: PromptContext) -> dict[str, str]:
    """Render each slot's text; absent context reads "none provided" so the prompt stays whole."""
    tools = json.dumps(ctx.tools, indent=2, ensure_ascii=False, default=str) if ctx.tools else None
    values = {
        "tools": tools,
        "demonstrations": ctx.demonstrations,
        "task": ctx.task,
        "simulation_instruction": ctx.simulation_instruction,
    }
    return {
        name: text.strip() if text and text.strip() else NONE_PROVIDED
        for name, text in values.items()
    }


def fill(template: str, ctx: PromptContext) -> str:
    """Fill the known slots of `template` in one pass (inserted text is never re-scanned)."""
    values = slot_values(ctx)
    return _SLOT.sub(lambda match: values[next(g for g in match.groups() if g)], template)


class PromptLibrary:
    """The system prompt of each domain, from the built-ins or an override directory.

    Args:
        override_dir: a directory of `<domain>.md` files that replace built-in templates.

    Raises:
        BadInputError: `override_dir` is given but is not a directory.
    """

    def __init__(self, override_dir: Path | None = None) -> None:
        if override_dir is not None and not Path(override_dir).is_dir():
            raise BadInputError(f"The prompt override directory {override_dir} does not exist.")
        self.override_dir = Path(override_dir) if override_dir is not None else None

    def _override(self, domain: str) -> Path | None:
        if self.override_dir is None:
            return None
        path = self.override_dir / f"{domain}.md"
        return path if path.is_file() else None

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
        get_domain(domain)
        path = self._override(domain)
        if path is not None:
            return path.read_text(encoding="utf-8")
        builtin = resources.files("backend.domains") / "prompts" / f"{domain}.md"
        if not builtin.is_file():
            raise NotFoundError(
                f"Domain {domain!r} has no built-in system prompt; put {domain}.md in the prompt "
                "override directory."
            )
        return builtin.read_text(encoding="utf-8")

    def system_prompt(self, domain: str, ctx: PromptContext) -> str:
        """Return the filled system prompt of `domain` for this context."""
        return fill(self.template(domain), ctx)
