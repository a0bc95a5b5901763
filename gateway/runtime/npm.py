"""Running npm for the user: their network configuration in, npm's own errors out.

Children of the gateway get an allow-listed environment (``_spawn.child_environment``).
npm is not a package's child but the user's tool, fetching on the user's behalf, so it also
sees what makes the user's network work: proxy and CA variables, ``npm_config_*`` (and the
user's ``~/.npmrc``, found through ``HOME``), and ``GATEWAY_PASSTHROUGH_ENV`` (e.g. a token
that ``~/.npmrc`` interpolates). When ``gateway setup`` made a private Node environment,
npm's prefix is in it and its cache is the gateway's (``GATEWAY_HOME/cache/npm``, where
package installs keep theirs), so the gateway never touches the user's global npm. The cache
stays out of the installation's folder, which Python children may read.

A failure carries npm's own error lines (``npm error code E404``, the certificate error), and
a timeout names what timed out and the variable that sets it.
"""

from __future__ import annotations

import os
import re
import subprocess
import urllib.parse
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from gateway.base import GatewayError
from gateway.runtime._spawn import child_environment, kill_group
from gateway.runtime.node import default_home, node_env_dir, private_node_env
from gateway.sandbox import SandboxError, SandboxPolicy, SandboxUnavailable, spawn_confined

__all__ = [
    "DEFAULT_NPM_TIMEOUT",
    "NETWORK_ENVIRONMENT",
    "NpmError",
    "npm_environment",
    "npm_error_lines",
    "npm_timeout",
    "run_tool",
]

NETWORK_ENVIRONMENT: tuple[str, ...] = (
    *(f"{name}_proxy" for name in ("http", "https", "no", "all")),
    *(f"{name}_PROXY" for name in ("HTTP", "HTTPS", "NO", "ALL")),
    "NODE_EXTRA_CA_CERTS",
    "NODE_USE_ENV_PROXY",
    "NODE_USE_SYSTEM_CA",
    "NODE_TLS_REJECT_UNAUTHORIZED",
    "NODE_OPTIONS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "GIT_SSL_CAINFO",
    "GIT_SSL_CAPATH",
    "GIT_SSH_COMMAND",
    "SSH_AUTH_SOCK",
)
"""What a user sets so that npm and git reach a registry: proxies (both spellings), CA
bundles (Node's, OpenSSL's, git's), and the ssh agent for ``git+ssh`` sources."""

DEFAULT_NPM_TIMEOUT = 600.0
_TIMEOUT_VARIABLE = "GATEWAY_NPM_TIMEOUT"
_ERROR_PREFIXES = ("npm error", "npm ERR!", "error:", "fatal:", "Error:")
_MAX_LINES = 20
# What npm adds after its message when a fetch fails: the stack (`at …`), the error object
# dumped field by field (`code: 'ECONNREFUSED',`, `{`, `}`), its `errno`/`syscall` lines
# and empty `npm error` / `npm error 404` lines. None of it says more than the message.
_NPM_NOISE = re.compile(
    r"^(?:npm error|npm ERR!)(?:\s*| \d{3}| [{}]| (?:errno|syscall) \S+|\s{2,}(?:at\s.*|\w+: .*))$"
)
_UNREACHABLE = ("ECONNREFUSED", "ECONNRESET", "ENOTFOUND", "ETIMEDOUT", "EAI_AGAIN", "EHOSTUNREACH")
WAIT_WORD = 10.0
"""Seconds npm or git runs before the install says it is still waiting, and for what."""
_PROXIES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")


class NpmError(GatewayError):
    """npm (or git) failed; ``str()`` is a headline plus the tool's own error lines."""


def npm_timeout() -> float:
    """Seconds an npm or git run may take: ``GATEWAY_NPM_TIMEOUT``, default 600."""
    raw = os.environ.get(_TIMEOUT_VARIABLE, "")
    try:
        value = float(raw) if raw else DEFAULT_NPM_TIMEOUT
    except ValueError:
        return DEFAULT_NPM_TIMEOUT
    return value if value > 0 else DEFAULT_NPM_TIMEOUT


def npm_environment(
    passthrough: Iterable[str] | None = None,
    source: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> dict[str, str]:
    """The environment npm and git run with: the allow-list, the user's network
    configuration, ``npm_config_*``, ``GATEWAY_PASSTHROUGH_ENV``, and the private Node
    environment's prefix with the cache of ``home`` (default ``GATEWAY_HOME``; an explicit
    ``npm_config_*`` of the user's still wins)."""
    source = os.environ if source is None else source
    if passthrough is None:
        raw = source.get("GATEWAY_PASSTHROUGH_ENV", "")
        passthrough = [name.strip() for name in raw.split(",") if name.strip()]
    env = child_environment((*NETWORK_ENVIRONMENT, *passthrough), source=source)
    env_dir = node_env_dir(source)
    if private_node_env(env_dir) is not None:
        env["npm_config_prefix"] = str(env_dir)
        env["npm_config_cache"] = str((home or default_home(source)) / "cache" / "npm")
        env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    for name, value in source.items():
        if name.lower().startswith("npm_config_") and not value.startswith("()"):
            env[name] = value
    return env


def npm_error_lines(stderr: str, stdout: str = "") -> list[str]:
    """npm's (or git's) own error lines, at most 20; the last lines when none is marked."""
    lines = [line.rstrip() for line in (stderr or stdout).splitlines() if line.strip()]
    marked = [line for line in lines if line.lstrip().startswith(_ERROR_PREFIXES)]
    chosen = marked or lines[-5:]
    # npm's pointer to its debug log is the one line that says nothing about the failure.
    chosen = [line for line in chosen if "complete log of this run" not in line]
    chosen = [line for line in chosen if not _NPM_NOISE.match(line)] or chosen
    if len(chosen) > _MAX_LINES:
        chosen = [*chosen[: _MAX_LINES - 1], f"… ({len(chosen) - _MAX_LINES + 1} more lines)"]
    return chosen


def run_tool(
    command: Sequence[str],
    cwd: Path | None,
    what: str,
    *,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    policy: SandboxPolicy | None = None,
    require: bool = False,
    waiting: Callable[[str], None] | None = None,
) -> str:
    """Run npm or git without a terminal in its own session (confined by ``policy`` when
    one is given; with ``require``, not at all where the kernel cannot enforce all of it);
    its stdout, or ``NpmError``. ``waiting`` is told, once, when it has run ``WAIT_WORD``
    seconds: a dead proxy costs npm a minute of retries, said nothing meanwhile."""
    timeout = npm_timeout() if timeout is None else timeout
    environment = dict(env) if env is not None else npm_environment()
    pipe, quiet = subprocess.PIPE, subprocess.DEVNULL
    try:
        if policy is None:
            process = subprocess.Popen(
                list(command), cwd=cwd, env=environment, stdin=quiet, stdout=pipe, stderr=pipe,
                start_new_session=True,
            )  # fmt: skip
        else:
            process = spawn_confined(list(command), policy=policy, cwd=cwd, env=environment,
                                     stdin=quiet, stdout=pipe, stderr=pipe,
                                     require=require)  # fmt: skip
    except FileNotFoundError:
        raise NpmError(f"{what}: {command[0]} is not installed") from None
    except (SandboxError, SandboxUnavailable) as error:
        raise NpmError(f"{what}: it could not be confined: {error}") from None
    try:
        out, err = _communicate(process, timeout, waiting, what, environment)
    except subprocess.TimeoutExpired:
        # npm's own children (git, a proxy agent) share its group and hold the pipes.
        kill_group(process.pid)
        out, err = process.communicate()
        stdout, stderr = _text(out), _text(err)
        detail = "".join(f"\n  {line}" for line in npm_error_lines(stderr, stdout))
        raise NpmError(
            f"{what} timed out after {timeout:g} s (no answer in time from the registry or "
            f"git server, or a slow network; {_TIMEOUT_VARIABLE} sets the limit)" + detail
        ) from None
    except BaseException:
        kill_group(process.pid)
        process.wait()
        raise
    stdout, stderr = _text(out), _text(err)
    if process.returncode != 0:
        lines = npm_error_lines(stderr, stdout)
        tool = "git" if Path(command[0]).name == "git" else "npm"
        hint = _proxy_hint(tool, lines, environment)
        detail = "".join(f"\n  {line}" for line in [*lines, *hint])
        raise NpmError(f"{what} failed (exit {process.returncode})" + detail)
    return stdout


def _communicate(
    process: subprocess.Popen[bytes],
    timeout: float,
    waiting: Callable[[str], None] | None,
    what: str,
    environment: Mapping[str, str],
) -> tuple[bytes, bytes]:
    if waiting is None or timeout <= WAIT_WORD:
        return process.communicate(timeout=timeout)
    try:
        return process.communicate(timeout=WAIT_WORD)
    except subprocess.TimeoutExpired:
        proxy = _proxy(environment)
        through = (
            f", through the proxy {proxy[0]}={proxy[1]} from your environment" if proxy else ""
        )
        waiting(f"still waiting for {what} after {WAIT_WORD:g} s{through} (stopped after "
                f"{timeout:g} s; {_TIMEOUT_VARIABLE} sets the limit)")  # fmt: skip
        return process.communicate(timeout=timeout - WAIT_WORD)


def _proxy(environment: Mapping[str, str]) -> tuple[str, str] | None:
    """The proxy variable set and its address only (a proxy URL may hold a password)."""
    for name in _PROXIES:
        if environment.get(name):
            parts = urllib.parse.urlsplit(environment[name])
            try:
                port = f":{parts.port}" if parts.port else ""
            except ValueError:  # not a number
                port = ""
            address = f"{parts.scheme}://{parts.hostname}{port}" if parts.hostname else "(unparsed)"
            return name, address
    return None


def _proxy_hint(tool: str, lines: list[str], environment: Mapping[str, str]) -> list[str]:
    """When npm could not connect and a proxy variable is set, the line that names it and
    what to do."""
    if not any(code in line for line in lines for code in _UNREACHABLE):
        return []
    proxy = _proxy(environment)
    if proxy is None:
        return []
    name, address = proxy
    return [
        f"hint: {tool} went through the proxy {name}={address} (from your environment): "
        f"check that it runs, or unset {name}"
    ]


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace") if data else ""
