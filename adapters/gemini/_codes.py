"""The diagnostic codes of Gemini CLI extensions: ``gemini-extension.json``, its MCP
servers, context files, TOML commands, and what a headless host does not do of them."""

from __future__ import annotations

from gateway.base import Severity, define_code

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

GEMINI_MANIFEST_INVALID = define_code(
    "gemini.manifest_invalid",
    ERROR,
    "gemini-extension.json is not what Gemini CLI loads: not a JSON object, no `name` or "
    "`version`, or a name outside a-z A-Z 0-9 - (Gemini CLI skips the whole extension).",
    "Fix gemini-extension.json as the message says (`gemini extensions validate DIR` agrees).",
)
GEMINI_FIELD_IGNORED = define_code(
    "gemini.field_ignored",
    INFO,
    "gemini-extension.json has a field Gemini CLI's ExtensionConfig does not define, one "
    "that only steers Gemini CLI's own update or planning (`migratedTo`, `plan`), or one of "
    "another type than ExtensionConfig's (Gemini CLI does not check; a warning); ignored.",
    "Nothing to do, or remove the field.",
)
GEMINI_UNSUPPORTED = define_code(
    "gemini.unsupported",
    WARNING,
    "A part of the extension only Gemini CLI's own interface or model loop can use: "
    "`themes` (terminal colours), `excludeTools` (hides Gemini CLI's built-in tools), "
    "`agents/` (sub-agents), `policies/` (Gemini's policy engine), a server's "
    "`trust`, `oauth` or Google auth provider. It is listed, not applied.",
    "Nothing to fix for the gateway; the rest of the extension runs.",
)
GEMINI_SERVER_INVALID = define_code(
    "gemini.server_invalid",
    WARNING,
    "One `mcpServers` entry is not a Gemini CLI MCPServerConfig (not an object, no `command`, "
    "`url`, `httpUrl` or `tcp`, a field of the wrong type, a command that is not on PATH nor "
    "inside the extension); that server is skipped, the others are read.",
    "Fix the named server's entry.",
    lasting=True,
)
GEMINI_REMOTE_SERVER = define_code(
    "gemini.remote_server",
    WARNING,
    "A `url`, `httpUrl` or `tcp` MCP server: listed, not connected (the plugin host starts "
    "stdio servers; it has no network by default).",
    "Run the server as a stdio command, or use it from Gemini CLI.",
)
GEMINI_SETTING_NOT_SUPPLIED = define_code(
    "gemini.setting_not_supplied",
    WARNING,
    "A setting the extension declares (`settings[].envVar`, which Gemini CLI asks for at "
    "install) has no value stored for the package; its servers start without it and `$VAR` "
    "references to it stay as written.",
    "Store it: `gateway secret set PACKAGE ENVVAR`.",
)
GEMINI_CONTEXT_MISSING = define_code(
    "gemini.context_missing",
    INFO,
    "A context file `contextFileName` names (default GEMINI.md) does not exist; Gemini CLI "
    "drops it at load (`gemini extensions validate` calls it an error).",
    "Add the file or remove it from `contextFileName`.",
)
GEMINI_CONTEXT_INVALID = define_code(
    "gemini.context_invalid",
    WARNING,
    "A `contextFileName` entry Gemini CLI 0.61 refuses and drops (the extension loads): "
    "empty, absolute, holding `..` (also URI-encoded) or a NUL, or outside the extension.",
    "Name the context file by a path relative to the extension's folder.",
)
GEMINI_COMMAND_INVALID = define_code(
    "gemini.command_invalid",
    WARNING,
    "A `commands/**/*.toml` file is not valid TOML or has no string `prompt` (or a "
    "`description` that is not a string); Gemini CLI skips it, and so does the gateway.",
    "Fix the file as the message says.",
)
GEMINI_COMMAND_INJECTION_NOT_RUN = define_code(
    "gemini.command_injection_not_run",
    WARNING,
    "A command's prompt holds `!{...}` (a shell command Gemini CLI runs, after asking, and "
    "whose output it injects) or `@{...}` (a file it injects). The gateway does not run or "
    "read them: the text is kept as written and the command says so.",
    "Put what the shell command computes in an MCP tool of the extension.",
)
