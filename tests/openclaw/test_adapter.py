"""OpenClaw: openclaw.plugin.json and package.json `openclaw` entries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from adapters import inspect_package
from tests.adapters._helpers import assert_well_formed, codes, errors, messages, names, write_tree

EMPTY_SCHEMA = {"type": "object", "additionalProperties": False}

# Shaped like @mem0/openclaw-mem0 1.0.x: a memory-kind plugin with tool contracts.
MEM0_MANIFEST: dict[str, Any] = {
    "id": "openclaw-mem0",
    "name": "Mem0 Memory",
    "description": "Long-term memory for OpenClaw agents.",
    "kind": "memory",
    "configSchema": {
        "type": "object",
        "properties": {"apiKey": {"type": "string"}, "userId": {"type": "string"}},
    },
    "uiHints": {"apiKey": {"label": "API key", "sensitive": True}},
    "contracts": {
        "tools": ["memory_search", "memory_add"],
        "embeddingProviders": ["mem0"],
    },
    "toolMetadata": {"memory_search": {"optional": False, "profiles": ["full"]}},
    "skills": ["skills/memory"],
    "setup": {"providers": [{"id": "mem0", "envVars": ["MEM0_API_KEY"]}]},
    "commandAliases": [{"name": "remember", "kind": "runtime-slash"}],
    "cliCommands": [{"name": "mem0", "description": "Mem0 CLI", "hasSubcommands": True}],
    "undocumentedKey": {"ignored": True},
}
MEM0_PACKAGE = {
    "name": "@mem0/openclaw-mem0",
    "version": "1.0.16",
    "type": "module",
    "keywords": ["openclaw-plugin"],
    "openclaw": {
        "extensions": ["./dist/index.js"],
        "compat": {"pluginApi": ">=2026.4.24"},
        "install": {"npmSpec": "@mem0/openclaw-mem0"},
    },
    "dependencies": {"mem0ai": "^2.1.0"},
    "peerDependencies": {"openclaw": ">=2026.4.24"},
}


def test_openclaw_conformance_memory_plugin(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "openclaw.plugin.json": MEM0_MANIFEST,
            "package.json": MEM0_PACKAGE,
            "dist/index.js": "export default { register(api) {} }\n",
            "skills/memory/SKILL.md": "---\nname: memory\ndescription: Use memory.\n---\n",
        },
    )
    entry = inspect_package(tmp_path)
    assert (entry.ecosystem, entry.id, entry.name, entry.version, entry.runtime) == (
        "openclaw",
        "@mem0/openclaw-mem0",
        "Mem0 Memory",
        "1.0.16",
        "node-sidecar",
    )
    assert [(c.kind, c.name) for c in entry.contributions] == [
        ("skill", "memory"),
        ("tool", "memory_search"),
        ("tool", "memory_add"),
        ("provider", "mem0"),
        ("command", "remember"),
        ("cli_command", "mem0"),
    ]
    assert entry.contributions[1].detail["tool_metadata"] == {
        "optional": False,
        "profiles": ["full"],
    }
    assert entry.entries == ["dist/index.js"]
    assert entry.config_keys == ["apiKey", "userId"]
    assert entry.secrets == ["MEM0_API_KEY"]
    assert entry.metadata["plugin_id"] == "openclaw-mem0"
    assert entry.metadata["kind"] == ["memory"]
    assert entry.metadata["plugin_api"] == ">=2026.4.24"
    host = [(d.name, d.specifier) for d in entry.dependencies if d.provided_by_host]
    assert host == [("openclaw", ">=2026.4.24")]
    # declared 2026.4.24: loaded as OpenClaw 2026.4 loads plugins, with jiti
    assert entry.metadata["loader"] == "jiti"
    assert codes(entry) == ["openclaw.host_loader", "openclaw.contributions_runtime_only"]
    assert_well_formed(entry)


def test_openclaw_channels_and_providers_are_declared_contributions(tmp_path: Path) -> None:
    manifest = {
        "id": "nostr",
        "configSchema": EMPTY_SCHEMA,
        "channels": ["nostr"],
        "channelConfigs": {"nostr": {"schema": {}}},
        "providers": ["acme-llm"],
        "contracts": {
            "webSearchProviders": ["acme-search"],
            "imageGenerationProviders": ["acme-img"],
            "realtimeTranscriptionProviders": ["acme-stt"],
            "gatewayMethodDispatch": ["authenticated-request"],
        },
    }
    write_tree(tmp_path, {"openclaw.plugin.json": manifest, "index.ts": ""})
    entry = inspect_package(tmp_path)
    assert [(c.kind, c.name) for c in entry.contributions] == [
        ("channel", "nostr"),
        ("llm_provider", "acme-llm"),
        ("web_search_provider", "acme-search"),
        ("image_generation_provider", "acme-img"),
        ("transcription_provider", "acme-stt"),
        ("contract", "authenticated-request"),
    ]
    assert entry.contributions[0].detail["config_schema"] is True
    assert entry.id == "nostr"  # no package.json: the plugin id is the identity
    assert entry.entries == ["index.ts"]


def test_openclaw_runtime_extensions_win_over_sources(tmp_path: Path) -> None:
    package = {
        "name": "@openclaw/nostr",
        "openclaw": {"extensions": ["./index.ts"], "runtimeExtensions": ["./dist/index.js"]},
    }
    write_tree(
        tmp_path,
        {
            "package.json": package,
            "openclaw.plugin.json": {"id": "nostr", "configSchema": EMPTY_SCHEMA},
            "dist/index.js": "",
        },
    )
    entry = inspect_package(tmp_path)
    assert entry.entries == ["dist/index.js"] and errors(entry) == []


def test_openclaw_missing_runtime_artifact_has_no_source_fallback(tmp_path: Path) -> None:
    package = {
        "name": "p",
        "openclaw": {"extensions": ["./index.ts"], "runtimeExtensions": ["./dist/index.js"]},
    }
    write_tree(
        tmp_path,
        {
            "package.json": package,
            "openclaw.plugin.json": {"id": "p", "configSchema": EMPTY_SCHEMA},
            "index.ts": "",
        },
    )
    entry = inspect_package(tmp_path)
    assert entry.entries == []
    assert messages(entry, "package.entry_not_found") == [
        "package.json openclaw.runtimeExtensions[0]: './dist/index.js' does not exist in the package"
    ]


def test_openclaw_runtime_extensions_must_pair_with_extensions(tmp_path: Path) -> None:
    package = {
        "name": "p",
        "openclaw": {"extensions": ["a.ts", "b.ts"], "runtimeExtensions": ["a.js"]},
    }
    write_tree(
        tmp_path,
        {
            "package.json": package,
            "openclaw.plugin.json": {"id": "p", "configSchema": EMPTY_SCHEMA},
            "a.ts": "",
            "b.ts": "",
        },
    )
    entry = inspect_package(tmp_path)
    assert messages(entry, "openclaw.package_invalid") == [
        "package.json openclaw: runtimeExtensions must pair with extensions (1 vs 2)"
    ]


def test_openclaw_typescript_source_prefers_built_js_peer(tmp_path: Path) -> None:
    package = {"name": "p", "openclaw": {"extensions": ["./src/index.ts"]}}
    write_tree(
        tmp_path,
        {
            "package.json": package,
            "openclaw.plugin.json": {"id": "p", "configSchema": EMPTY_SCHEMA},
            "src/index.ts": "",
            "dist/src/index.js": "",
        },
    )
    assert inspect_package(tmp_path).entries == ["dist/src/index.js"]


def test_openclaw_extensions_must_be_an_array(tmp_path: Path) -> None:
    package = {"name": "p", "openclaw": {"extensions": "./index.ts"}}
    write_tree(
        tmp_path,
        {"package.json": package, "openclaw.plugin.json": {"id": "p", "configSchema": {}}},
    )
    assert messages(inspect_package(tmp_path), "openclaw.package_invalid") == [
        "package.json openclaw: extensions must be an array of strings (got a string)"
    ]


def test_openclaw_default_index_entry_without_extensions(tmp_path: Path) -> None:
    write_tree(tmp_path, {"openclaw.plugin.json": {"id": "p", "configSchema": {}}, "index.mjs": ""})
    assert inspect_package(tmp_path).entries == ["index.mjs"]


def test_openclaw_no_entry_is_a_warning(tmp_path: Path) -> None:
    manifest = {"id": "skills-only", "configSchema": {}, "skills": ["skills"]}
    write_tree(
        tmp_path,
        {
            "openclaw.plugin.json": manifest,
            "skills/a/SKILL.md": "---\nname: a\ndescription: d\n---\n",
        },
    )
    entry = inspect_package(tmp_path)
    assert entry.runtime == "declarative" and names(entry, "skill") == ["a"]
    assert "openclaw.no_entry" in codes(entry)


def test_openclaw_package_key_without_manifest_is_an_error(tmp_path: Path) -> None:
    write_tree(tmp_path, {"package.json": {"name": "p", "openclaw": {"extensions": []}}})
    entry = inspect_package(tmp_path)
    assert entry.ecosystem == "openclaw"
    assert messages(entry, "openclaw.manifest_missing") == [
        "package.json declares openclaw but openclaw.plugin.json is missing"
    ]


def test_openclaw_manifest_id_is_required(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"openclaw.plugin.json": {"configSchema": {}}}))
    assert messages(entry, "openclaw.manifest_invalid") == ["openclaw.plugin.json: id is required"]


def test_openclaw_reserved_id_is_rejected(tmp_path: Path) -> None:
    manifest = {"id": "node-mcp", "configSchema": {}}
    entry = inspect_package(write_tree(tmp_path, {"openclaw.plugin.json": manifest}))
    assert messages(entry, "openclaw.manifest_invalid") == [
        "openclaw.plugin.json: id 'node-mcp' is reserved"
    ]


def test_openclaw_config_schema_must_be_an_object(tmp_path: Path) -> None:
    for manifest, message in (
        ({"id": "p"}, "openclaw.plugin.json: configSchema is required"),
        (
            {"id": "p", "configSchema": True},
            "openclaw.plugin.json: configSchema must be an object (got a boolean)",
        ),
    ):
        entry = inspect_package(write_tree(tmp_path, {"openclaw.plugin.json": manifest}))
        assert messages(entry, "openclaw.manifest_invalid") == [message]


def test_openclaw_categories_must_be_known_slugs(tmp_path: Path) -> None:
    for bad in ([], ["memory", "memory"], ["nope"], ["web", "media", "voice", "research"]):
        manifest = {"id": "p", "configSchema": {}, "categories": bad}
        entry = inspect_package(write_tree(tmp_path, {"openclaw.plugin.json": manifest}))
        assert len(messages(entry, "openclaw.manifest_invalid")) == 1, bad


def test_openclaw_bad_optional_values_are_dropped_with_warning(tmp_path: Path) -> None:
    manifest = {
        "id": "p",
        "configSchema": {},
        "name": 7,
        "kind": "database",
        "channels": ["ok", 3],
        "contracts": {"tools": "memory_search"},
    }
    entry = inspect_package(write_tree(tmp_path, {"openclaw.plugin.json": manifest}))
    assert messages(entry, "openclaw.manifest_value_dropped") == [
        "openclaw.plugin.json: name must be a non-empty string (got a number)",
        "openclaw.plugin.json: kind must be memory or context-engine or an array of them "
        "(got a string)",
        "openclaw.plugin.json: channels[1] must be a non-empty string (got a number)",
        "openclaw.plugin.json contracts: tools must be an array of strings (got a string)",
    ]
    assert names(entry, "channel") == ["ok"] and names(entry, "tool") == []
    assert not [m for m in errors(entry) if "plugin.json" in m]


def test_openclaw_manifest_accepts_json5_comments_and_trailing_commas(tmp_path: Path) -> None:
    text = (
        '{\n  // the id\n  "id": "p", /* schema */ "configSchema": {},\n  "channels": ["a",],\n}\n'
    )
    entry = inspect_package(write_tree(tmp_path, {"openclaw.plugin.json": text, "index.js": ""}))
    assert entry.metadata["plugin_id"] == "p" and names(entry, "channel") == ["a"]
    assert errors(entry) == []


def test_openclaw_manifest_over_256k_is_rejected(tmp_path: Path) -> None:
    text = '{"id": "p", "configSchema": {}, "description": "' + "x" * 262_144 + '"}'
    entry = inspect_package(write_tree(tmp_path, {"openclaw.plugin.json": text}))
    assert messages(entry, "openclaw.manifest_invalid") == [
        "openclaw.plugin.json: over 262144 bytes"
    ]


def test_openclaw_skill_path_escaping_is_rejected(tmp_path: Path) -> None:
    manifest = {"id": "p", "configSchema": {}, "skills": ["../skills"]}
    entry = inspect_package(write_tree(tmp_path / "pkg", {"openclaw.plugin.json": manifest}))
    assert messages(entry, "package.path_escape") == [
        "openclaw.plugin.json skills[0]: '../skills' is absolute or leaves the package"
    ]


def test_openclaw_invalid_manifest_json_names_position(tmp_path: Path) -> None:
    entry = inspect_package(write_tree(tmp_path, {"openclaw.plugin.json": '{"id": }'}))
    (message,) = messages(entry, "package.json_invalid")
    assert message.startswith("openclaw.plugin.json: invalid JSON at line 1 column 8")
