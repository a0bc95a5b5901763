"""The diagnostic codes of ``gateway audit``: the generic answers of a report's cells, the
risk signals of the code scan, and what can go wrong while auditing."""

from __future__ import annotations

from gateway.base import Severity, define_code

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741

# Cells: answers shared by every host
RUNS = define_code(
    "audit.runs",
    I,
    "The host runs the contribution with its ecosystem's semantics.",
    "Nothing to do.",
)
FOREIGN_PACKAGE = define_code(
    "audit.foreign_package",
    I,
    "The host does not load packages of the package's ecosystem, so none of its "
    "contributions reach that host.",
    "Run it through the gateway, or port it (a manifest of that ecosystem).",
)
NOT_APPLICABLE = define_code(
    "audit.not_applicable",
    I,
    "The host has no such kind of contribution (e.g. channels in nimlet).",
    "Nothing to do.",
)
LISTED_ONLY = define_code(
    "audit.listed_only",
    I,
    "The host reads and lists the contribution; nothing of it executes.",
    "Nothing to do if metadata is all you need.",
)
NOT_REGISTERED = define_code(
    "audit.not_registered",
    I,
    "A declared or inferred contribution was not registered when the package was loaded "
    "(`--load`): it is registered later, only with some configuration, or never.",
    "Configure the package as it needs, or read its code; the row says what the host does "
    "once it is registered.",
)

# Risk signals of the code scan (heuristics over text; nothing runs)
INSTALL_SCRIPT = define_code(
    "audit.install_script",
    W,
    "The package or one of its bundled dependencies declares npm install scripts "
    "(preinstall, install, postinstall, prepare). The gateway never runs them; other hosts "
    "may (Pi runs npm install without --ignore-scripts).",
    "Read the script before installing the package elsewhere.",
)
NATIVE_ADDON = define_code(
    "audit.native_addon",
    W,
    "The package ships or builds a native addon (a .node file, binding.gyp, node-gyp-build, "
    "a Python extension module): compiled code no text scan can read.",
    "Trust its publisher, or audit the native sources.",
)
CHILD_PROCESS = define_code(
    "audit.child_process",
    W,
    "The package's code starts programs (child_process, subprocess, os.system).",
    "Check what it runs; the gateway's sandbox confines what those programs can reach.",
)
NETWORK = define_code(
    "audit.network",
    I,
    "The package's code uses the network (fetch, http, sockets, an HTTP client library).",
    "Grant `network` only if that is expected: `gateway permissions ID network`.",
)
FILESYSTEM = define_code(
    "audit.filesystem",
    I,
    "The package's code writes files or reads the user's home folder.",
    "Check where; the sandbox keeps the home out of reach and the workspace read-only "
    "unless granted.",
)
DYNAMIC_CODE = define_code(
    "audit.dynamic_code",
    W,
    "The package's code evaluates strings as code (eval, new Function, exec/compile of "
    "strings), so what it runs cannot be read statically.",
    "Read the call sites.",
)
MINIFIED = define_code(
    "audit.minified",
    I,
    "A code file is minified (very long lines): reviewing it by eye is impractical.",
    "Review the unminified sources, if the publisher ships them.",
)
OBFUSCATED = define_code(
    "audit.obfuscated",
    W,
    "A code file looks obfuscated (hex-named identifiers, long escaped strings, "
    "eval of decoded text).",
    "Do not trust it without its sources.",
)
UNDECLARED_SECRET = define_code(
    "audit.undeclared_secret",
    W,
    "The code reads an environment variable that looks like a secret (a key, token or "
    "password) that the package does not declare; a host that passes only declared "
    "secrets will not give it one.",
    "Declare it (nanobot `environment` dependency, Nu `secrets`, OpenClaw `setup.providers`) "
    "or set it in the package's configuration.",
)
SCAN_TRUNCATED = define_code(
    "audit.scan_truncated",
    I,
    "The code scan stopped at its file or byte budget; later files were not read.",
    "Nothing to do; the report covers what was read.",
)

# Running an audit
FETCH_FAILED = define_code(
    "audit.fetch_failed",
    E,
    "A package of the audit could not be fetched or read (a missing folder, an npm or git "
    "error, an unsafe archive). The batch goes on; the package is a row with this reason.",
    "Check the source; run `gateway audit SRC` alone for the full message.",
)
LOAD_FAILED = define_code(
    "audit.load_failed",
    W,
    "The observed load (`--load`) could not start the package's runtime, or it stopped "
    "before registering. The report keeps the static rows.",
    "Read the message; the package's own log lines are in it.",
)
LOAD_UNAVAILABLE = define_code(
    "audit.load_unavailable",
    I,
    "The observed load has nothing to start: the gateway has no runtime for the package "
    "(e.g. Nu), or it has no code.",
    "Nothing to do; the static rows stand.",
)
LOAD_UNCONFIRMED = define_code(
    "audit.load_unconfirmed",
    E,
    "`--load` runs package code (in a throwaway sandbox) and needs confirmation: there was "
    "no terminal to ask, or the answer was no.",
    "Pass `--yes` to confirm in advance.",
)
LOAD_UNCONFINED = define_code(
    "audit.load_unconfined",
    W,
    "The observed load ran without some of the sandbox's protections, which this kernel "
    "cannot enforce (the private home and environment still applied).",
    "Audit on a kernel with Landlock, or only load packages you would run anyway.",
)
LOAD_REQUEST = define_code(
    "audit.load_request",
    I,
    "While it loaded, the package asked the host for something (a question, a host "
    "request, an update); the audit answered no and recorded it.",
    "Nothing to do; it shows what the package does at start.",
)
