"""The diagnostic codes of ``gateway audit``: the generic answers of a report's cells, the
risk signals of the code scan, and what can go wrong while auditing."""

from __future__ import annotations

from gateway.base import Severity, define_code

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741

# Cells: answers shared by every host
AUDIT_RUNS = define_code(
    "audit.runs",
    I,
    "The host runs the contribution with its ecosystem's semantics.",
    "Nothing to do.",
)
AUDIT_FOREIGN_PACKAGE = define_code(
    "audit.foreign_package",
    I,
    "The host does not load packages of the package's ecosystem, so none of its "
    "contributions reach that host.",
    "Run it through the gateway, or port it (a manifest of that ecosystem).",
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
    "(preinstall, install, postinstall; the package's own prepare, which npm runs only for "
    "git and folder installs, is information). The gateway never runs them; other hosts "
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
    I,
    "The package's code starts programs (child_process, subprocess, os.system, os.fork and "
    "os.exec*, or the host's own command runners: Pi's pi.exec, OpenClaw's "
    "runCommandWithTimeout). Many packages exist to run commands; alone it is information.",
    "Check what it runs; the gateway's sandbox confines what those programs can reach.",
)
ENV_DUMP = define_code(
    "audit.env_dump",
    I,
    "The package's code reads the whole environment (os.environ iterated or copied, "
    "process.env spread, JSON.stringify(process.env), Object.entries(process.env)) other "
    "than to hand it to a program it starts. With the network in the same package it is "
    "audit.exfiltration.",
    "Check where it goes; a package gets only the variables passed to it (env:NAME).",
)
EXFILTRATION = define_code(
    "audit.exfiltration",
    W,
    "The package can send what it should not have: it reads the whole environment or "
    "credential files and uses the network, or it posts to a known collection endpoint "
    "(a Discord webhook, webhook.site, a request bin, an ngrok or OAST host).",
    "Do not install it unless the code proves otherwise; never grant it `network`.",
)
CREDENTIAL_FILES = define_code(
    "audit.credential_files",
    W,
    "The package's code names credential files: ~/.ssh keys, ~/.aws/credentials, "
    ".git-credentials, .netrc, .npmrc, .pypirc, Cargo's credentials, Docker or Kubernetes "
    "configuration.",
    "A tool rarely needs them; the sandbox keeps the home out of reach.",
)
REVERSE_SHELL = define_code(
    "audit.reverse_shell",
    W,
    "The package's code wires a shell to a network connection (a socket's descriptors "
    "duplicated onto a shell, bash's /dev/tcp, nc -e, a spawned shell piped to a socket).",
    "Do not install it.",
)
PERSISTENCE = define_code(
    "audit.persistence",
    W,
    "The package's code writes where programs start by themselves: shell rc files, "
    "crontab, autostart folders, LaunchAgents, systemd user units, authorized_keys.",
    "Do not install it; the sandbox refuses those writes.",
)
DELAYED_TRIGGER = define_code(
    "audit.delayed_trigger",
    W,
    "The package's code acts only after a date or a long timer (a time bomb): a comparison "
    "with a literal date, or a timer of a day or more, in a file that starts programs, "
    "evaluates code, uses the network or writes files. Alone (no such action in the file) "
    "it is information.",
    "Read what the timer or the date check runs.",
)
ENCODED_PAYLOAD = define_code(
    "audit.encoded_payload",
    W,
    "The package's code decodes a payload (base64, hex, zlib, character codes) and evaluates "
    "it as code, runs or sends it, or imports code from a `data:` URL.",
    "Do not trust it; decode the payload by hand to see what it runs.",
)
REMOTE_CODE = define_code(
    "audit.remote_code",
    W,
    "The package downloads code and runs it (curl or wget piped to a shell, eval of a "
    "fetched response).",
    "Do not install it: what runs is whatever the server sends that day.",
)
PROMPT_INJECTION = define_code(
    "audit.prompt_injection",
    W,
    "Text the package gives a model (a tool's description, a skill, a prompt, its "
    "manifest) tells it to ignore its instructions, hide something from the user, or read "
    "or send secrets.",
    "Do not install it; a model reads descriptions as instructions.",
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
    I,
    "The code reads an environment variable that looks like a secret (a key, token or "
    "password) that the package does not declare; a host that passes only declared "
    "secrets will not give it one. Information: the gateway passes a variable only as the "
    "user grants it (env:NAME).",
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
TYPOSQUAT = define_code(
    "audit.typosquat",
    W,
    "A dependency of the package is named one typo away from a popular npm or PyPI package "
    "(a letter added, dropped, changed or two swapped: `expresss`, `lodahs`) — how "
    "typosquatting malware is installed; the package's own name so close is information.",
    "Check the dependency's name against the package it meant; fix the name if it is a typo.",
)
CODE_HOSTS = define_code(
    "audit.code_hosts",
    I,
    "The hosts the URLs in the package's reachable code name (`http`, `https`, `ws`, `wss`; "
    "read from the text, not observed): what a `network:HOST` grant would open for it. In "
    "SARIF one result per package, the hosts in its `properties.hosts`.",
    "Grant `network:HOST` for the hosts it needs rather than `network`.",
)
