"""Nu: package.json `nu` key and tool.yaml tools (synthetic fixtures: no public Nu exists)."""

from __future__ import annotations

from pathlib import Path

from adapters import inspect_package
from tests.adapters._helpers import assert_well_formed, codes, errors, messages, names, write_tree

SEARCH_TOOL = """\
name: example__search
version: 1
description: Search the example API. Returns titles and URLs.
args_schema:
  type: object
  required: [query]
  properties:
    query: { type: string }
idempotency: safe_to_retry
secrets: [EXAMPLE_TOKEN]
entry: index.ts
"""


def nu_package(**nu: object) -> dict[str, object]:
    return {"name": "nu-example", "version": "0.1.0", "type": "module", "nu": nu}


def test_nu_conformance_spec_example_package(tmp_path: Path) -> None:
    """The Nu document's example package, with its client block and a policy."""
    package = nu_package(
        namespace="example",
        tools=["tools/*/tool.yaml"],
        skills=["skills"],
        extensions=["src/index.ts"],
        policy="policy.yaml",
        secrets=["EXAMPLE_TOKEN"],
        config=["userId"],
        client={
            "commands": {
                "standup": {
                    "description": "Draft today's standup",
                    "message": "Draft my standup from yesterday's commits. {args}",
                }
            },
            "tools": {"example__search": {"icon": "🔎", "title": "Search {query}"}},
        },
    )
    package["keywords"] = ["nu-package"]
    write_tree(
        tmp_path,
        {
            "package.json": package,
            "tools/search/tool.yaml": SEARCH_TOOL,
            "tools/search/index.ts": "export default async function search() {}\n",
            "skills/standup/SKILL.md": "---\nname: standup\ndescription: Standups.\n---\n",
            "src/index.ts": "export default (nu) => {}\n",
            "policy.yaml": "default_action: deny\nrules:\n  - id: allow-search\n"
            "    priority: 10\n    when: {target: example__search}\n"
            "    then: {decision: allow}\n",
        },
    )
    entry = inspect_package(tmp_path)
    assert (entry.ecosystem, entry.id, entry.version, entry.runtime) == (
        "nu",
        "nu-example",
        "0.1.0",
        "node-sidecar",
    )
    assert [(c.kind, c.name) for c in entry.contributions] == [
        ("tool", "example__search"),
        ("skill", "standup"),
        ("command", "standup"),
    ]
    tool = entry.contributions[0]
    assert tool.detail["entry"] == "tools/search/index.ts"
    assert tool.detail["idempotency"] == "safe_to_retry"
    assert tool.detail["display"] == {"icon": "🔎", "title": "Search {query}"}
    assert entry.entries == ["src/index.ts"]
    assert entry.secrets == ["EXAMPLE_TOKEN"] and entry.config_keys == ["userId"]
    assert entry.metadata["namespace"] == "example"
    policy = entry.metadata["policy"]
    assert (policy["path"], policy["valid"], policy["rules"]) == ("policy.yaml", True, 1)
    assert policy["bundle"]["rules"][0]["id"] == "allow-search"  # kept for `policy accept`
    assert entry.config_closed
    assert errors(entry) == []
    assert "nu.contributions_runtime_only" in codes(entry)
    assert_well_formed(entry)


def test_nu_tools_only_package_runs_as_nu_tools(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "package.json": nu_package(namespace="example", tools=["tools/*/tool.yaml"]),
            "tools/search/tool.yaml": SEARCH_TOOL,
            "tools/search/index.ts": "",
        },
    )
    entry = inspect_package(tmp_path)
    assert entry.runtime == "nu-tool" and names(entry, "tool") == ["example__search"]


def test_nu_single_tool_folder_is_inspectable(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"tool.yaml": SEARCH_TOOL, "index.ts": ""}))
    assert (entry.ecosystem, entry.id, entry.entries) == ("nu", "example__search", ["index.ts"])
    assert entry.secrets == ["EXAMPLE_TOKEN"]


def test_nu_missing_namespace_is_an_error(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"package.json": nu_package(tools=[])}))
    assert messages(entry, "nu.manifest_invalid") == ["package.json nu: namespace is required"]


def test_nu_key_must_be_an_object(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"package.json": {"name": "x", "nu": ["a"]}}))
    assert messages(entry, "nu.manifest_invalid") == ["package.json: nu is not an object"]


def test_nu_wrong_key_types_are_named(tmp_path: Path) -> None:
    package = nu_package(namespace="x", tools="tools/*/tool.yaml", secrets=["A", 1])
    entry = inspect_package(write_tree(tmp_path, {"package.json": package}))
    assert messages(entry, "nu.manifest_invalid") == [
        "package.json nu: tools must be an array of strings (got a string)",
        "package.json nu: secrets[1] must be a non-empty string (got a number)",
    ]


def test_nu_unknown_key_is_a_warning(tmp_path: Path) -> None:
    entry = inspect_package(
        write_tree(tmp_path, {"package.json": nu_package(namespace="x", tool=[])})
    )
    assert messages(entry, "nu.manifest_unknown_field") == ["package.json nu: unknown field tool"]


def test_nu_tool_glob_matching_nothing_is_reported(tmp_path: Path) -> None:
    package = nu_package(namespace="x", tools=["tools/*/tool.yaml"])
    entry = inspect_package(write_tree(tmp_path, {"package.json": package}))
    assert messages(entry, "package.entry_not_found") == [
        "package.json nu.tools[0]: 'tools/*/tool.yaml' matches nothing"
    ]


def test_nu_tool_missing_fields_are_named(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"tool.yaml": "name: x__y\n"}))
    assert messages(entry, "nu.tool_invalid") == [
        "tool.yaml: version is required",
        "tool.yaml: description is required",
        "tool.yaml: args_schema is required",
        "tool.yaml: entry is required",
    ]


def test_nu_tool_version_must_be_positive_integer(tmp_path: Path) -> None:
    text = SEARCH_TOOL.replace("version: 1", "version: '2'")
    entry = inspect_package(write_tree(tmp_path, {"tool.yaml": text, "index.ts": ""}))
    assert messages(entry, "nu.tool_invalid") == [
        "tool.yaml: version must be a positive integer (got a string)"
    ]


def test_nu_tool_idempotency_vocabulary_is_enforced(tmp_path: Path) -> None:
    text = SEARCH_TOOL.replace("safe_to_retry", "exactly_once")
    entry = inspect_package(write_tree(tmp_path, {"tool.yaml": text, "index.ts": ""}))
    assert messages(entry, "nu.tool_invalid") == [
        "tool.yaml: idempotency must be one of safe_to_retry, at_most_once (got a string)"
    ]


def test_nu_tool_at_most_once_is_recorded(tmp_path: Path) -> None:
    text = SEARCH_TOOL.replace("safe_to_retry", "at_most_once")
    entry = inspect_package(write_tree(tmp_path, {"tool.yaml": text, "index.ts": ""}))
    assert entry.contributions[0].detail["idempotency"] == "at_most_once"


def test_nu_tool_args_schema_must_describe_an_object(tmp_path: Path) -> None:
    text = SEARCH_TOOL.replace("  type: object\n", "  type: string\n")
    entry = inspect_package(write_tree(tmp_path, {"tool.yaml": text, "index.ts": ""}))
    assert messages(entry, "nu.tool_invalid") == [
        "tool.yaml: args_schema.type must be 'object' (got a string)"
    ]


def test_nu_tool_entry_outside_package_is_rejected(tmp_path: Path) -> None:
    text = SEARCH_TOOL.replace("entry: index.ts", "entry: ../../outside.ts")
    entry = inspect_package(write_tree(tmp_path / "pkg", {"tool.yaml": text}))
    assert messages(entry, "package.path_escape") == [
        "tool.yaml: entry: '../../outside.ts' is absolute or leaves the package"
    ]


def test_nu_tool_missing_entry_file_is_a_warning(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"tool.yaml": SEARCH_TOOL}))
    assert messages(entry, "package.entry_not_found") == [
        "tool.yaml: entry: 'index.ts' does not exist in the package"
    ]


def test_nu_tool_name_must_carry_namespace(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "package.json": nu_package(namespace="other", tools=["tools/search/tool.yaml"]),
            "tools/search/tool.yaml": SEARCH_TOOL,
            "tools/search/index.ts": "",
        },
    )
    assert messages(inspect_package(tmp_path), "nu.tool_name_not_namespaced") == [
        "tools/search/tool.yaml: tool 'example__search' does not start with other__; refused"
    ]
    (tool,) = inspect_package(tmp_path).contributions
    assert tool.detail["refused"] == "its name does not start with other__"


def test_nu_tool_yaml_syntax_error_names_position(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"tool.yaml": "name: [a\nversion: 1\n"}))
    (message,) = messages(entry, "package.yaml_invalid")
    assert message.startswith("tool.yaml: invalid YAML at line ")


def test_nu_tool_yaml_must_be_a_mapping(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"tool.yaml": "- a\n- b\n"}))
    assert messages(entry, "package.not_an_object") == [
        "tool.yaml: top level is an array, not a mapping"
    ]


def test_nu_tool_yaml_binary_content_is_unreadable(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"tool.yaml": b"\xff\xfe\x00name"}))
    assert messages(entry, "package.file_unreadable") == [
        "tool.yaml: not UTF-8 text (bad byte at 0)"
    ]


def test_nu_tool_yaml_unknown_key_is_a_warning(tmp_path: Path) -> None:
    entry = inspect_package(
        write_tree(tmp_path, {"tool.yaml": SEARCH_TOOL + "retries: 3\n", "index.ts": ""})
    )
    assert messages(entry, "nu.manifest_unknown_field") == ["tool.yaml: unknown field retries"]


def test_nu_client_tool_for_undeclared_tool_is_a_warning(tmp_path: Path) -> None:
    package = nu_package(namespace="x", client={"tools": {"x__nope": {"icon": "?"}}})
    entry = inspect_package(write_tree(tmp_path, {"package.json": package}))
    assert messages(entry, "nu.client_tool_unknown") == [
        "package.json nu.client.tools: no tool 'x__nope'"
    ]


def test_nu_client_command_needs_a_message(tmp_path: Path) -> None:
    package = nu_package(namespace="x", client={"commands": {"go": {"description": "Go"}}})
    entry = inspect_package(write_tree(tmp_path, {"package.json": package}))
    assert messages(entry, "nu.manifest_invalid") == [
        "package.json nu.client.commands.go: message is required"
    ]
    assert names(entry, "command") == []


def test_nu_policy_rules_need_unique_ids_and_priorities(tmp_path: Path) -> None:
    rule = "{id: a, priority: 1, then: {decision: allow}}"
    policy = f"rules:\n  - {rule}\n  - {rule}\n"
    package = nu_package(namespace="x", policy="policy.yaml")
    entry = inspect_package(write_tree(tmp_path, {"package.json": package, "policy.yaml": policy}))
    assert messages(entry, "nu.policy_invalid") == [
        "policy.yaml: rule a: id is not unique",
        "policy.yaml: rule a: priority 1 is not unique",
    ]
    assert entry.metadata["policy"] == {"path": "policy.yaml", "valid": False}


def test_nu_policy_is_checked_against_the_full_grammar(tmp_path: Path) -> None:
    policy = "rules:\n  - id: a\n    priority: 1\n    when: {arguments: {q: {}}}\n    then: {decision: maybe}\n"
    package = nu_package(namespace="x", policy="policy.yaml")
    entry = inspect_package(write_tree(tmp_path, {"package.json": package, "policy.yaml": policy}))
    assert messages(entry, "nu.policy_invalid") == [
        "policy.yaml: rule a: then.decision must be one of allow, deny, require_approval",
        "policy.yaml: rule a when.arguments.q: is an empty predicate; use one of equals, contains, one_of, regex",
    ]


def test_nu_policy_that_expands_past_the_limit_is_not_suggested_at_all(tmp_path: Path) -> None:
    # A cut-off copy would not be the rules the package suggests, so none is kept.
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        prev, name = chr(ord("a") + level - 1), chr(ord("a") + level)
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    rule = "  - {id: a, priority: 1, when: {arguments: {q: {one_of: *i}}}, then: {decision: deny}}"
    policy = "\n".join(lines) + "\nrules:\n" + rule + "\n"
    package = nu_package(namespace="x", policy="policy.yaml")
    entry = inspect_package(write_tree(tmp_path, {"package.json": package, "policy.yaml": policy}))
    assert messages(entry, "nu.policy_invalid") == [
        "policy.yaml: larger than a policy needs (more than 10,000 values or 32 levels once "
        "its YAML aliases are expanded); not suggested"
    ]
    assert entry.metadata["policy"] == {"path": "policy.yaml", "valid": False}


def test_nu_missing_policy_file_is_reported(tmp_path: Path) -> None:
    package = nu_package(namespace="x", policy="policy.yaml")
    entry = inspect_package(write_tree(tmp_path, {"package.json": package}))
    assert messages(entry, "package.entry_not_found") == [
        "package.json nu.policy: 'policy.yaml' does not exist in the package"
    ]


def test_nu_skills_dir_without_skill_is_reported(tmp_path: Path) -> None:
    package = nu_package(namespace="x", skills=["skills"])
    entry = inspect_package(write_tree(tmp_path, {"package.json": package, "skills/a.txt": ""}))
    assert messages(entry, "package.entry_not_found") == [
        "package.json nu.skills[0]: no SKILL.md in 'skills'"
    ]


def test_nu_extension_path_escape_is_rejected(tmp_path: Path) -> None:
    package = nu_package(namespace="x", extensions=["/etc/passwd"])
    entry = inspect_package(write_tree(tmp_path, {"package.json": package}))
    assert messages(entry, "package.path_escape") == [
        "package.json nu.extensions[0]: '/etc/passwd' is absolute or leaves the package"
    ]
    assert entry.entries == []


def test_nu_tool_args_schema_must_be_a_valid_json_schema(tmp_path: Path) -> None:
    text = SEARCH_TOOL.replace("    query: { type: string }", "    query: { type: 12 }")
    entry = inspect_package(write_tree(tmp_path, {"tool.yaml": text, "index.ts": ""}))
    (message,) = messages(entry, "nu.tool_invalid")
    assert message.startswith(
        "tool.yaml: args_schema is not a valid JSON Schema: properties.query.type: 12 is not valid"
    )


def test_nu_client_tool_display_is_checked(tmp_path: Path) -> None:
    package = nu_package(
        namespace="example",
        tools=["tools/search/tool.yaml"],
        client={"tools": {"example__search": {
            "icon": "🔎", "title": 5, "body": {"argument": "nope"}, "color": "red",
        }}},
    )  # fmt: skip
    write_tree(tmp_path, {"package.json": package, "tools/search/tool.yaml": SEARCH_TOOL,
                          "tools/search/index.ts": ""})  # fmt: skip
    entry = inspect_package(tmp_path)
    assert messages(entry, "nu.manifest_invalid") == [
        "package.json nu.client.tools.example__search: title must be a non-empty string (got a number)",
        "package.json nu.client.tools.example__search: body.argument names no argument of example__search",
    ]
    assert messages(entry, "nu.manifest_unknown_field") == [
        "package.json nu.client.tools.example__search: unknown field color"
    ]
    assert entry.contributions[0].detail["display"] == {"icon": "🔎", "body": {"argument": "nope"}}


def test_nu_client_tool_body_names_an_argument_and_its_language(tmp_path: Path) -> None:
    package = nu_package(
        namespace="example",
        tools=["tools/search/tool.yaml"],
        client={"tools": {"example__search": {"body": {"argument": "query", "language": "sql"}}}},
    )
    write_tree(tmp_path, {"package.json": package, "tools/search/tool.yaml": SEARCH_TOOL,
                          "tools/search/index.ts": ""})  # fmt: skip
    entry = inspect_package(tmp_path)
    assert entry.contributions[0].detail["display"] == {
        "body": {"argument": "query", "language": "sql"}
    }
    assert messages(entry, "nu.manifest_invalid") == []


def test_nu_tool_args_schema_that_expands_past_the_limit_is_refused_quickly(
    tmp_path: Path,
) -> None:
    # Nine levels of ten aliases each: a few hundred bytes that stand for 10^9 values.
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        prev, name = chr(ord("a") + level - 1), chr(ord("a") + level)
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    text = "\n".join(lines) + "\nname: x__y\nversion: 1\ndescription: d\nentry: i.ts\n"
    text += "args_schema: {type: object, properties: {p: {enum: *i}}}\n"
    entry = inspect_package(write_tree(tmp_path, {"tool.yaml": text, "i.ts": ""}))
    (message,) = messages(entry, "nu.tool_invalid")
    assert message == (
        "tool.yaml: args_schema is not a valid JSON Schema: it is larger than a tool's "
        "arguments need (more than 10,000 values or 32 levels once its YAML aliases are "
        "expanded)"
    )
