"""The diagnostic codes of the command line: arguments, unknown package ids, refused
installs, ``gateway docs``, shell completion, token scopes and an unconfirmed
``gateway audit --load``.
"""

from __future__ import annotations

from gateway.base import Severity, define_code

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741

# Installing
INSTALL_REFUSED = define_code(
    "install.refused",
    E,
    "An install was refused: the source is not allowed (ext::, file://, credentials in a git "
    "URL), could not be fetched, breaks a limit (size, file count, a symlink leaving the "
    "package, a special file), or holds no package metadata.",
    "Read the message; nothing was installed and the previous version is intact.",
)
INSTALL_NAME_SHADOWED = define_code(
    "install.name_shadowed",
    W,
    "The package just installed has as its id a name another installed package answered to "
    "(an alias recorded at its install: its npm or plugin name): an id wins over an alias, so "
    "that name now means the new package.",
    "Reach the other package by its id (the message names it).",
)

# Arguments, ids, docs, completion, tokens
ARGUMENT_INVALID = define_code(
    "cli.invalid_argument",
    E,
    "A command-line argument cannot be used: empty where a folder, id or source is needed "
    "(an empty one would silently mean the current folder), not valid UTF-8, or JSON nested "
    "deeper than the gateway accepts.",
    "Give the argument explicitly; `.` names the current folder.",
)
DOCS_TOPIC_UNKNOWN = define_code(
    "docs.unknown_topic",
    E,
    "`gateway docs TOPIC` was given a topic the shipped documentation does not have; the "
    "message lists the topics.",
    "`gateway docs` lists the topics; give one of them (e.g. `gateway docs cli`).",
)
DOCS_MISSING = define_code(
    "docs.missing",
    E,
    "The installation ships no documentation: `gateway/_docs` is missing or empty (a wheel "
    "built without its package data, or a checkout without `docs/`).",
    "Reinstall extension-gateway (`pip install --force-reinstall extension-gateway`).",
)
COMPLETION_SHELL_UNKNOWN = define_code(
    "completion.unknown_shell",
    E,
    "`gateway completion` was given no SHELL, or `--install` without one and `$SHELL` names "
    "none of bash, zsh and fish.",
    "Name the shell: `gateway completion bash|zsh|fish [--install]`.",
)
COMPLETION_INSTALL_FAILED = define_code(
    "completion.install_failed",
    E,
    "`gateway completion --install` could not write the script where the shell looks for it "
    "(a folder that cannot be made, a read-only file system).",
    "Print it instead (`gateway completion SHELL > FILE`) and put it where your shell loads it.",
)
PACKAGE_UNKNOWN = define_code(
    "package.unknown",
    E,
    "A command that acts on installed packages was given an id no installed package has. "
    "With several ids nothing was changed: every id is checked before any is acted on.",
    "`gateway list --packages` (or `gateway status`) lists the installed ids.",
)
SERVE_TOKEN_SCOPE = define_code(
    "serve.token_scope",
    E,
    "`gateway token create --package ID` names a package that is not installed in this "
    "gateway home: the token would see nothing of it.",
    "Install the package first, or check the id with `gateway status`.",
)

# gateway audit --load
LOAD_UNCONFIRMED = define_code(
    "audit.load_unconfirmed",
    E,
    "`--load` runs package code (in a throwaway sandbox) and needs confirmation: there was "
    "no terminal to ask, or the answer was no.",
    "Pass `--yes` to confirm in advance.",
)

# The warm session (docs/session.md)
SESSION_UNREACHABLE = define_code(
    "cli.session_unreachable",
    W,
    "`gateway list`, `call` or `command` could not use the workspace's warm session: it did "
    "not start, stopped answering, or its folder or socket is not this user's alone "
    "(GATEWAY_HOME/run must be a 0700 folder of the user's; the socket's peer must be the "
    "same user). The command ran one-shot, as without a session.",
    "`gateway session status` shows the sessions; the session log is "
    "GATEWAY_HOME/logs/session.log. GATEWAY_SESSION=off runs every command one-shot.",
)
