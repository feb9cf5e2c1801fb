"""Domains: registry, action validators, system prompts and the official chat layout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backend.domains import BUILTIN
from backend.domains.base import MAX_ACTION_CHARS, PromptContext, all_domains, get_domain
from backend.domains.prompts import NONE_PROVIDED, SLOTS, PromptLibrary
from backend.errors import BadActionError, BadInputError, UnknownNameError
from backend.simulate import build_messages, canonical
from backend.types import HistoryMode, ObservationKind, SimRequest, Turn

NO_CONTEXT = PromptContext()
TOOLS = [
    {
        "name": "read_file",
        "description": "Read a text file.",
        "inputSchema": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "head": {"type": "integer"}},
            "required": ["path"],
        },
    },
    {
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
                "additionalProperties": False,
            },
        },
    },
]
WITH_TOOLS = PromptContext(tools=TOOLS, demonstrations="Turn 1: read_file -> ok")


def check(domain: str, action: str, ctx: PromptContext = NO_CONTEXT) -> str:
    return get_domain(domain).validate(action, ctx)


def refused(domain: str, action: str, ctx: PromptContext = NO_CONTEXT) -> str:
    with pytest.raises(BadActionError) as info:
        get_domain(domain).validate(action, ctx)
    return str(info.value)


# --- registry and metadata ----------------------------------------------------------------


def test_all_builtin_domains_are_registered() -> None:
    assert set(BUILTIN) <= {domain.name for domain in all_domains()}


def test_unknown_domain_lists_valid_names_and_suggests() -> None:
    with pytest.raises(UnknownNameError) as info:
        get_domain("termnal")
    message = str(info.value)
    assert "Did you mean 'terminal'?" in message
    assert all(name in message for name in BUILTIN)


@pytest.mark.parametrize(
    ("name", "kind", "renderer"),
    [
        ("terminal", ObservationKind.SCREEN, "terminal"),
        ("swe", ObservationKind.TEXT, "text"),
        ("mcp", ObservationKind.JSON, "json"),
        ("search", ObservationKind.SEARCH, "search"),
        ("web", ObservationKind.AXTREE, "axtree"),
        ("os", ObservationKind.A11Y_TREE, "a11y_tree"),
        ("android", ObservationKind.ANDROID_XML, "android"),
    ],
)
def test_domain_metadata(name: str, kind: ObservationKind, renderer: str) -> None:
    domain = get_domain(name)
    assert domain.observation_kind is kind
    assert domain.renderer == renderer
    assert domain.title and len(domain.action_help) > 100


# --- every domain -------------------------------------------------------------------------


@pytest.mark.parametrize("name", BUILTIN)
def test_example_action_validates_and_canonical_text_is_stable(name: str) -> None:
    domain = get_domain(name)
    canonical = domain.validate(domain.example_action, NO_CONTEXT)
    assert canonical.strip() == canonical and canonical
    assert domain.validate(canonical, NO_CONTEXT) == canonical


@pytest.mark.parametrize("name", BUILTIN)
@pytest.mark.parametrize(
    ("action", "words"),
    [("", "empty"), ("  \n\t ", "only whitespace"), ("x" * (MAX_ACTION_CHARS + 1), "limit")],
)
def test_empty_blank_and_huge_actions_are_refused(name: str, action: str, words: str) -> None:
    assert words in refused(name, action)


@pytest.mark.parametrize("name", BUILTIN)
def test_empty_action_message_shows_an_example(name: str) -> None:
    assert get_domain(name).example_action in refused(name, "")


@pytest.mark.parametrize(
    ("name", "action", "words"),
    [
        ("terminal", '{"keystrokes": "ls\\n", "duration": 1}', "must be a JSON array, not object"),
        ("terminal", '["ls"]', "Command 1 must be a JSON object, not string"),
        ("swe", '["bash"]', "must be a JSON object, not array"),
        ("mcp", '"list_directory"', "must be a JSON object, not string"),
        ("search", "42", "must be a JSON object, not integer"),
        ("android", '["click"]', "must be a JSON object, not array"),
        ("mcp", '{"name": "x", "arguments": [1]}', "'arguments' must be a JSON object, not array"),
    ],
)
def test_wrong_json_type_is_named(name: str, action: str, words: str) -> None:
    assert words in refused(name, action)


@pytest.mark.parametrize(
    ("name", "action", "words"),
    [
        ("terminal", '[{"keystrokes": "ls\\n", "duration": 1}', "'[' opened at line 1, column 1"),
        ("terminal", '[{"keystrokes": "ls, "duration": 1}]', "line 1"),
        ("mcp", '{"name": "read_file", "arguments": {"path": "a}}', "string opened at line 1"),
        ("android", '{"action_type": "click", "x": 1, "y": 2]', "does not match '{'"),
        ("swe", '{"name": "bash"}}', "'}' at line 1, column 17 closes nothing"),
        ("web", "click('12)", "unterminated string literal"),
        ("web", "fill('12', \"abc')", "unterminated string literal"),
        ("web", "click('12'", "'(' was never closed"),
        ("os", "import pyautogui\npyautogui.click(1, 2", "line 2"),
    ],
)
def test_unbalanced_quotes_and_brackets_are_located(name: str, action: str, words: str) -> None:
    assert words in refused(name, action)


@pytest.mark.parametrize(
    ("name", "action", "ctx", "suggestion"),
    [
        ("web", "clik('12')", NO_CONTEXT, "click"),
        ("web", "keyboard_pres('Enter')", NO_CONTEXT, "keyboard_press"),
        (
            "search",
            '{"name": "web_serch", "arguments": {"queries": ["x"]}}',
            NO_CONTEXT,
            "web_search",
        ),
        ("mcp", '{"name": "read_fil", "arguments": {"path": "a"}}', WITH_TOOLS, "read_file"),
        ("swe", '{"name": "write_fle", "arguments": {}}', WITH_TOOLS, "write_file"),
        ("android", '{"action_type": "long_pres", "index": 3}', NO_CONTEXT, "long_press"),
        ("terminal", '[{"keystroke": "ls\\n", "duration": 1}]', NO_CONTEXT, "keystrokes"),
    ],
)
def test_unknown_names_get_a_suggestion(
    name: str, action: str, ctx: PromptContext, suggestion: str
) -> None:
    assert f"Did you mean {suggestion!r}?" in refused(name, action, ctx)


@pytest.mark.parametrize(
    ("name", "action", "ctx", "words"),
    [
        ("terminal", '[{"keystrokes": "ls\\n"}]', NO_CONTEXT, "missing 'duration'"),
        ("web", "click()", NO_CONTEXT, "missing argument 'bid'"),
        ("web", "fill('45')", NO_CONTEXT, "missing argument 'value'"),
        ("web", "scroll(0)", NO_CONTEXT, "missing argument 'delta_y'"),
        ("mcp", '{"name": "read_file", "arguments": {}}', WITH_TOOLS, "argument(s) 'path'"),
        ("swe", '{"name": "write_file", "arguments": {"path": "a"}}', WITH_TOOLS, "'content'"),
        ("swe", '{"arguments": {}}', NO_CONTEXT, "missing 'name'"),
        ("search", '{"name": "web_search", "arguments": {}}', NO_CONTEXT, "missing 'queries'"),
        ("search", '{"name": "web_extractor", "arguments": {}}', NO_CONTEXT, "missing 'url'"),
        (
            "search",
            '{"name": "memory", "arguments": {"operation": "write", "key": "k"}}',
            NO_CONTEXT,
            "missing 'value'",
        ),
        ("android", '{"action_type": "click"}', NO_CONTEXT, "needs a target"),
        ("android", '{"action_type": "click", "x": 5}', NO_CONTEXT, "both 'x' and 'y'"),
        ("android", '{"action_type": "open_app"}', NO_CONTEXT, "missing 'app_name'"),
        ("android", '{"action_type": "type"}', NO_CONTEXT, "missing 'text'"),
        ("android", '{"x": 1, "y": 2}', NO_CONTEXT, "missing 'action_type'"),
    ],
)
def test_missing_arguments_are_named(
    name: str, action: str, ctx: PromptContext, words: str
) -> None:
    assert words in refused(name, action, ctx)


# --- domain specifics ---------------------------------------------------------------------


def test_terminal_canonical_text_is_indented_json_with_float_durations() -> None:
    canonical = check("terminal", '[{"keystrokes":"ls -la\\n","duration":1}]')
    assert canonical == '[\n  {\n    "keystrokes": "ls -la\\n",\n    "duration": 1.0\n  }\n]'


def test_terminal_confirm_completion_and_fenced_paste() -> None:
    assert check("terminal", "[]") == "[]"
    assert check("terminal", '```json\n[{"keystrokes": "C-c", "duration": 0}]\n```').startswith("[")


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ('[{"keystrokes": "ls", "duration": -1}]', "between 0 and"),
        ('[{"keystrokes": "ls", "duration": "1"}]', "must be a JSON number, not string"),
        ('[{"keystrokes": "ls", "duration": true}]', "not boolean"),
        ('[{"keystrokes": "ls", "duration": 1e999}]', "non-finite"),
        ('[{"keystrokes": "ls", "duration": NaN}]', "NaN"),
        ('[{"keystrokes": 5, "duration": 1}]', "'keystrokes' must be a JSON string"),
        ('[{"keystrokes": "ls", "duration": 1, "wait": true}]', "unknown field 'wait'"),
    ],
)
def test_terminal_field_errors(action: str, words: str) -> None:
    assert words in refused("terminal", action)


def test_tool_calls_are_normalised_from_the_openai_shape() -> None:
    openai = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "bash", "arguments": json.dumps({"command": "ls"})},
    }
    assert json.loads(check("swe", json.dumps(openai))) == {
        "name": "bash",
        "arguments": {"command": "ls"},
    }
    assert json.loads(check("mcp", '{"name": "list_tables"}'))["arguments"] == {}


def test_tool_schema_types_and_closed_schemas() -> None:
    assert "'path' of tool 'read_file' must be string, not integer" in refused(
        "mcp", '{"name": "read_file", "arguments": {"path": 3}}', WITH_TOOLS
    )
    assert "must be integer, not boolean" in refused(
        "mcp", '{"name": "read_file", "arguments": {"path": "a", "head": true}}', WITH_TOOLS
    )
    assert "no argument 'pth'" in refused(
        "mcp",
        '{"name": "write_file", "arguments": {"path": "a", "content": "", "pth": 1}}',
        WITH_TOOLS,
    )
    ok = '{"name": "read_file", "arguments": {"path": "a", "head": 2.0, "extra": 1}}'
    assert json.loads(check("mcp", ok, WITH_TOOLS))["name"] == "read_file"


def test_tool_names_are_free_without_definitions() -> None:
    assert check("mcp", '{"name": "anything", "arguments": {"a": 1}}').startswith('{"name"')


@pytest.mark.parametrize(
    "action",
    [
        '{"name": "web_search", "arguments": {"queries": ["a", "b"]}}',
        '{"name": "web_extractor", "arguments": {"url": "https://example.org/x", "goal": "y"}}',
        '{"name": "memory", "arguments": {"operation": "write", "key": "k", "value": [1]}}',
        '{"name": "memory", "arguments": {"operation": "read", "key": "k"}}',
        '{"name": "memory", "arguments": {"operation": "list"}}',
    ],
)
def test_search_valid_calls(action: str) -> None:
    assert json.loads(check("search", action)) == json.loads(action)


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ('{"name": "web_search", "arguments": {"queries": []}}', "empty"),
        ('{"name": "web_search", "arguments": {"queries": "a"}}', "JSON array"),
        ('{"name": "web_search", "arguments": {"queries": ["a", 2]}}', "Query 2"),
        ('{"name": "web_search", "arguments": {"query": ["a"]}}', "Did you mean 'queries'?"),
        ('{"name": "web_extractor", "arguments": {"url": "ftp://x.org"}}', "http(s) URL"),
        ('{"name": "memory", "arguments": {"operation": "wipe"}}', "'operation' must be one of"),
        ('{"name": "memory", "arguments": {"operation": "list", "key": "k"}}', "unknown field"),
    ],
)
def test_search_argument_errors(action: str, words: str) -> None:
    assert words in refused("search", action)


def test_search_accepts_tools_from_the_session_definitions() -> None:
    ctx = PromptContext(tools=TOOLS)
    assert check("search", '{"name": "read_file", "arguments": {"path": "a"}}', ctx)
    assert "missing required" in refused("search", '{"name": "read_file"}', ctx)


def test_web_accepts_the_browsergym_grammar() -> None:
    action = (
        'fill(\'45\', "hello \\"x\\"")\n'
        'select_option(\'3\', ["a", "b"])\n'
        "click('12', button='right', modifiers=['Shift']); scroll(0, 200.5)\n"
        "mouse_drag_and_drop(1, 2, 3, 4)\ngo_back()\ntab_focus(index=1)\nnoop()"
    )
    assert check("web", f"  {action}  ") == action


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ("click(12)", "bid string"),
        ("click(bid)", "must be a literal"),
        ("click('1', 'top')", "'button' of click() must be one of"),
        ("click('1', buton='left')", "Did you mean 'button'?"),
        ("click('1', bid='2')", "got 'bid' twice"),
        ("go_back(1)", "at most 0 argument"),
        ("tab_focus(1.5)", "an integer"),
        ("import os", "Expected an action call"),
        ("page.click('1')", "Expected an action call"),
        ("click('1')\nclik('2')", "line 2, column 1"),
        ("# just a comment", "holds no call"),
    ],
)
def test_web_errors(action: str, words: str) -> None:
    assert words in refused("web", action)


def test_os_accepts_code_and_removes_common_indentation() -> None:
    assert check("os", "    import pyautogui\n    pyautogui.click(1, 2)") == (
        "import pyautogui\npyautogui.click(1, 2)"
    )
    assert check("os", "DONE") == "DONE"


def test_os_syntax_error_names_line_and_column() -> None:
    message = refused("os", "x = 1\nif x\n    pass")
    assert "line 2" in message and "column" in message


@pytest.mark.parametrize(
    ("action", "expected"),
    [
        ('{"action_type": "tap", "x": 1, "y": 2}', {"action_type": "click", "x": 1, "y": 2}),
        (
            '{"action_type": "type", "text": "hi", "index": 4}',
            {"action_type": "input_text", "text": "hi", "index": 4},
        ),
        ('{"action_type": "back"}', {"action_type": "navigate_back"}),
        ('{"action_type": "home"}', {"action_type": "navigate_home"}),
        (
            '{"action_type": "scroll", "direction": "down"}',
            {"action_type": "scroll", "direction": "down"},
        ),
        (
            '{"action_type": "status", "goal_status": "complete"}',
            {"action_type": "status", "goal_status": "complete"},
        ),
    ],
)
def test_android_aliases_are_canonicalised(action: str, expected: dict[str, object]) -> None:
    assert json.loads(check("android", action)) == expected


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ('{"action_type": "scroll", "direction": "sideways"}', "'direction' must be one of"),
        ('{"action_type": "click", "x": -1, "y": 2}', "integer >= 0"),
        (
            '{"action_type": "click", "x": 1, "y": 2, "direction": "up"}',
            "unknown field 'direction'",
        ),
        ('{"action_type": "click", "idx": 3}', "Did you mean 'index'?"),
        ('{"action_type": 3}', "'action_type' must be a string"),
        ('{"action_type": "open_app", "app_name": " "}', "non-empty app name"),
    ],
)
def test_android_field_errors(action: str, words: str) -> None:
    assert words in refused("android", action)


# --- fuzz ---------------------------------------------------------------------------------

KEYS = [
    "keystrokes",
    "duration",
    "name",
    "arguments",
    "function",
    "queries",
    "url",
    "operation",
    "key",
    "value",
    "action_type",
    "x",
    "y",
    "index",
    "text",
    "direction",
    "app_name",
]
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from(["click", "tap", "web_search", "memory", "write", "read_file", "up"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=12,
)
ACTIONS = (
    st.text(max_size=300)
    | JSON_VALUES.map(json.dumps)
    | st.builds(
        lambda f, a: f"{f}({a})",
        st.sampled_from(["click", "fill", "scroll", "noop"]),
        st.text(max_size=30),
    )
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(BUILTIN), action=ACTIONS, with_tools=st.booleans())
def test_validators_raise_nothing_but_bad_action_error(
    name: str, action: str, with_tools: bool
) -> None:
    ctx = WITH_TOOLS if with_tools else NO_CONTEXT
    try:
        canonical = get_domain(name).validate(action, ctx)
    except BadActionError as error:
        assert str(error)
    else:
        assert get_domain(name).validate(canonical, ctx) == canonical


# --- prompts ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", BUILTIN)
@pytest.mark.parametrize("ctx", [NO_CONTEXT, WITH_TOOLS], ids=["bare", "tools"])
def test_every_builtin_prompt_renders(name: str, ctx: PromptContext) -> None:
    library = PromptLibrary()
    prompt = library.system_prompt(name, ctx)
    assert library.source(name) == "builtin"
    assert prompt.startswith("# Role and Objective")
    assert prompt.count("<predicted_observation>") >= 1 and "</predicted_observation>" in prompt
    assert not any(f"${slot}" in prompt or f"{{{slot}}}" in prompt for slot in SLOTS)
    if not get_domain(name).block_observation:
        assert "**Environment Observation:**" in prompt
    else:
        assert "exactly one closed" in prompt


@pytest.mark.parametrize("name", ["mcp", "swe", "search"])
def test_tool_prompts_carry_tools_and_demonstrations(name: str) -> None:
    library = PromptLibrary()
    bare = library.system_prompt(name, NO_CONTEXT)
    full = library.system_prompt(name, WITH_TOOLS)
    assert NONE_PROVIDED in bare and '"read_file"' not in bare
    assert json.dumps(TOOLS, indent=2) in full
    assert "Turn 1: read_file -> ok" in full


def test_search_prompt_carries_the_simulation_instruction() -> None:
    ctx = PromptContext(simulation_instruction="Target query: X. Reference answer: Y.")
    assert "Reference answer: Y." in PromptLibrary().system_prompt("search", ctx)


def test_override_dir_replaces_a_builtin_and_keeps_odd_text(tmp_path: Path) -> None:
    (tmp_path / "mcp.md").write_text(
        "Tools: {tools}\nAlso ${tools}\nTask: $task\n"
        'JSON {"a": {"b": 1}} $HOME ${unknown} {other} $',
        encoding="utf-8",
    )
    library = PromptLibrary(tmp_path)
    prompt = library.system_prompt("mcp", PromptContext(tools=TOOLS[:1], task="use $tools"))
    assert library.source("mcp") == str(tmp_path / "mcp.md")
    assert library.source("web") == "builtin"
    assert prompt.count('"read_file"') == 2
    assert "Task: use $tools" in prompt  # inserted text is not filled again
    assert prompt.endswith('JSON {"a": {"b": 1}} $HOME ${unknown} {other} $')
    assert library.system_prompt("web", NO_CONTEXT) == PromptLibrary().system_prompt(
        "web", NO_CONTEXT
    )


def test_override_without_slots_and_bad_directory(tmp_path: Path) -> None:
    (tmp_path / "swe.md").write_text("No slots at all.", encoding="utf-8")
    assert PromptLibrary(tmp_path).system_prompt("swe", WITH_TOOLS) == "No slots at all."
    with pytest.raises(BadInputError):
        PromptLibrary(tmp_path / "missing")


def test_prompt_for_an_unknown_domain_lists_the_valid_ones() -> None:
    with pytest.raises(UnknownNameError, match="Valid: "):
        PromptLibrary().system_prompt("androd", NO_CONTEXT)


# --- chat layout --------------------------------------------------------------------------

SCREEN0 = "root@box:/app#"
HISTORY = [
    Turn(
        action='[{"keystrokes": "pwd\\n", "duration": 0.1}]',
        observation="root@box:/app# pwd\n/app\nroot@box:/app#",
        predicted="PREDICTED 1",
    ),
    Turn(
        action='[{"keystrokes": "cd src\\n", "duration": 0.1}]',
        observation="root@box:/app# cd src\nroot@box:/app/src#",
        predicted="PREDICTED 2",
    ),
]
ACTION = '[{"keystrokes": "ls\\n", "duration": 0.5}]'


def layout(
    mode: HistoryMode, domain: str = "terminal", action: str = ACTION
) -> list[tuple[str, str]]:
    request = SimRequest(
        domain=domain, initial_state=SCREEN0, history=HISTORY, action=action, history_mode=mode
    )
    return [(m.role, m.content) for m in build_messages(canonical(request), "SYSTEM")]


def test_teacher_forced_layout_matches_the_official_turns() -> None:
    messages = layout(HistoryMode.TEACHER_FORCED)
    assert [role for role, _ in messages] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert messages[0] == ("system", "SYSTEM")
    assert messages[1][1] == (
        f"### Turn 1\n**Current State:**\n{SCREEN0}\n\n"
        f"**Action:**\n```json\n{HISTORY[0].action}\n```"
    )
    assert messages[2][1] == f"**Environment Observation:**\n{HISTORY[0].observation}"
    assert messages[3][1] == f"### Turn 2\n**Action:**\n```json\n{HISTORY[1].action}\n```"
    canonical = get_domain("terminal").validate(ACTION, NO_CONTEXT)
    assert messages[5][1] == f"### Turn 3\n**Action:**\n```json\n{canonical}\n```"


def test_closed_loop_uses_the_model_predictions() -> None:
    messages = layout(HistoryMode.CLOSED_LOOP)
    assert messages[2][1] == "**Environment Observation:**\nPREDICTED 1"
    assert messages[4][1] == "**Environment Observation:**\nPREDICTED 2"


def test_blind_mode_sends_only_the_current_turn_with_the_last_screen() -> None:
    messages = layout(HistoryMode.BLIND)
    assert [role for role, _ in messages] == ["system", "user"]
    canonical = get_domain("terminal").validate(ACTION, NO_CONTEXT)
    assert messages[1][1] == (
        f"### Turn 3\n**Current State:**\n{HISTORY[1].observation}\n\n"
        f"**Action:**\n```json\n{canonical}\n```"
    )


def test_first_terminal_turn_without_history_carries_the_initial_screen() -> None:
    request = SimRequest(domain="terminal", initial_state=SCREEN0, action=ACTION)
    user = build_messages(request, "S")[1].content
    assert user.startswith(f"### Turn 1\n**Current State:**\n{SCREEN0}\n\n**Action:**\n```json\n[")


def test_other_domains_show_the_start_page_on_the_first_turn() -> None:
    request = SimRequest(domain="web", initial_state="RootWebArea", action="click('3')")
    assert (
        build_messages(request, "S")[1].content
        == "### Turn 1\n**Current State:**\nRootWebArea\n\n**Action:**\n```json\nclick('3')\n```"
    )


def test_no_current_state_when_none_is_known() -> None:
    request = SimRequest(domain="web", action="click('3')")
    assert (
        build_messages(request, "S")[1].content
        == "### Turn 1\n**Action:**\n```json\nclick('3')\n```"
    )


def test_a_bad_current_action_is_refused_before_any_message_is_built() -> None:
    with pytest.raises(BadActionError):
        layout(HistoryMode.TEACHER_FORCED, action="[")


def test_a_step_off_the_recording_shows_its_prediction_as_history_in_every_mode() -> None:
    # A teacher-forced session that left the recording at turn 1 went on from the model's
    # prediction; a later prompt (rebuilt from storage or not) must show that same prediction.
    unknown = [Turn(action=HISTORY[0].action, observation=None, predicted="PREDICTED 1")]
    for mode in (HistoryMode.TEACHER_FORCED, HistoryMode.CLOSED_LOOP):
        request = SimRequest(domain="terminal", history=unknown, action=ACTION, history_mode=mode)
        messages = build_messages(canonical(request), "S")
        assert messages[2].content == "**Environment Observation:**\nPREDICTED 1"
    blind = SimRequest(domain="terminal", history=unknown, action=ACTION, history_mode="blind")
    assert "**Current State:**\nPREDICTED 1\n" in build_messages(canonical(blind), "S")[1].content


@pytest.mark.parametrize(
    ("name", "action"),
    [
        ("terminal", "[" * 60_000),
        ("mcp", "{" * 30_000),
        ("web", "click(" + "(" * 5_000 + ")"),
        ("web", "click(" + "1" * 5_000 + ")"),
        ("terminal", '[{"keystrokes": "a", "duration": ' + "9" * 5_000 + "}]"),
        ("os", "print('\0')"),
        ("search", '{"name": "web_extractor", "arguments": {"url": "http://[::1"}}'),
        ("android", '{"action_type": "click", "x": 1e400, "y": 1}'),
    ],
)
def test_pathological_actions_are_refused_cleanly(name: str, action: str) -> None:
    assert refused(name, action)
