"""What a failed tool's text says of a host its sandbox could not reach, and the grant that
would let it (gateway/sandbox/_unreachable.py). The lines are what Node, Python and curl
print; a real confined package is in tests/pi/test_network_hint.py, and a real confined
lookup below."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import anyio
import pytest

from gateway.runtime import run_child
from gateway.sandbox import (
    NetworkAccess,
    SandboxPolicy,
    explain_unreachable,
    grants_from,
    package_sandbox,
    parse_destination,
    python_runtime_paths,
)

from .conftest import needs_landlock

NODE = "Error: Failed to resolve api.example.org: getaddrinfo EAI_AGAIN api.example.org"


def _policy(tmp_path: Path, *grants: str) -> SandboxPolicy:
    return package_sandbox(
        home=tmp_path, package_id="p", package_root=None, workspace=None,
        grants=grants_from(grants), runtime=python_runtime_paths(),
    ).policy  # fmt: skip


def _hint(
    text: str, policy: SandboxPolicy | None, is_error: bool = True, **kw: object
) -> str | None:
    said = explain_unreachable(text, is_error, policy, "p", "fetch", **kw)  # type: ignore[arg-type]
    return None if said is None else said.hint


@pytest.mark.parametrize(
    ("text", "host"),
    [
        (NODE, "api.example.org"),
        ("TypeError: fetch failed\n  [cause]: Error: getaddrinfo ENOTFOUND Api.Example.org.", "api.example.org"),
        ("HTTPSConnectionPool(host='api.example.org', port=443): Max retries exceeded (Caused by "
         "NameResolutionError(\"Failed to resolve 'api.example.org' ([Errno -3] Temporary "
         "failure in name resolution)\"))", "api.example.org"),
        ("curl: (6) Could not resolve host: api.example.org", "api.example.org"),
        ("<urlopen error [Errno -3] Temporary failure in name resolution>", None),
        ("Error: connect ENETUNREACH 93.184.215.14:443", "93.184.215.14"),
        ("OSError: [Errno 101] Network is unreachable", None),
        ("Error: connect ECONNREFUSED 127.0.0.1:3128", None),
        ("TypeError: fetch failed", None),
    ],
)  # fmt: skip
def test_without_a_network_grant_each_failure_names_the_grant(tmp_path, text, host):
    said = explain_unreachable(text, True, _policy(tmp_path), "p", "fetch")
    assert said is not None and said.code == "sandbox.no_network_grant"
    assert said.hint == "gateway permissions p network"
    assert said.package == "p" and said.contribution == "fetch"
    assert f"failed to reach {host or 'the network'} (" in said.message


def test_a_refusal_by_a_listener_is_not_the_sandboxs(tmp_path):
    assert _hint("Error: connect ECONNREFUSED 127.0.0.1:8080", _policy(tmp_path)) is None


def test_a_failure_unrelated_to_the_network_says_nothing(tmp_path):
    assert _hint("Error: ENOENT: no such file or directory, open 'x'", _policy(tmp_path)) is None


def test_a_result_that_is_no_failure_says_nothing_whatever_it_quotes(tmp_path):
    log = f"line 1 of the log\n{NODE}\n"
    assert _hint(log, _policy(tmp_path), is_error=False) is None
    assert _hint(f"Terrors of the deep\n{NODE}", _policy(tmp_path), is_error=False) is None
    assert _hint(f"TypeError: x\n{NODE}", _policy(tmp_path), is_error=False) is not None
    assert _hint(NODE, _policy(tmp_path), is_error=False) == "gateway permissions p network"


def test_with_the_network_granted_or_unconfined_nothing_is_said(tmp_path):
    assert _hint(NODE, _policy(tmp_path, "network")) is None
    by_port = dataclasses.replace(
        _policy(tmp_path), network=NetworkAccess(connect=frozenset({443}))
    )
    assert _hint(NODE, by_port) is None
    assert _hint(NODE, None) is None


def test_with_destinations_only_a_host_none_of_them_reaches_is_hinted(tmp_path):
    policy = _policy(tmp_path, "network:*.example.org", "network:pypi.org:443")
    assert _hint(NODE, policy) is None  # granted: its own failure
    assert _hint("TypeError: fetch failed", policy) is None  # which host is not known
    other = "Error: getaddrinfo EAI_AGAIN files.pythonhosted.org"
    assert _hint(other, policy) == "gateway permissions p network:files.pythonhosted.org"
    said = explain_unreachable(other, True, policy, "p", "fetch")
    assert said is not None and "grants reach *.example.org, pypi.org:443 only" in said.message
    refused = "Error: connect EACCES 10.0.0.5:8080"
    assert _hint(refused, policy) == "gateway permissions p network:10.0.0.5:8080"
    assert parse_destination("10.0.0.5:8080")  # the hint's grant is one `permissions` takes


def test_a_requested_network_permission_is_the_one_hinted(tmp_path):
    policy = _policy(tmp_path)
    asked = ["workspace.write", "network.http"]
    assert _hint(NODE, policy, requested=asked) == "gateway permissions p network.http"
    assert _hint(NODE, policy, requested=asked, widen=True) == "gateway permissions p network.http"
    assert _hint(NODE, policy, widen=True) == "gateway permissions p network --widen"


def test_hostile_text_is_never_echoed(tmp_path):
    text = "Error: getaddrinfo EAI_AGAIN \x1b]0;pwned\x07evil.example\x1b[2J"
    said = explain_unreachable(text, True, _policy(tmp_path), "p\x1b[31m", "fe\x1b[2Jtch")
    assert said is not None
    assert "\x1b" not in said.message and "\x1b" not in (said.hint or "")
    assert "pwned" not in said.message and "evil" not in said.message
    assert "failed to reach the network (EAI_AGAIN)" in said.message
    assert said.package == "p\x1b[31m"  # the exact value, for --json


@needs_landlock
def test_a_real_confined_lookup_is_recognised(tmp_path):
    """Python's own lookup, in a sandbox without network: what it prints is recognised."""
    policy = _policy(tmp_path)
    code = "import socket\ntry:\n socket.getaddrinfo('api.example.org', 443)\nexcept OSError as e:\n print(repr(e))"

    async def run() -> str:
        done = await run_child(
            [sys.executable, "-I", "-S", "-c", code], policy=policy, cwd=tmp_path, env={},
            time_limit=30, cap=65536,
        )  # fmt: skip
        return done.stdout.decode()

    printed = anyio.run(run)
    assert "Temporary failure in name resolution" in printed or "EAI_AGAIN" in printed, printed
    assert _hint(printed, policy) == "gateway permissions p network"
