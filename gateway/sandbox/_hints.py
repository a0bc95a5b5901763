"""What a package's code appears to need beyond the sandbox's defaults, and what a refusal
inside the sandbox meant.

Both are heuristics over text, said as such: ``grant_hints`` reads the package's source
files — its own first, then its bundled dependencies', within a byte budget; it runs
nothing — for network use, file writes and reads of the user's home; ``explain_denial``
recognises the error lines Node and Python print when the kernel refuses an open, a connect
or a socket, and names the grant that would allow it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gateway.base import Diagnostic
from gateway.sandbox import _codes
from gateway.sandbox._destinations import is_wide_network, normal_host
from gateway.sandbox._exceeded import explain_limit
from gateway.sandbox._policy import SandboxPolicy
from gateway.sandbox._reachable import reachable_sources
from gateway.sandbox._support import detect_support

__all__ = ["explain_denial", "grant_hints"]

_SOURCES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx", ".py")
_SKIP = {
    ".git", "__pycache__", ".venv", "dist-types", "test", "tests", "__tests__", "spec",
    "docs", "doc", "example", "examples", "fixtures", "benchmark", "benchmarks",
}  # fmt: skip
_NOT_RUN = re.compile(r"\.d\.[cm]?ts$|[._-](?:test|spec)\.[cm]?[jt]sx?$|^test_\w*\.py$|_test\.py$")
_MAX_FILES = 5_000
_MAX_FILE_BYTES = 512 * 1024
_MAX_BYTES = 32 * 1024 * 1024

_URL_HOST = re.compile(r"\b(?:https?|wss?)://([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,63})\b")
_MAX_HOSTS = 8
_PLACEHOLDER_DOMAINS = ("example.com", "example.net", "example.org")
_PLACEHOLDER_TLDS = frozenset({"example", "invalid", "test", "localhost"})
_MAX_OFFERED = 3
_NET_MODULES = r"(?:node:)?(?:https?|http2|net|tls|dgram)|undici|axios|node-fetch|got|ws|ky"
_PY_NET = r"requests|httpx|aiohttp|urllib3|urllib\.request|socket|http\.client|websockets"


@dataclass(frozen=True, slots=True)
class _Pattern:
    permission: str | None
    what: str
    regexes: tuple[re.Pattern[str], ...]
    """Alternatives of one pattern; the match is the leftmost of theirs (no two can start
    at one place)."""

    def search(self, text: str) -> re.Match[str] | None:
        found = [m for m in (regex.search(text) for regex in self.regexes) if m is not None]
        return min(found, key=lambda m: m.start(), default=None)


# Each alternative starts with a literal character, so that ``re`` skips to the characters
# that can start a match instead of trying every position: a word's leading ``\b`` is written
# as a lookbehind after its first letter (``f(?<!\w.)etch`` is ``\bfetch``). 3.2 -> 0.5 s of
# CPU for the file-writes pattern over the 26 MB of the repository's real npm packages'
# code (tests/sandbox/test_hint_patterns.py holds the plain forms and compares them).
_B = r"(?<!\w.)"
_FS_CALL = r"(?:writeFile|appendFile|mkdir|rm|unlink|rename|copyFile|cp)(?:Sync)?\s*\("
_PATTERNS = (
    _Pattern("network", "network use", (
        re.compile(
            rf"f{_B}etch\s*\(|new\s+WebSocket\s*\(|XMLHttpRequest"
            rf"|require\(\s*['\"](?:{_NET_MODULES})['\"]\s*\)"
            rf"|f{_B}rom\s+['\"](?:{_NET_MODULES})['\"]"),
        re.compile(
            rf"^\s*(?:import\s+(?:{_PY_NET})\b|from\s+(?:{_PY_NET})\b\S*\s+import)",
            re.MULTILINE),
    )),
    _Pattern("workspace.write", "file writes", (re.compile(
        rf"f{_B}sp?\.{_FS_CALL}|p{_B}romises\.{_FS_CALL}"
        rf"|w{_B}riteFile\s*\(|a{_B}ppendFile\s*\(|c{_B}reateWriteStream\s*\("
        rf"|m{_B}kdirSync\s*\(|r{_B}mSync\s*\(|u{_B}nlinkSync\s*\(|r{_B}enameSync\s*\("
        rf"|c{_B}opyFileSync\s*\(|\.write_text\s*\(|\.write_bytes\s*\("
        rf"|o{_B}pen\([^)\n]*['\"][wax]b?\+?['\"]"
        rf"|o{_B}s\.(?:remove|unlink|rename|makedirs|mkdir)\s*\(|s{_B}hutil\.(?:copy|move|rmtree)"),
    )),
    _Pattern(None, "reads of the user's home", (re.compile(
        r"os\.homedir\s*\(|process\.env\.HOME\b|['\"]~/|expanduser\s*\(|Path\.home\s*\("),
    )),
)  # fmt: skip


_PROTECTED = re.compile(
    rf"\.git/(?:hooks|config)\b|p{_B}re-commit\b|\.envrc\b|\.vscode/|\.idea/|\.github/workflows"
    rf"|M{_B}akefile\b|\.(?:pi|agents|nimlet|claude|openclaw)/|\.(?:bash|zsh)rc\b|\.profile\b"
)
"""Files other programs run or trust: git's hooks and config, editor, CI and task configs,
the agents' own folders, shell start files. A package that names one and writes files is
not handed a grant command."""


def _shown(path: Path, root: Path) -> str:
    for base in (root, root.resolve()):
        if path.is_relative_to(base):
            return path.relative_to(base).as_posix()
    return path.as_posix()


def _sources(root: Path, entries: Sequence[str]) -> list[Path]:
    """The files the entry points reach (``_reachable``); without entries, or when none of
    them can be read, every source file but tests, docs, examples and type declarations,
    the package's own before its node_modules."""
    if entries:
        reached = reachable_sources(root, entries, _MAX_FILES)
        if reached:
            return reached
    own: list[Path] = []
    dependencies: list[Path] = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d not in _SKIP and not d.startswith("."))
        bucket = dependencies if "node_modules" in Path(folder).relative_to(root).parts else own
        bucket.extend(
            Path(folder) / name
            for name in sorted(names)
            if name.endswith(_SOURCES) and not _NOT_RUN.search(name)
        )
        if len(own) + len(dependencies) >= _MAX_FILES:
            break
    return (own + dependencies)[:_MAX_FILES]


def _placeholder(host: str) -> bool:
    """A name reserved for documentation and tests (RFC 2606, RFC 6761) — a dependency's
    example string, never where a package connects: no grant is offered for it."""
    return host.rsplit(".", 1)[-1] in _PLACEHOLDER_TLDS or any(
        host == domain or host.endswith("." + domain) for domain in _PLACEHOLDER_DOMAINS
    )


def code_hosts(texts: Iterable[str], limit: int = 64) -> list[str]:
    """The hosts named by URLs (``http``, ``https``, ``ws``, ``wss``) in ``texts``, in the
    order found, normalised, without ``localhost``; at most ``limit``."""
    hosts: dict[str, None] = {}
    for text in texts:
        for found in _URL_HOST.finditer(text):
            if len(hosts) >= limit:
                return list(hosts)
            host = normal_host(found.group(1))
            if host is not None and host != "localhost":
                hosts.setdefault(host)
    return list(hosts)


def grant_hints(
    root: Path,
    package_id: str,
    granted: frozenset[str] = frozenset(),
    *,
    widen: bool = False,
    entries: Sequence[str] = (),
) -> list[Diagnostic]:
    """``install.needs_grant`` for each thing the package's code appears to do that its
    sandbox denies by default, with the command that grants it (where one exists).
    ``entries`` (relative to ``root``): its entry points; only the code they reach is read.
    ``widen``: the package declares its permissions and does not declare this one, so the
    command is the explicit ``--widen`` of its sandbox."""
    evidence: dict[str, tuple[_Pattern, str]] = {}
    hosts: dict[str, None] = {}  # the hosts its code names, in the order found
    protected: str | None = None
    budget = _MAX_BYTES
    for path in _sources(root, entries):
        if budget <= 0 or (len(evidence) == len(_PATTERNS) and protected is not None):
            break
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read(min(_MAX_FILE_BYTES, budget))
        except OSError:
            continue
        budget -= len(text)
        for host in code_hosts([text], _MAX_HOSTS - len(hosts)):
            if not _placeholder(host):
                hosts.setdefault(host)
        named = _PROTECTED.search(text) if protected is None else None
        if named is not None:
            line = text.count("\n", 0, named.start()) + 1
            protected = f"{named.group(0)} ({_shown(path, root)}:{line})"
        for pattern in _PATTERNS:
            if pattern.what in evidence:
                continue
            match = pattern.search(text)
            if match:
                line = text.count("\n", 0, match.start()) + 1
                where = f"{_shown(path, root)}:{line}"
                evidence[pattern.what] = (pattern, f"{where}: `{match.group(0).strip()[:40]}`")
    hints = []
    for pattern, where in evidence.values():
        if pattern.permission is not None and pattern.permission in granted:
            continue
        if pattern.permission == "network" and any(
            g.startswith("network:") or is_wide_network(g) for g in granted
        ):
            continue
        prefix = f"{package_id}: its code appears to"
        if pattern.permission is None:
            message = (
                f"{prefix} make {pattern.what}, e.g. {where}; the sandbox keeps the home "
                "out of reach and no grant opens it"
            )
            hint = None
        elif pattern.permission == "workspace.write" and protected is not None:
            # No command to copy: the grant would let it write what runs outside any sandbox.
            hints.append(
                _codes.INSTALL_NEEDS_GRANT(
                    f"{prefix} write files ({where}) and names {protected}, which other "
                    f"programs run or trust outside any sandbox; {_protected_opens()}. No "
                    "grant is suggested: read its code first",
                    package=package_id,
                )
            )
            continue
        elif pattern.permission == "network" and 0 < len(hosts) <= _MAX_OFFERED:
            # A few hosts named: the narrow grant is likely what it needs. Many (links to
            # docs and repositories among them) say little: the wide grant is hinted.
            names = " ".join(f"network:{h}" for h in hosts)
            message = (
                f"{prefix} need network ({pattern.what}, e.g. {where}) and names "
                f"{', '.join(hosts)}; its sandbox denies it until granted. A grant by host "
                "reaches those only, through the gateway's proxy; plain `network` opens any "
                "host"
            )
            hint = f"gateway permissions {package_id} {names}" + (" --widen" if widen else "")
        else:
            opens = _workspace_opens() if pattern.permission == "workspace.write" else ""
            message = (
                f"{prefix} need `{pattern.permission}` ({pattern.what}, e.g. {where}); "
                f"its sandbox denies it until granted{opens}"
            )
            hint = f"gateway permissions {package_id} {pattern.permission}" + (
                " --widen" if widen else ""
            )
        hints.append(_codes.INSTALL_NEEDS_GRANT(message, package=package_id, hint=hint))
    return hints


def _protects() -> bool:
    support = detect_support()
    return support.private_mounts or support.user_namespaces


def _workspace_opens() -> str:
    if _protects():
        return (
            "; the grant makes the workspace writable, but for .git, CI and agent configs, "
            "which stay read-only"
        )
    return "; the grant makes the whole workspace writable, .git included"


def _protected_opens() -> str:
    if _protects():
        return (
            "`workspace.write` keeps those read-only here, and reopening one takes "
            "`workspace.write:PATH`"
        )
    return "`workspace.write` would make the whole workspace writable to it, that included"


_PATH_DENIED = re.compile(
    r"(?:EACCES: permission denied, \w+ '(?P<node>[^']+)'"
    r"|\[Errno 13\] Permission denied: '(?P<python>[^']+)'"
    r"|(?P<tool>/[^:\n]+): Permission denied)"
)
_READ_ONLY = re.compile(
    r"(?:EROFS: read-only file system, \w+ '(?P<node>[^']+)'"
    r"|\[Errno 30\] Read-only file system: '(?P<python>[^']+)')"
)
_NET_DENIED = re.compile(
    r"connect EACCES (?P<address>\S+)|socket: Permission denied|Error: socket EACCES"
    r"|PermissionError: \[Errno 13\] Permission denied$|listen EACCES|bind EACCES"
)


def _beneath(path: Path, folders: tuple[Path, ...]) -> bool:
    return any(path == folder or folder in path.parents for folder in folders)


def explain_denial(
    line: str, policy: SandboxPolicy, package_id: str, workspace: Path | None = None
) -> Diagnostic | None:
    """``sandbox.denied`` when ``line`` (from the package's stderr) shows the sandbox
    refusing something, naming the grant that would allow it; ``sandbox.limit_exceeded``
    when it shows one of its resource limits refusing it; None for any other line."""
    limited = explain_limit(line, policy, package_id)
    if limited is not None:
        return limited
    text = line.strip()
    net = _NET_DENIED.search(text)
    if net and not policy.network.any:
        target = net.group("address") or "a socket"
        return _codes.SANDBOX_DENIED(
            f"{package_id}: the sandbox refused network access ({target}): not granted",
            package=package_id,
            hint=f"gateway permissions {package_id} network",
        )
    kept = _READ_ONLY.search(text)
    if kept and policy.read_only_within:
        path = Path(kept.group("node") or kept.group("python"))
        if workspace is not None and not path.is_absolute():
            path = workspace / path
        protected = next(
            (p for p in policy.read_only_within if path == p or p in path.parents), None
        )
        if protected is not None:
            # No command to copy: reopening it lets the package write what runs outside
            # any sandbox (docs/security.md, "What a writable workspace opens").
            rel = protected.name if workspace is None else protected.relative_to(workspace)
            return _codes.SANDBOX_DENIED(
                f"{package_id}: wrote to {path}, beneath {rel}, which stays read-only even "
                f"with workspace.write (other programs run or trust it). Reopening it takes "
                f"the permission workspace.write:{rel}; read the package's code first",
                package=package_id,
            )
    match = _PATH_DENIED.search(text)
    if not match:
        return None
    path = Path(match.group("node") or match.group("python") or match.group("tool"))
    if workspace is not None and _beneath(path, (workspace,)) and not _beneath(path, policy.write):
        return _codes.SANDBOX_DENIED(
            f"{package_id}: the sandbox refused a write in the workspace ({path}): not granted",
            package=package_id,
            hint=f"gateway permissions {package_id} workspace.write",
        )
    if _beneath(path, (*policy.read, *policy.execute, *policy.write)):
        return None  # allowed by the sandbox: a plain permission problem, not ours
    return _codes.SANDBOX_DENIED(
        f"{package_id}: the sandbox refused access to {path}, outside what a package may reach",
        package=package_id,
    )
