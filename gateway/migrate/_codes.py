"""The diagnostic codes of ``gateway migrate``. ``docs/diagnostics.md`` documents each one;
``MIGRATION.md`` names them for what did not carry over."""

from __future__ import annotations

from gateway.base import Severity, define_code

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741

MIGRATE_SOURCE_UNUSABLE = define_code(
    "migrate.source_unusable",
    E,
    "`gateway migrate PKG`: PKG could not be fetched, or is not a package any adapter reads.",
    "Name a package folder, a tarball, an npm spec, a git URL or an installed id.",
)
MIGRATE_OUT_NOT_EMPTY = define_code(
    "migrate.out_not_empty",
    E,
    "`--out DIR` exists and is not empty; nothing was written.",
    "Choose another folder, or pass `--force` to replace its contents.",
)
MIGRATE_TARGET_UNSUPPORTED = define_code(
    "migrate.target_unsupported",
    E,
    "The package's ecosystem has no form in the target (e.g. a nimlet extension as a "
    "`nanobot-manifest` package: that format runs python, pi and openclaw runtimes only).",
    "Choose another target: `nanobot`, `nimlet`, `mcp` and `agent-plugin` run any package the "
    "gateway runs.",
)
MIGRATE_INSTALLED = define_code(
    "migrate.installed",
    I,
    "The migrated output runs the package through `gateway serve`, which serves installed "
    "packages: it was installed into the gateway home (install runs no package code).",
    "Pass its remaining gates before use (MIGRATION.md lists them).",
)
MIGRATE_GATES_PENDING = define_code(
    "migrate.gates_pending",
    W,
    "The package the output serves has not passed its gates (trust, permissions, enable), so "
    "the output offers nothing until it has.",
    "Run the commands MIGRATION.md lists: `gateway permissions`, `gateway trust`, "
    "`gateway enable`.",
)
MIGRATE_CONTRIBUTIONS_UNKNOWN = define_code(
    "migrate.contributions_unknown",
    W,
    "The package's tools, commands and hooks exist only once its code runs, nothing was run "
    "(no `--load`) and no earlier run was recorded, so the output cannot list them.",
    "Run `gateway migrate … --load` (a throwaway sandboxed load), or start the package once "
    "(e.g. `gateway list`) so its registration is recorded.",
)
MIGRATE_NOT_CARRIED = define_code(
    "migrate.not_carried",
    W,
    "A contribution the target has no place for (an event beyond the target's, a theme, a "
    "channel or provider, a negotiated protocol addition) does not carry over; MIGRATION.md "
    "names each.",
    "Nothing to fix in the package; see docs/migrate.md for what each target carries.",
)
MIGRATE_NAME_ADJUSTED = define_code(
    "migrate.name_adjusted",
    I,
    "The package's name does not fit the target's naming rule (Agent Plugins and released "
    "nanobot's plugin `name`, a `nanobot-manifest` `id`), so the output uses an adjusted one.",
    "Nothing to do: the note (and MIGRATION.md) gives the name the output uses; refer to the "
    "plugin by it.",
)
MIGRATE_NAME_RENAMED = define_code(
    "migrate.name_renamed",
    W,
    "A name the package chose (a skill's, a prompt template's, its own) becomes a file or "
    "folder name in the output, and as it is it would not be one harmless name (`..`, a path "
    "separator, an absolute path, NUL or control characters, empty, over 255 bytes, a Windows "
    "device name such as `CON` or `NUL`): it is written under an encoded name, "
    "`<readable part>-<8 hex digits>`, which MIGRATION.md gives.",
    "Nothing to do for the output; rename it in the package to keep its name.",
)
MIGRATE_NAME_REFUSED = define_code(
    "migrate.name_refused",
    W,
    "A contribution is left out because its file or folder name cannot be written: it is the "
    "same file as one written before (names that differ only in case or Unicode form are one "
    "file on macOS and Windows), the target needs the name as it is and it is not a harmless "
    "one (an Agent Skills folder named `con`), or the path would leave the output folder "
    "through a symlink. Nothing is overwritten and nothing is written outside `--out`.",
    "Rename one of the clashing contributions (or files) in the package; remove a symlink "
    "from the output folder.",
)
MIGRATE_LOAD_FAILED = define_code(
    "migrate.load_failed",
    W,
    "`--load`: the throwaway load did not complete (the package failed to start, the sandbox "
    "could not be made, or it ran out of time); the output lists only what is declared.",
    "Read the message; `gateway list` on an installed copy shows the same start failure.",
)
MIGRATE_LOAD_UNCONFINED = define_code(
    "migrate.load_unconfined",
    W,
    "`--load`: this kernel cannot confine the throwaway load (no Landlock), so it ran with a "
    "private home and workspace only — or, with `GATEWAY_REQUIRE_SANDBOX=1`, not at all.",
    "Use a kernel with Landlock (Linux 5.13+), or migrate without `--load`.",
)
MIGRATE_OUTPUT_INVALID = define_code(
    "migrate.output_invalid",
    E,
    "A file the migration wrote does not pass the target's own validation (the strict nanobot "
    "reader, the Agent Plugins 1.0 schema); the output is incomplete.",
    "Report it: this is a gateway bug. The message names the file and the rule.",
)
