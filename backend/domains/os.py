"""OS domain: free-form Python (pyautogui and helpers) in, the desktop accessibility tree out.

OSWorld agents write arbitrary code, so the only check that holds for every harness is that the
code parses; the special answers WAIT, DONE and FAIL are plain names and parse too.
"""

from __future__ import annotations

from backend.domains import metric_sets
from backend.domains.base import DOMAINS, ActionKind, Domain, Finish, PromptContext, builtin_prompts
from backend.domains.finish import done_or_fail
from backend.domains.validation import clean_action, parse_python
from backend.types import ObservationKind

EXAMPLE = "import pyautogui\npyautogui.click(640, 360)"


def validate(action: str, ctx: PromptContext) -> str:
    """Check the code parses as Python and return it with common indentation removed.

    Raises:
        BadActionError: empty, too long, or a syntax error (with its line and column).
    """
    text = clean_action(action, EXAMPLE)
    parse_python(text)
    return text


OS = DOMAINS.register(
    "os",
    Domain(
        name="os",
        title="Desktop (OS)",
        observation_kind=ObservationKind.A11Y_TREE,
        action_kind=ActionKind.UI,
        action_help=(
            "Python code run on an Ubuntu desktop, usually pyautogui calls such as "
            "pyautogui.click(640, 360), pyautogui.typewrite('hello'), pyautogui.hotkey('ctrl', "
            "'s') or pyautogui.scroll(-5); several lines may run as one action. WAIT, DONE and "
            "FAIL alone are the special answers. The code must parse as Python (errors show the "
            "line and column). The observation is the full desktop accessibility tree."
        ),
        example_action=EXAMPLE,
        validate=validate,
        renderer="a11y_tree",
        finish=Finish(
            done_or_fail, "When done, answer DONE alone (or FAIL if the task cannot be done)."
        ),
        block_observation=True,
        metrics=metric_sets.TREE,
        prompts=builtin_prompts("os"),
    ),
)
