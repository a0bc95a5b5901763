"""The diagnostic codes of packages: ``gateway lock`` and ``gateway sync``, the state store,
installs and updates, the activation gates, and the grant to act on another package's tool
(``hooks.rewrite``).
"""

from __future__ import annotations

from gateway.base import Severity, define_code

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741

LOCK_INVALID = define_code(
    "lock.invalid",
    E,
    "A lockfile could not be read, is not JSON, is not a lockfile of a version this gateway "
    "knows, or a field has the wrong type or an unsafe value (a package id that is not one, a "
    "relative local path, a git URL that install refuses); nothing was changed.",
    "Regenerate it with `gateway lock`, or fix the field the message names.",
)
LOCK_WRITE_FAILED = define_code(
    "lock.write_failed",
    E,
    "`gateway lock` could not write the lockfile (the folder is missing or not writable); "
    "any previous lockfile there is intact.",
    "Choose another place with `--out PATH`.",
)
LOCK_SOURCE_MISSING = define_code(
    "lock.source_missing",
    E,
    "A package the lockfile installs from a local folder, a tarball or a git repository on "
    "disk comes from a path that does not exist on this machine; nothing was changed.",
    "Put the package at that path, or install it by hand and run `gateway lock` again.",
)
LOCK_FETCH_FAILED = define_code(
    "lock.fetch_failed",
    E,
    "A package the lockfile names could not be fetched or installed from its recorded source "
    "(the message says why); nothing was changed.",
    "Fix what the message names (network, registry, the source) and sync again.",
)
LOCK_INTEGRITY_MISMATCH = define_code(
    "lock.integrity_mismatch",
    E,
    "A package fetched from its recorded source is not what the lockfile recorded: another "
    "content hash, version or package id, or an npm tarball whose `dist.integrity` differs "
    "from the locked one. Sync refused; nothing was changed.",
    "Someone changed the source since the lockfile was made. Inspect it; if the change is "
    "wanted, install it and run `gateway lock` again.",
)
LOCK_NEEDS_RESOLVING = define_code(
    "lock.needs_resolving",
    E,
    "`gateway sync --frozen` would have to resolve a source (an npm spec that is not an exact "
    "version, a git source without its commit); nothing was changed.",
    "Sync without `--frozen`, or record the exact version or commit in the lockfile.",
)
LOCK_GRANT_REFUSED = define_code(
    "lock.grant_refused",
    E,
    "`gateway sync --accept` would grant a package a permission it does not request and the "
    "sandbox does not offer; nothing was changed.",
    "Remove the permission from the lockfile, or make the lockfile again where it is granted.",
)
LOCK_DECISIONS_PENDING = define_code(
    "lock.decisions_pending",
    W,
    "The lockfile records trust, grants, enabled state or a process group that this home does "
    "not have; `gateway sync` applies them only with `--accept`.",
    "Read the differences, then `gateway sync --accept`.",
)
LOCK_HOME_DIFFERS = define_code(
    "lock.home_differs",
    E,
    "`gateway sync --frozen`: the home would not (or does not) match the lockfile exactly "
    "afterwards, e.g. trust or grants left unapplied without `--accept`.",
    "Sync with `--accept`, or without `--frozen`.",
)
LOCK_PINS_DIFFER = define_code(
    "lock.pins_differ",
    W,
    "A package trusted both here and in the lockfile has other pinned tool definitions here "
    "(`GATEWAY_HOME/pins`) than the lockfile's `tools`: a tool pinned with another digest, "
    "pinned only in the lockfile, or only here. `gateway sync --frozen` refuses (nothing "
    "changed); `gateway sync` leaves this home's pins unless `--accept`.",
    "`gateway sync --accept` makes them the lockfile's (a tool whose definition differs is "
    "then held back); or `gateway lock` again if this home's pins are the ones wanted.",
)
LOCK_ACCEPTED_TEXT_DIFFERS = define_code(
    "lock.accepted_text_differs",
    W,
    "A package trusted both here and in the lockfile has other text accepted for the model "
    "here (`gateway trust ID --accept-text`) than the lockfile's `accepted_text`. `gateway "
    "sync --frozen` refuses (nothing changed); `gateway sync` leaves it unless `--accept`.",
    "`gateway sync --accept` makes it the lockfile's (text accepted only here is held back "
    "again); or `gateway lock` again if this home's acceptance is the one wanted.",
)
LOCK_CONFIG_DIFFERS = define_code(
    "lock.config_differs",
    I,
    "A package's configuration file here is not the one the lockfile recorded (by digest; "
    "configurations may hold keys and are never written to a lockfile, so sync cannot copy "
    "them).",
    "Set it with `gateway config ID KEY VALUE` if it should match.",
)

HOOK_REWRITE_REFUSED = define_code(
    "hook.rewrite_refused",
    W,
    "A `tool_call` or `tool_result` hook changed the arguments or the result of a tool its "
    "package does not own (another package's, the agent's own, or one of the host in front "
    "of `serve --nimlet`) without the permission `hooks.rewrite`; the change was dropped and "
    "the call went on as the earlier hooks left it (a block still counts).",
    "Read the package's hooks; if it should act on other packages' tools, grant it: "
    "`gateway permissions ID hooks.rewrite`.",
)
HOOK_REWRITE_GRANT = define_code(
    "hook.rewrite_grant",
    I,
    "Said at install and trust for a package with `tool_call` or `tool_result` hooks, or "
    "holding `hooks.rewrite`: whether its hooks may change other packages' tool calls and "
    "results, or only its own.",
    "Grant or revoke `hooks.rewrite` with `gateway permissions ID`.",
)

# State store
STORE_UNUSABLE = define_code(
    "store.unusable",
    E,
    "The state store under GATEWAY_HOME is corrupt, written by a newer gateway, or locked "
    "for too long; it was left untouched and treated as empty for this run (nothing trusted).",
    "Follow the message: restore or move the file aside, or upgrade the gateway.",
)

# Install, update and the activation gates
PACKAGE_CHANGED = define_code(
    "gate.content_changed",
    W,
    "An installed package's files changed since it was trusted (or a reinstall brought "
    "different content); its trust was revoked.",
    "Inspect the package, then `gateway trust ID` again if the change is yours.",
)
UPDATE_PERMISSIONS_GREW = define_code(
    "update.permissions_grew",
    W,
    "`gateway update` installed a newer version of a trusted package that requests "
    "permissions the installed one did not; its trust was revoked (an update whose "
    "permissions did not grow keeps its trust).",
    "Inspect the package, grant what it needs (`gateway permissions ID PERM…`), then "
    "`gateway trust ID`.",
)
GATE_UNTRUSTED = define_code(
    "gate.untrusted",
    I,
    "An installed package is not trusted, so nothing of it runs.",
    "`gateway inspect ID`, then `gateway trust ID`.",
)
GATE_PERMISSION_MISSING = define_code(
    "gate.permission_missing",
    W,
    "An installed package requests permissions that are not granted; it stays inactive.",
    "`gateway permissions ID PERM…` grants them (the reasons are in `gateway inspect ID`).",
)
GATE_DEPENDENCY_MISSING = define_code(
    "gate.dependency_missing",
    W,
    "A hard dependency of an installed package is not met (python distribution or version, "
    "npm module, executable on PATH, environment variable, another package); it stays inactive.",
    "Install or set what the message names; optional dependencies never block.",
)
GATE_DISABLED = define_code(
    "gate.disabled",
    I,
    "An installed package is disabled (new installs start disabled).",
    "`gateway enable ID`.",
)
GATE_BLOCKED = define_code(
    "gate.blocked",
    W,
    "An installed package depends on another package that is not active.",
    "Activate the named dependency first.",
)
GATE_DEPENDENCY_CYCLE = define_code(
    "gate.dependency_cycle",
    E,
    "Installed packages depend on each other in a cycle (optional edges excepted); none of "
    "them is activated.",
    "Break the cycle: make one edge optional or remove a package.",
)
RUNTIME_UNAVAILABLE = define_code(
    "runtime.unavailable",
    W,
    "A package passed every gate, but the runtime it needs is not available: the Node "
    "sidecar's modules are not installed (or were installed for another version of the "
    "gateway), no Node new enough was found, or the runtime is not built yet (OpenClaw, Nu); "
    "it was not started.",
    "Run `gateway setup` when the message names it; otherwise the runtime comes in a later "
    "release and `gateway inspect` shows the package's metadata meanwhile.",
)
INSTALL_NATIVE_ADDON_UNBUILT = define_code(
    "install.native_addon_unbuilt",
    W,
    "A dependency of the installed package builds its native addon when it is installed "
    "(binding.gyp) and holds no prebuilt binary for this platform; install scripts never run "
    'here, so loading the package fails ("Failed to load native module").',
    "Install a version of the package (or of that dependency) that ships a prebuilt binary "
    "for this platform; the gateway does not build native code for a package.",
)
INSTALL_ID_TAKEN = define_code(
    "install.id_taken",
    E,
    "An install was refused: its package has the id of an installed package of another "
    "ecosystem or from another source (another folder, git repository, npm name or "
    "marketplace). One id names one package, so one would replace the other; nothing was "
    "installed and the installed package is untouched. Reinstalling from the same source "
    "(its ref or version aside) refreshes the package as before.",
    "`gateway install SRC --replace` replaces it (a new package: the old one's trust, grants "
    "and secrets do not carry over), or `gateway uninstall ID` first.",
)
ARCHIVE_DIGEST_MISMATCH = define_code(
    "install.archive_digest_mismatch",
    E,
    "An archive a collection names (a Claude Code marketplace's `archive` source) was "
    "downloaded from its URL and its SHA-256 is not the one the collection pins: nothing of "
    "it was unpacked and nothing was installed.",
    "The archive at that URL changed or the pin is wrong: ask the marketplace's maintainer, "
    "or install the plugin from another source.",
)
REQUIREMENT_UNRESOLVED = define_code(
    "package.requirement_unresolved",
    W,
    "`gateway install COLLECTION#NAME` installed the package, but not a package it names "
    "as a dependency (a Claude Code plugin's `dependencies`): the collection offers none of "
    "that name, the one it offers has a version outside the dependency's range, it names "
    "another marketplace (which the gateway cannot reach: it knows marketplaces by location, "
    "not by name), or its install failed. The package is installed and held by the "
    "activation gates until the dependency is installed and ready.",
    "Install the dependency yourself (the message names it and where it was looked for), or "
    "ask the package's author to widen the range.",
)
REQUIREMENT_VERSION_UNSATISFIED = define_code(
    "package.requirement_version_unsatisfied",
    W,
    "A package the installed package names as a dependency is installed already, at a "
    "version outside the dependency's range; it is kept as it is (another package may rely "
    "on it), not replaced.",
    "Install a version in the range (`gateway install COLLECTION#NAME`) if nothing else "
    "needs the installed one.",
)
