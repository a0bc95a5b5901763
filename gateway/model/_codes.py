"""The diagnostic codes of the model: manifests, discovery roots, skills and prompts, the
registry's collision rules, hooks and session files.
"""

from __future__ import annotations

from gateway.base import Severity, define_code

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741

# Manifests and discovery
MANIFEST_UNREADABLE = define_code(
    "manifest.unreadable",
    W,
    "An extension.json or tool.json could not be read or is not valid JSON.",
    "Fix the JSON syntax; the extension is skipped until then.",
)
MANIFEST_INVALID = define_code(
    "manifest.invalid",
    W,
    "A manifest is missing a required field or a field has the wrong type "
    "(e.g. `skipping PATH: missing name`).",
    "Add or correct the named field.",
)
WORKSPACE_UNTRUSTED = define_code(
    "workspace.untrusted",
    I,
    "The workspace has project extensions, tools, skills or prompts, but is not trusted, "
    "so they were not loaded.",
    "Run `gateway trust DIR` or pass `--trust` for one run.",
)
RESOURCE_OVERRIDDEN = define_code(
    "resource.overridden",
    I,
    "A skill, prompt template or tool.json tool of a later root replaced one of the same name "
    "from an earlier root.",
    "Nothing to do if intended; rename one of them otherwise.",
)
SKILL_INVALID = define_code(
    "skill.invalid",
    W,
    "A SKILL.md could not be read or its front matter is malformed.",
    "Fix the front matter (`name`, `description`) of the named file.",
)
PROMPT_INVALID = define_code(
    "prompt.invalid",
    W,
    "A prompt template could not be read or its front matter is malformed.",
    "Fix the named file.",
)

# Registry and events
TOOL_BUILTIN_NAME = define_code(
    "registry.builtin_name",
    W,
    "An extension registered a tool with a built-in name (ask_user bash edit git glob grep "
    "read read_skill write); the tool was skipped.",
    "Rename the tool.",
)
TOOL_OVERRIDDEN = define_code(
    "registry.tool_overridden",
    W,
    "Two extensions registered a tool with the same name; the later one in load order wins "
    "(of two Pi packages, the first), whatever order they started in.",
    "Rename one of the tools, or remove one extension.",
)
COMMAND_OVERRIDDEN = define_code(
    "registry.command_overridden",
    W,
    "Two sources registered the same command (names compare case-insensitively); the later "
    "one in load order wins, whatever order they started in.",
    "Rename one of the commands.",
)
COMMAND_RENAMED = define_code(
    "registry.command_renamed",
    I,
    "Two or more packages of an ecosystem that keeps every duplicate command (Pi) registered "
    "the same command, each in its own process; each is kept with a load-order suffix "
    "(/name:1, /name:2), as Pi does in one process.",
    "Invoke the suffixed name (`gateway list` shows them); the load order is install order "
    "(`gateway prefer` decides who owns a name, not these numbers).",
)
HOOK_FAILED = define_code(
    "hook.failed",
    W,
    "A hook subscriber crashed, timed out or replied with a malformed field; the event went "
    "on without its contribution (fail-open).",
    "Read the message and the extension log.",
)

# Sessions
SESSION_FILE_CORRUPT = define_code(
    "session.file_corrupt",
    W,
    "A line of a session file could not be read on resume; it was skipped.",
    "The session file is JSON lines; repair or remove the named line.",
)

# Sessions, continued
SESSION_ENTRIES_DROPPED = define_code(
    "session.entries_dropped",
    W,
    "An extension wrote more session entries than the cap (10,000 per session), one larger "
    "than 256 KiB, or one that is not JSON; those were dropped. Reported once per session; "
    "the count is written to the session file when it closes.",
    "Keep entries small and few: they are state for resuming, not a log.",
)
