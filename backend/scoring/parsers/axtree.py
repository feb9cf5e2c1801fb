"""BrowserGym accessibility-tree text: `[bid] role 'name', prop=value` lines nested by indent."""

from __future__ import annotations

import ast
import re

from backend.scoring.nodes import Node, Tree, TreeLimiter, check_size, collapse, synthetic_root

_LINE = re.compile(
    r"""^(?:\[(?P<bid>[^\]]*)\]\s+)?(?P<role>\S+)
        (?:\s+(?P<name>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"))?
        (?P<rest>.*)$""",
    re.VERBOSE,
)
_PROP = re.compile(r"""([\w-]+)(?:=('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^,]*))?""")


def _unquote(token: str) -> str:
    """BrowserGym writes names with Python repr quoting; escapes are rare, so decode only then."""
    if "\\" not in token:
        return token[1:-1]
    try:
        value = ast.literal_eval(token)
    except (ValueError, SyntaxError):
        return token[1:-1]
    return value if isinstance(value, str) else token[1:-1]


def _props(rest: str) -> dict[str, str]:
    """`, clickable, checked='true'` -> {"clickable": "", "checked": "true"}."""
    props: dict[str, str] = {}
    for part_match in _PROP.finditer(rest.lstrip(", ")):
        key, value = part_match.group(1), part_match.group(2)
        if value is None:
            props[key] = ""
        elif value[:1] in "'\"" and len(value) >= 2 and value[-1] == value[0]:
            props[key] = _unquote(value)
        else:
            props[key] = value.strip()
    return props


def parse_line(line: str) -> Node:
    """One axtree line (without its indentation) as a Node."""
    match = _LINE.match(line.strip())
    if match is None:
        return Node(role="text", name=collapse(line))
    name = match.group("name")
    return Node(
        role=match.group("role"),
        name=collapse(_unquote(name)) if name else "",
        attrs=_props(match.group("rest")),
        node_id=match.group("bid") or "",
    )


def parse_axtree(text: str) -> Tree:
    """Parse accessibility-tree text; any indentation width works as long as it nests.

    Lines that do not look like nodes (headers, `URL:` lines) still become nodes, so nothing the
    model wrote is silently ignored. Several top-level lines share a synthetic root.

    Raises:
        BadInputError: the text is larger than the parser limit.
    """
    check_size(text, "accessibility tree")
    limiter = TreeLimiter()
    root = synthetic_root([])
    stack: list[tuple[int, Node]] = [(-1, root)]
    for raw in text.split("\n"):
        if not raw.strip():
            continue
        indent = len(raw) - len(raw.lstrip())
        while stack[-1][0] >= indent:
            stack.pop()
        if not limiter.admit(len(stack)):
            continue
        node = parse_line(raw)
        stack[-1][1].children.append(node)
        stack.append((indent, node))
    return Tree(root=root, fmt="axtree", truncated=limiter.truncated)
