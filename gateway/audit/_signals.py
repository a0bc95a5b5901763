"""The code scan's risk signals: behaviours found in a package's files by text, and how they
combine into a severity.

A behaviour alone is rarely a verdict: many packages exist to run commands, most use the
network, some hand their environment to the programs they start. So each behaviour is
information on its own, and a warning is kept for what a benign package has no reason to
do (a shell wired to a socket, a write to a shell rc file, a decoded payload evaluated,
text telling a model to hide something) or for combinations that move the user's secrets
out (the whole environment or credential files, and the network, in one package).
The figures (recall on the malicious fixtures, false positives on benign real packages)
are measured by ``tests/gateway/audit/test_malicious.py`` and given in docs/audit.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gateway.audit import _codes
from gateway.audit._model import Risk
from gateway.audit._support import SourceFile
from gateway.base import INSTRUCTION_OVERRIDE, DiagnosticCode, Severity

__all__ = ["TextFile", "code_risks", "text_risks"]


@dataclass(frozen=True, slots=True)
class TextFile:
    """A non-code file a model may read (Markdown, a manifest, YAML)."""

    path: str
    text: str


@dataclass(frozen=True, slots=True)
class _Finding:
    behaviour: str
    what: str
    path: str
    line: int
    excerpt: str


_M = re.MULTILINE
_NET_MODULES = r"(?:node:)?(?:https?|http2|net|tls|dgram)|undici|axios|node-fetch|got|ws|ky"
_PY_NET = r"requests|httpx|aiohttp|urllib3|urllib\.request|urllib|socket|http\.client|websockets"
_PATTERNS: dict[str, tuple[str, re.Pattern[str]]] = {
    "child_process": ("starts programs", re.compile(
        r"""(?:require\(\s*|from\s+|import\s*\(\s*)["'](?:node:)?child_process["']"""
        r"|\b(?:execSync|execFileSync|spawnSync)\s*\("
        r"|^\s*import\s+subprocess\b|^\s*from\s+subprocess\s+import|\bsubprocess\.\w+\s*\("
        r"|\bos\.(?:system|popen|fork|forkpty|exec[lv]p?e?|spawn[lv]p?e?|posix_spawnp?)\s*\("
        r"|\bpi\.exec\s*\(|\brunCommandWithTimeout\s*\(", _M)),
    "network": ("uses the network", re.compile(
        r"\bfetch\s*\(|new\s+WebSocket\s*\(|XMLHttpRequest"
        rf"|require\(\s*['\"](?:{_NET_MODULES})['\"]\s*\)"
        rf"|\bfrom\s+['\"](?:{_NET_MODULES})['\"]"
        rf"|^\s*(?:import\s+(?:{_PY_NET})\b|from\s+(?:{_PY_NET})\b\S*\s+import)"
        r"|\burlopen\s*\(|\b(?:requests|httpx)\.(?:get|post|put|request)\s*\(", _M)),
    "upload": ("sends data out", re.compile(
        r"\b(?:requests|httpx|session|client)\.(?:post|put)\s*\("
        r"|\burlopen\s*\([^)\n]*\bdata\s*=|\bRequest\s*\([^)\n]*\bdata\s*="
        r"""|method\s*:\s*["'](?:POST|PUT)["']""", re.IGNORECASE)),
    "write": ("writes files", re.compile(
        r"\b(?:fs|fsp|promises)\.(?:writeFile|appendFile|mkdir|rm|unlink|rename|copyFile|cp)"
        r"(?:Sync)?\s*\(|\b(?:writeFileSync|appendFileSync|createWriteStream)\s*\("
        r"|\.write_text\s*\(|\.write_bytes\s*\(|\bopen\([^\n]*?,\s*['\"][wax]b?\+?['\"]"
        r"|\bshutil\.(?:copy|move|rmtree)")),
    "home": ("reads the user's home", re.compile(
        r"os\.homedir\s*\(|process\.env\.HOME\b|['\"]~/|expanduser\s*\(|Path\.home\s*\(")),
    "dynamic_code": ("evaluates strings as code", re.compile(
        r"(?<![\w.$])eval\s*\(|\bnew\s+Function\s*\(|\bvm\.run(?:InNewContext|InThisContext)"
        r"|^\s*exec\s*\(|\bcompile\s*\([^)\n]*['\"]exec['\"]", _M)),
    "env_dump": ("reads the whole environment", re.compile(
        r"\.\.\.\s*process\.env\b(?!\s*\.)|JSON\.stringify\(\s*process\.env\s*[,)]"
        r"|Object\.(?:entries|keys|values|assign)\([^)\n]*process\.env\s*\)"
        r"|\bfor\s*\(\s*(?:const|let|var)\s+\w+\s+in\s+process\.env\b"
        r"|\bdict\(\s*os\.environ\s*\)|\bos\.environ\.(?:copy|items|keys|values)\s*\("
        r"|\*\*\s*os\.environ\b|\bjson\.dumps\(\s*(?:dict\(\s*)?os\.environ\b"
        r"|\bfor\s+\w+(?:\s*,\s*\w+)?\s+in\s+os\.environ\b|\bos\.environ\s*\)"
        r"|\bURLSearchParams\(\s*process\.env\b"
        r"|\b(?:body|data|json|params|headers|query)\s*[:=]\s*(?:process\.env|os\.environ)\b")),
    "credential_files": ("names credential files", re.compile(
        r"""["'/~]\.ssh\b|\bid_(?:rsa|ed25519|ecdsa)\b|\.aws/credentials|["']\.aws["']"""
        r"|\.git-credentials|\.netrc\b|\.docker/config\.json|\.kube/config"
        r"|\.npmrc\b|\.pypirc\b|\.cargo/credentials|\.yarnrc\.yml\b")),
    "collector": ("posts to a data-collection endpoint", re.compile(
        r"discord(?:app)?\.com/api/webhooks|webhook\.site|requestbin|pipedream\.net"
        r"|ngrok(?:-free)?\.(?:io|app)|burpcollaborator|interact\.sh|canarytokens"
        r"|\boast\.(?:fun|live|me|online|pro|site)\b", re.IGNORECASE)),
    "reverse_shell": ("wires a shell to a network connection", re.compile(
        r"-i\s*>&\s*/dev/tcp/|/dev/tcp/[\w.]+/\d|\bnc\s+(?:-\w+\s+)*-e\s"
        r"|\bos\.dup2\(\s*\w+\.fileno\(\)|\bpty\.spawn\s*\(")),
    "spawned_shell": ("starts a shell", re.compile(
        r"""\bspawn\(\s*["'](?:/bin/)?(?:ba|z|da)?sh["']|["']cmd\.exe["']""")),
    "socket": ("opens a socket", re.compile(
        r"\bnet\.(?:connect|createConnection|Socket)\b|\bnew\s+Socket\s*\(")),
    "piped": ("pipes streams", re.compile(r"\.pipe\s*\(")),
    "persistence_target": ("names a file programs start from", re.compile(
        r"\.(?:bashrc|zshrc|bash_profile|zprofile|profile)\b|\bcrontab\b|/etc/cron"
        r"|LaunchAgents|\.config/autostart|systemd/user|authorized_keys|config\.fish"
        r"|\.git/hooks/|core\.(?:hooksPath|fsmonitor)|\.envrc\b")),
    "date_check": ("acts only after a date", re.compile(
        r"""new\s+Date\(\s*["']\d{4}-\d\d|Date\.parse\(\s*["']\d{4}|Date\.now\(\)\s*[<>]=?\s*\d{12}"""
        r"|\b(?:datetime|date)(?:\.datetime|\.date)?\(\s*20\d\d\s*,"
        r"|\btime\.time\(\)\s*[<>]=?\s*\d{9}")),
    "long_timer": ("waits a day or more", re.compile(
        r"\bset(?:Timeout|Interval)\s*\([\s\S]{0,400}?,\s*(?P<js>\d[\d_]*(?:\s*\*\s*\d[\d_]*)*)\s*\)"
        r"|\b(?:time\.sleep|asyncio\.sleep|threading\.Timer)\(\s*(?P<py>\d[\d_]*(?:\s*\*\s*\d[\d_]*)*)")),
    "encoded_eval": ("evaluates a decoded payload", re.compile(
        r"(?:\beval|\bFunction|\bexec|\bvm\.run\w*)\s*\(\s*(?:atob|Buffer\.from|base64\.b64decode"
        r"|b64decode|codecs\.decode|bytes\.fromhex|zlib\.decompress|String\.fromCharCode)\b")),
    "char_codes": ("assembles text from character codes", re.compile(
        r"\bString\.fromCharCode\s*\(\s*(?:\.\.\.|(?:0x[0-9a-fA-F]+|\d+)\s*"
        r"(?:,\s*(?:0x[0-9a-fA-F]+|\d+)\s*){7,})"
        r"|\.map\(\s*\(?\s*\w+\s*\)?\s*=>\s*String\.fromCharCode\b"
        r"|\bbytes\(\s*\[\s*(?:\d+\s*,\s*){7,}")),
    "data_url_import": ("imports code from a data: URL", re.compile(
        r"""(?:\bimport\s*\(\s*|\bfrom\s+|\brequire\(\s*)[`"']data:""")),
    "encoded_literal": ("holds a long encoded literal", re.compile(
        r"""["'][A-Za-z0-9+/]{80,}={0,2}["']""")),
    "decode": ("decodes base64", re.compile(
        r"\batob\s*\(|['\"]base64['\"]|\bb64decode\s*\(")),
    "remote_code": ("downloads code and runs it", re.compile(
        r"\b(?:curl|wget)\b[^|\n;]{0,200}\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b"
        r"|\bexec\(\s*(?:urlopen|requests\.get)|eval\(\s*await\s+\(?\s*await\s+fetch")),
}  # fmt: skip
_NEEDS: dict[str, tuple[str, ...]] = {
    "child_process": ("child_process", "execSync", "execFileSync", "spawnSync", "subprocess",
                      "os.", "pi.exec", "runCommandWithTimeout"),
    "network": ("fetch", "WebSocket", "XMLHttpRequest", "require", "from", "import", "urlopen",
                "requests", "httpx"),
    "upload": (".post", ".put", "urlopen", "request", "method"),
    "write": ("fs.", "fsp.", "promises.", "writeFileSync", "appendFileSync", "createWriteStream",
              ".write_text", ".write_bytes", "open(", "shutil."),
    "home": ("os.homedir", "process.env.HOME", "~/", "expanduser", "Path.home"),
    "dynamic_code": ("eval", "Function", "vm.run", "exec"),
    "env_dump": ("process.env", "os.environ"),
    "credential_files": (".ssh", "id_", ".aws", ".git-credentials", ".netrc", ".docker", ".kube",
                         ".npmrc", ".pypirc", ".cargo", ".yarnrc"),
    "collector": ("discord", "webhook.site", "requestbin", "pipedream", "ngrok",
                  "burpcollaborator", "interact.sh", "canarytokens", "oast."),
    "reverse_shell": ("/dev/tcp/", "-e", "os.dup2", "pty.spawn"),
    "spawned_shell": ("spawn", "cmd.exe"),
    "socket": ("net.", "Socket"),
    "piped": (".pipe",),
    "persistence_target": (".bashrc", ".zshrc", ".bash_profile", ".zprofile", ".profile",
                           "crontab", "/etc/cron", "LaunchAgents",
                           ".config/autostart", "systemd/user", "authorized_keys", "config.fish",
                           ".git/hooks/", "core.", ".envrc"),
    "date_check": ("Date", "date", "time.time()"),
    "long_timer": ("setTimeout", "setInterval", "sleep", "threading.Timer"),
    "encoded_eval": ("eval", "Function", "exec", "vm.run"),
    "char_codes": ("fromCharCode", "bytes("),
    "data_url_import": ("data:",),
    "encoded_literal": ("\"", "'"),
    "decode": ("atob", "base64", "b64decode"),
    "remote_code": ("curl", "wget", "exec(", "eval("),
}  # fmt: skip
"""For each behaviour, literals of which any match of its pattern holds one (case-folded for
a pattern that ignores case): a file holding none of them is not searched — most files
hold few of them, and the 22 searches over every file of a package were most of a scan.
``tests/gateway/audit/test_signals.py`` holds each list to its pattern."""
_CHILD_ENV = re.compile(r"\benv\s*[:=]\s*(?:\{|dict\(|\w+\.copy\(|\w+\()?\s*$")
"""A copy of the environment handed to a program it starts (``env: {...process.env}``,
``env=dict(os.environ)``): what child processes commonly get, not a read of secrets."""
_INJECTION = INSTRUCTION_OVERRIDE
_DANGEROUS = ("child_process", "dynamic_code", "network", "write", "remote_code")
"""What makes a date check or a long timer a time bomb: it gates one of these."""


def _product(expression: str) -> int:
    value = 1
    for factor in expression.split("*"):
        value *= int(factor.strip().replace("_", "") or "1")
    return value


def _excerpt(text: str, start: int) -> str:
    end = text.find("\n", start)
    return " ".join(text[start : end if end >= 0 else len(text)].split())[:100]


def _folded(text: str) -> str:
    """``text`` as a pattern that ignores case sees it, for the literals in ``_NEEDS``: case
    folded, and the two letters ``re`` also takes for an ``i`` (U+0130, U+0131) made one."""
    return text.casefold().replace("\u0131", "i").replace("\u0307", "")


def _find(source: SourceFile) -> dict[str, _Finding]:
    """The first finding of each behaviour in one file."""
    text, found = source.text, {}
    folded: str | None = None
    for behaviour, (what, pattern) in _PATTERNS.items():
        if pattern.flags & re.IGNORECASE:
            folded = _folded(text) if folded is None else folded
            haystack = folded
        else:
            haystack = text
        if not any(literal in haystack for literal in _NEEDS[behaviour]):
            continue
        for match in pattern.finditer(text):
            if behaviour == "env_dump":
                prefix = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
                if _CHILD_ENV.search(prefix.rstrip("{( ")) or _CHILD_ENV.search(prefix):
                    continue
            if behaviour == "long_timer":
                delay = match.group("js") or match.group("py") or "0"
                seconds = _product(delay) / (1000 if match.group("js") else 1)
                if seconds < 86_400:
                    continue
            line = source.line_of(match.start())
            found[behaviour] = _Finding(
                behaviour, what, source.path, line, _excerpt(text, match.start())
            )
            break
    return found


def _risk(
    code: DiagnosticCode,
    kind: str,
    finding: _Finding,
    message: str,
    severity: Severity | None = None,
) -> Risk:
    level = (severity or code.severity).value
    return Risk(kind, code.code, level, message, finding.path, finding.line, finding.excerpt)


def code_risks(sources: Sequence[SourceFile]) -> list[Risk]:
    """Per file, then across the package (the exfiltration combinations)."""
    risks: list[Risk] = []
    package: dict[str, _Finding] = {}
    for source in sources:
        found = _find(source)
        for behaviour, finding in found.items():
            package.setdefault(behaviour, finding)
        risks += _file_risks(source.path, found)
    secrets = package.get("env_dump") or package.get("credential_files")
    if secrets and "network" in package:
        net = package["network"]
        risks.append(_risk(_codes.EXFILTRATION, "exfiltration", secrets,
                           f"{secrets.path} {secrets.what} and {net.path}:{net.line} "
                           "uses the network: it can send them out"))  # fmt: skip
    return risks


def _file_risks(path: str, found: dict[str, _Finding]) -> list[Risk]:
    risks = []
    simple = (
        ("child_process", _codes.CHILD_PROCESS), ("network", _codes.NETWORK),
        ("write", _codes.FILESYSTEM), ("home", _codes.FILESYSTEM),
        ("dynamic_code", _codes.DYNAMIC_CODE), ("env_dump", _codes.ENV_DUMP),
        ("credential_files", _codes.CREDENTIAL_FILES), ("reverse_shell", _codes.REVERSE_SHELL),
        ("remote_code", _codes.REMOTE_CODE), ("encoded_eval", _codes.ENCODED_PAYLOAD),
        ("collector", _codes.EXFILTRATION), ("data_url_import", _codes.ENCODED_PAYLOAD),
    )  # fmt: skip
    for behaviour, code in simple:
        if behaviour in found:
            finding = found[behaviour]
            kind = code.code.removeprefix("audit.")
            risks.append(_risk(code, kind, finding, f"{path} {finding.what}"))
    if "encoded_eval" not in found and all(
        k in found for k in ("encoded_literal", "decode", "dynamic_code")
    ):
        finding = found["encoded_literal"]
        risks.append(_risk(_codes.ENCODED_PAYLOAD, "encoded_payload", finding,
                           f"{path} decodes a long literal and evaluates code"))  # fmt: skip
    runs = [k for k in ("dynamic_code", "child_process", "network") if k in found]
    if "char_codes" in found and "encoded_eval" not in found and runs:
        finding = found["char_codes"]
        risks.append(_risk(_codes.ENCODED_PAYLOAD, "encoded_payload", finding,
                           f"{path} assembles a payload from character codes and "
                           f"{found[runs[0]].what}"))  # fmt: skip
    if "reverse_shell" not in found and all(
        k in found for k in ("spawned_shell", "socket", "piped")
    ):
        finding = found["spawned_shell"]
        risks.append(_risk(_codes.REVERSE_SHELL, "reverse_shell", finding,
                           f"{path} pipes a shell it starts to a socket"))  # fmt: skip
    if "persistence_target" in found and ("write" in found or "child_process" in found):
        finding = found["persistence_target"]
        risks.append(_risk(_codes.PERSISTENCE, "persistence", finding,
                           f"{path} writes where programs start by themselves"))  # fmt: skip
    for trigger in ("date_check", "long_timer"):
        if trigger in found:
            finding = found[trigger]
            acts = [k for k in _DANGEROUS if k in found]
            level = Severity.WARNING if acts else Severity.INFO
            then = f", then {', '.join(found[k].what for k in acts)}" if acts else ""
            risks.append(_risk(_codes.DELAYED_TRIGGER, "delayed_trigger", finding,
                               f"{path} {finding.what}{then}", level))  # fmt: skip
    return risks


def text_risks(files: Sequence[SourceFile | TextFile]) -> list[Risk]:
    """Prompt injection: in any text a model may read, code (tool descriptions) included."""
    risks = []
    for file in files:
        match = _INJECTION.search(file.text)
        if match:
            line = file.text.count("\n", 0, match.start()) + 1
            finding = _Finding(
                "prompt_injection", "", file.path, line, _excerpt(file.text, match.start())
            )
            risks.append(_risk(_codes.PROMPT_INJECTION, "prompt_injection", finding,
                               f"{file.path} tells a model to ignore its instructions, hide "
                               "something from the user, or hand over secrets"))  # fmt: skip
    return risks
