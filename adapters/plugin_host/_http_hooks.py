"""One Claude Code ``http`` hook sent the way Claude Code sends it (its hooks reference,
"HTTP hook fields" and "HTTP response handling"): the event's JSON POSTed to ``url`` with
``Content-Type: application/json`` and the hook's ``headers`` — ``$VAR`` / ``${VAR}`` in a
value filled from the host's environment only for the names ``allowedEnvVars`` lists, any
other name left empty — within the hook's ``timeout``.

The answer, read as a command hook's output: a 2xx with an empty body is exit 0 with no
output; a 2xx with a body is that body as stdout (a JSON object is the JSON answer, plain
text what plain stdout is); anything else — another status (redirects are not followed: a
redirect could lead out of the grant), a connection failure, a timeout — is a non-blocking
failure, as in Claude Code. The body is the server's, so hostile: read up to
``OUTPUT_LIMIT`` bytes and no more (a longer one fails the hook), decoded as UTF-8 with bad
bytes replaced; a body that starts like JSON and does not parse fails the hook rather than
reaching the model as text.

The request leaves from the plugin host, so through the package's sandbox, by the proxy its
environment names (``HTTPS_PROXY``, ``NO_PROXY``…, read from the environment the hooks are
given): the URL's host and port must be granted (``network:HOST:PORT``, reached through the
gateway's egress proxy, or plain ``network``). An ungranted destination is
``claude.hook_http_not_granted``, naming the grant to give — found before sending when the
sandbox gives no network at all or sends a loopback host straight to its own empty
loopback, and from the proxy's refusal otherwise.
"""

from __future__ import annotations

import json
import re
import ssl
from collections.abc import Mapping
from urllib.parse import urlsplit

import anyio
import httpx2

from adapters.plugin_host import _codes as codes
from adapters.plugin_host._hook_config import HttpHook
from adapters.plugin_host._hook_process import OUTPUT_LIMIT, HookRun
from adapters.plugin_host._reach import network_denied
from adapters.plugin_host._remote_spec import network_grant

__all__ = ["fill_headers", "network_denied", "post_hook"]

_REFERENCE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_EGRESS_REFUSAL = b"gateway sandbox:"
_OPTION_PREFIX = "CLAUDE_PLUGIN_OPTION_"
_BAD_HEADER_TEXT = re.compile(r"[\x00\r\n]")


def fill_headers(hook: HttpHook, env: Mapping[str, str]) -> dict[str, str]:
    """The hook's headers with ``$VAR`` / ``${VAR}`` filled: from ``env`` for a name
    ``allowedEnvVars`` lists, empty for any other (Claude Code's rule). A plugin option
    (``${user_config.KEY}``, which Claude Code fills in a plugin's hooks) arrives here as
    ``${CLAUDE_PLUGIN_OPTION_KEY}`` (the launch turns it so: never written into the
    configuration) and is filled too."""

    def fill(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        allowed = name in hook.allowed_env or name.startswith(_OPTION_PREFIX)
        return env.get(name, "") if allowed else ""

    return {name: _REFERENCE.sub(fill, value) for name, value in hook.headers.items()}


def _egress_proxy(env: Mapping[str, str]) -> str | None:
    """The egress proxy this process is confined to, when it is (``gateway.sandbox``'s
    proxy variables point at its own loopback)."""
    from gateway.sandbox import EGRESS_HOST, EGRESS_PORT

    url = f"http://{EGRESS_HOST}:{EGRESS_PORT}"
    return url if env.get("HTTP_PROXY") == url else None


def _bypasses_proxy(host: str, env: Mapping[str, str]) -> bool:
    """``NO_PROXY``'s rule (curl's and Python's): ``*``, the name, or a parent domain."""
    listed = env.get("NO_PROXY", env.get("no_proxy", ""))
    name = host.lower().strip("[]")
    for entry in (item.strip().lower().lstrip(".") for item in listed.split(",")):
        if entry == "*" or (entry and (name == entry or name.endswith("." + entry))):
            return True
    return False


def _proxy_for(url: str, env: Mapping[str, str]) -> str | None:
    """The proxy ``env`` names for ``url`` (the usual variables), None to go direct. Read
    from the host's environment as given, not the process's: one rule for what is checked
    and what is used."""
    parts = urlsplit(url)
    if _bypasses_proxy(parts.hostname or "", env):
        return None
    names = (f"{parts.scheme.upper()}_PROXY", f"{parts.scheme}_proxy", "ALL_PROXY", "all_proxy")
    return next((env[name] for name in names if env.get(name)), None)


def _verify(env: Mapping[str, str]) -> ssl.SSLContext | bool:
    """The system's trust store, or the bundle ``SSL_CERT_FILE`` names."""
    bundle = env.get("SSL_CERT_FILE")
    return ssl.create_default_context(cafile=bundle) if bundle else True


def _not_granted(hook: HttpHook, package: str) -> HookRun:
    grant = network_grant(hook.url)
    return HookRun(
        None,
        "",
        "",
        f"was not sent: the package's sandbox has no network grant for {grant[8:]}; grant "
        f"it: `gateway permissions {package} {grant}`",
        code=codes.CLAUDE_HOOK_HTTP_NOT_GRANTED.code,
    )


async def post_hook(
    hook: HttpHook, body: bytes, *, env: Mapping[str, str], package: str
) -> HookRun:
    """Send one hook; what it answered, as a command's run."""
    host = urlsplit(hook.url).hostname or ""
    proxy = _egress_proxy(env)
    if network_denied() or (proxy is not None and _bypasses_proxy(host, env)):
        # Outside the grant: no network at all, or a loopback host the proxy is not asked
        # for (only a granted one is: it would reach the namespace's own empty loopback).
        return _not_granted(hook, package)
    headers = fill_headers(hook, env)
    if any(_BAD_HEADER_TEXT.search(value) for value in headers.values()):
        return HookRun(None, "", "", "has a header whose value holds a line break; not sent")
    # The body is read raw and bounded: no compression, so no bomb to expand.
    headers |= {"Content-Type": "application/json", "Accept-Encoding": "identity"}
    try:
        async with httpx2.AsyncClient(
            timeout=hook.timeout, follow_redirects=False, trust_env=False,
            proxy=_proxy_for(hook.url, env), verify=_verify(env),
        ) as client:  # fmt: skip
            with _deadline(hook.timeout) as scope:
                async with client.stream("POST", hook.url, content=body, headers=headers) as got:
                    data, over = await _read_bounded(got)
                    status = got.status_code
            if scope.cancelled_caught:
                return HookRun(None, "", "", f"timed out after {hook.timeout:g} s")
    except httpx2.ProxyError as error:
        if proxy is not None and "403" in str(error):
            return _not_granted(hook, package)
        return HookRun(None, "", "", f"could not be sent: {error}")
    except httpx2.TimeoutException:
        return HookRun(None, "", "", f"timed out after {hook.timeout:g} s")
    except (httpx2.HTTPError, OSError, ValueError) as error:
        return HookRun(None, "", "", f"could not be sent: {error or type(error).__name__}")
    if proxy is not None and status == 403 and data.startswith(_EGRESS_REFUSAL):
        return _not_granted(hook, package)
    if not 200 <= status < 300:
        return HookRun(None, "", "", f"was answered HTTP {status}")
    if over:
        return HookRun(None, "", "", f"was answered more than {OUTPUT_LIMIT} bytes", overflow=True)
    text = data.decode("utf-8", "replace")
    if text.strip().startswith("{") and not _is_json_object(text):
        return HookRun(None, "", "", "was answered a body that is not valid JSON")
    return HookRun(0, text, "")


def _deadline(seconds: float) -> anyio.CancelScope:
    """The whole exchange within the hook's timeout (httpx's own is per read)."""
    return anyio.move_on_after(seconds)


async def _read_bounded(response: httpx2.Response) -> tuple[bytes, bool]:
    """At most ``OUTPUT_LIMIT`` bytes of the body, and whether there was more."""
    kept = bytearray()
    async for chunk in response.aiter_raw():
        kept += chunk
        if len(kept) > OUTPUT_LIMIT:
            return bytes(kept[:OUTPUT_LIMIT]), True
    return bytes(kept), False


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False
