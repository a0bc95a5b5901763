"""A tool that failed to reach the network because its sandbox has none: which grant would
let it (``explain_unreachable``).

A package without a network grant that calls out anyway gets what its sandbox leaves it — a
name lookup that cannot be made (Node's ``getaddrinfo EAI_AGAIN host``, Python's
``Temporary failure in name resolution``), a connect refused — and its tool commonly returns
that as its result. The result stays as it is; this reads its text, a heuristic over the
error lines Node, Python and curl print, and names the missing grant. Nothing of the text
is repeated but what is recognised: a marker from a fixed list and a host that parses as
one (``normal_host``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from gateway.base import Diagnostic, printable_line
from gateway.sandbox import _codes
from gateway.sandbox._destinations import Destination, is_wide_network, normal_host
from gateway.sandbox._netns import EGRESS_HOST, EGRESS_PORT
from gateway.sandbox._policy import SandboxPolicy

__all__ = ["explain_unreachable"]

_SCANNED = 16 * 1024
"""Characters of a result read: an error says itself at its start."""
_SAYS_ERROR = re.compile(r"^\W{0,3}(?:[A-Za-z]*Error|(?i:error|fail(?:ed|ure)?))\b")
"""The first line of a result that is a failure in words: ``Error: …``, ``TypeError: …``,
``Failed to …`` (tools that return their failure as text, e.g. Pi's)."""

_NAME = r"[A-Za-z0-9_.-]{1,253}"
_ADDRESS = r"\[?[0-9A-Fa-f:.]{2,45}\]?"
_LOOKUP = re.compile(
    rf"getaddrinfo (?P<code>EAI_AGAIN|ENOTFOUND|EAI_FAIL|EAI_NODATA|EAI_NONAME) (?P<host>{_NAME})"
    rf"|Failed to resolve '(?P<quoted>{_NAME})'"
    rf"|Could not resolve host: (?P<curl>{_NAME})"
)
_CONNECT = re.compile(
    rf"connect (?P<code>ENETUNREACH|EHOSTUNREACH|EACCES|EPERM|ECONNREFUSED) "
    rf"(?P<address>{_ADDRESS}):(?P<port>\d{{1,5}})\b"
)
_MARKERS = (
    "EAI_AGAIN", "ENOTFOUND", "ENETUNREACH", "Temporary failure in name resolution",
    "Network is unreachable", "getaddrinfo", "fetch failed",
)  # fmt: skip
"""What shows the failure when no host is named, the most telling first (each a fixed
text: what is said of it)."""
_PROXY = f"{EGRESS_HOST}:{EGRESS_PORT}"


@dataclass(frozen=True, slots=True)
class _Failure:
    what: str
    """A fixed text: the code or marker found."""
    host: str | None = None
    """Normalised (``normal_host``); None: not named, or not a host."""
    port: int | None = None


def _failure(text: str) -> _Failure | None:
    """The first failure to resolve or reach a host in ``text``, or None."""
    lookup = _LOOKUP.search(text)
    if lookup is not None:
        code = lookup.group("code") or ("curl" if lookup.group("curl") else "name resolution")
        named = lookup.group("host") or lookup.group("quoted") or lookup.group("curl")
        what = {"curl": "could not resolve host", "name resolution": "failed to resolve"}
        return _Failure(what.get(code, f"getaddrinfo {code}"), normal_host(named))
    for connect in _CONNECT.finditer(text):
        code, address, port = connect.group("code"), connect.group("address"), connect["port"]
        if code == "ECONNREFUSED":
            if f"{address}:{port}" != _PROXY:
                continue  # refused by a listener: not the sandbox's doing
            return _Failure("connect ECONNREFUSED to the gateway's proxy")
        return _Failure(f"connect {code}", normal_host(address), int(port))
    marker = next((m for m in _MARKERS if m in text), None)
    return None if marker is None else _Failure(marker)


def _failed(text: str, is_error: bool) -> bool:
    if is_error:
        return True
    first = text.lstrip().partition("\n")[0]
    return _SAYS_ERROR.match(first) is not None


def _granted(destinations: tuple[Destination, ...], host: str, port: int | None) -> bool:
    return any(d.allows(host, port if port is not None else (d.port or 0)) for d in destinations)


def explain_unreachable(
    text: str,
    is_error: bool,
    policy: SandboxPolicy | None,
    package_id: str,
    tool: str,
    *,
    requested: Iterable[str] = (),
    widen: bool = False,
) -> Diagnostic | None:
    """``sandbox.no_network_grant`` when a tool of ``package_id`` confined by ``policy``
    failed (``is_error``, or ``text`` whose first line says an error) and ``text`` shows a
    failure to resolve or reach a host its sandbox causes: the package has no network grant,
    or (granted destinations) none for the host the text names. None otherwise — unconfined
    (no ``policy``), granted the network, the host granted or not known, nothing recognised.

    The hint is the command ``gateway permissions`` takes: a network permission the package
    requests (``requested``: those not granted) when it requests one, else ``network`` (or
    ``network:HOST``, for a package granted other destinations), with ``--widen`` when the
    package declares its permissions and not this one (``widen``)."""
    if policy is None or policy.network.wide or not _failed(text, is_error):
        return None
    asked = tuple(requested)
    destinations = policy.network.destinations
    if policy.network.any and not destinations:
        return None  # granted (by port): the failure is the network's own
    failure = _failure(text[:_SCANNED])
    if failure is None:
        return None
    package, name = printable_line(package_id), printable_line(tool)
    host = failure.host
    where = host if host is not None else "the network"
    if destinations:
        if host is None or _granted(destinations, host, failure.port):
            return None  # the destination is not known, or granted: not the grant's doing
        grant = Destination(host, failure.port).grant
        shown = ", ".join(str(d) for d in destinations)
        message = (
            f"{package}: its tool {name} failed to reach {host} ({failure.what}): its network "
            f"grants reach {shown} only, through the gateway's proxy"
        )
    else:
        grant = next(
            (p for p in asked if is_wide_network(p) or p.startswith("network:")), "network"
        )
        narrow = (
            f"; `network:{host}` would open that host only (through the gateway's proxy, for "
            "code that uses HTTPS_PROXY and resolves no names itself)"
            if host is not None and grant == "network"
            else ""
        )
        message = (
            f"{package}: its tool {name} failed to reach {where} ({failure.what}): the package "
            f"has no network grant, so its sandbox reaches no host{narrow}"
        )
    widen = widen and grant not in asked  # what it requests is granted without --widen
    command = f"gateway permissions {package} {grant}" + (" --widen" if widen else "")
    return _codes.NO_NETWORK_GRANT(message, package=package_id, contribution=tool, hint=command)
