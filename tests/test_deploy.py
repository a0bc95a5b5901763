"""The deployment recipes of ``deploy/`` (docs/deploy.md), checked without a container
runtime or a cluster:

- every YAML file parses, and the Kubernetes manifests pass the official OpenAPI schemas
  (``kubernetes-validate``, offline, strict: an unknown field fails);
- the Deployment probes ``/readyz`` and ``/healthz``, runs ``gateway sync --frozen`` before
  ``gateway serve --mcp --http``, and mounts what its script reads (lockfile, tokens);
- every ``gateway …`` command of the Containerfile, the entrypoint, the Deployment and the
  systemd unit names a real verb and real options (``gateway VERB --help``, and the
  gateway's own parser takes the whole command);
- the systemd unit passes ``systemd-analyze verify`` with no warning, and its system call
  filter leaves the sandbox its Landlock and seccomp calls;
- the container's entrypoint script really runs here: the shipped empty lockfile syncs
  frozen, a read-only token file linked the way a Kubernetes Secret is mounted opens
  ``/mcp``, and replacing the Secret's contents revokes the token on the running server.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from gateway.cli._parser import build_parser
from gateway.serve import TokenStore
from tests._cli import run_here

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
CONTAINERFILE = DEPLOY / "Containerfile"
ENTRYPOINT = DEPLOY / "entrypoint.sh"
UNIT = DEPLOY / "systemd" / "extension-gateway.service"
LOCKFILE = DEPLOY / "gateway.lock"
MANIFESTS = sorted((DEPLOY / "kubernetes").glob("*.yaml"))
YAML_FILES = sorted([*DEPLOY.rglob("*.yaml"), *DEPLOY.rglob("*.yml")])
# The oldest Kubernetes still widely run, and the newest the schemas bundle.
KUBERNETES_VERSIONS = ("1.28.0", kubernetes_validate.latest_version())
LANDLOCK_CALLS = ("landlock_create_ruleset", "landlock_add_rule", "landlock_restrict_self")


def _documents(path: Path) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")) if doc]


def _resources() -> dict[str, dict[str, Any]]:
    return {
        doc["kind"]: doc for path in MANIFESTS for doc in _documents(path) if isinstance(doc, dict)
    }


def _deployment() -> dict[str, Any]:
    return _resources()["Deployment"]


def _container() -> dict[str, Any]:
    (container,) = _deployment()["spec"]["template"]["spec"]["containers"]
    return container


def _container_script() -> str:
    container = _container()
    assert container["command"][:2] == ["/bin/sh", "-ec"]
    (script,) = container["args"]
    return script


# ----------------------------------------------------------------------------- YAML


def test_there_are_recipes():
    assert CONTAINERFILE.is_file() and ENTRYPOINT.is_file() and UNIT.is_file()
    assert {path.name for path in MANIFESTS} >= {"deployment.yaml", "service.yaml"}


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_yaml_file_parses(path: Path):
    assert _documents(path), f"{path} holds no document"


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
@pytest.mark.parametrize("path", MANIFESTS, ids=lambda path: path.name)
def test_the_manifests_pass_the_kubernetes_schemas(path: Path, version: str):
    for document in _documents(path):
        kubernetes_validate.validate(document, version, strict=True)


def test_the_schema_check_is_not_vacuous():
    deployment = _deployment()
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["readinesProbe"] = container.pop("readinessProbe")  # a typo
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(deployment, KUBERNETES_VERSIONS[-1], strict=True)


# ------------------------------------------------------------------ the Deployment


def test_the_deployment_runs_two_replicas_as_a_non_root_user():
    spec = _deployment()["spec"]
    assert spec["replicas"] == 2
    pod = spec["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    container = _container()
    assert container["securityContext"]["allowPrivilegeEscalation"] is False
    assert container["securityContext"]["capabilities"]["drop"] == ["ALL"]
    assert {"requests", "limits"} <= set(container["resources"])
    # seccomp stays on; the gateway stacks its own filters on the runtime's.
    assert pod["securityContext"]["seccompProfile"]["type"] in ("RuntimeDefault", "Localhost")


def test_the_probes_ask_the_gateway_s_own_endpoints():
    container = _container()
    port = container["ports"][0]
    assert port["containerPort"] == 8080
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
        assert container[probe]["httpGet"]["port"] in (port["name"], 8080)


def test_the_container_syncs_frozen_before_it_serves():
    script = _container_script()
    commands = _gateway_commands(script)
    verbs = [command[1] for command in commands]
    assert verbs == ["sync", "serve"]
    sync, serve = commands
    assert {"--frozen", "--accept", "--lockfile"} <= set(sync)
    assert serve[:5] == ["gateway", "serve", "--mcp", "--http", "0.0.0.0:8080"]
    assert re.search(r"(?m)^\s*exec gateway serve ", script), "serve must be PID 1's process"


def test_the_server_follows_the_mounted_lockfile_and_serves_metrics_apart():
    sync, serve = _gateway_commands(_container_script())
    lockfile = sync[sync.index("--lockfile") + 1]
    assert serve[serve.index("--lockfile") + 1] == lockfile  # a new ConfigMap is served
    metrics = serve[serve.index("--metrics") + 1]
    port = int(metrics.rpartition(":")[2])
    ports = {p["name"]: p["containerPort"] for p in _container()["ports"]}
    assert ports["metrics"] == port
    annotations = _deployment()["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/port"] == str(port)
    # The Service publishes /mcp only: /metrics is for the pod network (Prometheus).
    assert [p["targetPort"] for p in _resources()["Service"]["spec"]["ports"]] == ["http"]


def test_the_deployment_mounts_what_its_script_reads():
    resources = _resources()
    container, pod = _container(), _deployment()["spec"]["template"]["spec"]
    script = _container_script()
    env = {item["name"]: item["value"] for item in container["env"]}
    mounts = {mount["name"]: mount for mount in container["volumeMounts"]}
    volumes = {volume["name"]: volume for volume in pod["volumes"]}

    sync = next(command for command in _gateway_commands(script) if command[1] == "sync")
    lockfile = Path(sync[sync.index("--lockfile") + 1])
    assert mounts["lockfile"]["mountPath"] == str(lockfile.parent)
    config_map = resources["ConfigMap"]
    assert volumes["lockfile"]["configMap"]["name"] == config_map["metadata"]["name"]
    assert lockfile.name in config_map["data"]

    link = re.search(r'ln -sfn (\S+) "\$GATEWAY_HOME/tokens.json"', script)
    assert link, "the token file is linked into GATEWAY_HOME"
    tokens = Path(link.group(1))
    assert mounts["tokens"]["mountPath"] == str(tokens.parent)
    assert mounts["tokens"]["readOnly"] is True
    secret = resources["Secret"]
    assert volumes["tokens"]["secret"]["secretName"] == secret["metadata"]["name"]
    assert tokens.name in secret["stringData"]

    # GATEWAY_HOME is on the writable per-pod volume, never in the (read-only) image.
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert Path(env["GATEWAY_HOME"]).is_relative_to(mounts["home"]["mountPath"])
    assert "emptyDir" in volumes["home"]


def test_the_config_map_holds_the_shipped_lockfile():
    config_map = _resources()["ConfigMap"]
    assert json.loads(config_map["data"]["gateway.lock"]) == json.loads(
        LOCKFILE.read_text(encoding="utf-8")
    )


def test_the_secret_holds_a_token_file_the_gateway_reads(tmp_path: Path):
    secret = _resources()["Secret"]
    (tmp_path / "tokens.json").write_text(secret["stringData"]["tokens.json"], encoding="utf-8")
    assert TokenStore(tmp_path).records() == ()


def test_the_service_reaches_the_container_port():
    service = _resources()["Service"]
    assert service["spec"]["selector"] == _deployment()["spec"]["selector"]["matchLabels"]
    (port,) = service["spec"]["ports"]
    assert port["targetPort"] in (_container()["ports"][0]["name"], 8080)


# ---------------------------------------------------------- gateway commands are real


def _gateway_commands(text: str) -> list[list[str]]:
    """Each ``gateway …`` command in a shell script, Containerfile or unit (comments and
    continuation lines joined), as words."""
    joined = re.sub(r"\\\n", " ", text)
    commands = []
    for line in joined.splitlines():
        if line.lstrip().startswith("#"):
            continue
        for part in re.split(r"&&|;|\|\|", line):
            words = shlex.split(part, posix=True)
            while words and (
                ("=" in words[0] and not words[0].startswith("-")) or words[0] in ("exec", "RUN")
            ):
                words = words[1:]  # VAR=value, exec, RUN
            if words and Path(words[0].split("=", 1)[-1]).name == "gateway":
                commands.append(["gateway", *words[1:]])
    return commands


def _unit_commands() -> list[list[str]]:
    text = UNIT.read_text(encoding="utf-8")
    lines = re.findall(r"(?m)^Exec\w*=(.*)$", text)
    return _gateway_commands("\n".join(lines))


SOURCES = {
    "Containerfile": lambda: _gateway_commands(CONTAINERFILE.read_text(encoding="utf-8")),
    "entrypoint.sh": lambda: _gateway_commands(ENTRYPOINT.read_text(encoding="utf-8")),
    "deployment.yaml": lambda: _gateway_commands(_container_script()),
    "extension-gateway.service": _unit_commands,
}
_PLACEHOLDERS = {
    "$LOCKFILE": "/etc/gateway/gateway.lock",
    "$LISTEN": "0.0.0.0:8080",
    "$TOKENS_FILE": "/etc/gateway/tokens/tokens.json",
}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_every_gateway_command_is_a_real_verb_with_real_options(source: str):
    commands = SOURCES[source]()
    assert commands, f"no gateway command found in {source}"
    for command in commands:
        argv = [_PLACEHOLDERS.get(word, word) for word in command[1:] if word != "$@"]
        verb = [word for word in argv if not word.startswith("-")][:1]
        # `gateway VERB --help` as the command line prints it, in this process (tests/_cli.py)
        done = run_here([*verb, "--help"], cwd=ROOT, env=os.environ)
        assert done.returncode == 0, f"{command}: {done.stderr}"
        for option in (word for word in argv if word.startswith("--")):
            assert option in done.stdout, f"{source}: `gateway {verb[0]}` has no {option}"
        build_parser(argv).parse_args(argv)  # the whole command, values included


def test_the_containerfile_sets_up_and_runs_as_a_non_root_user():
    text = CONTAINERFILE.read_text(encoding="utf-8")
    assert re.search(r"(?m)^FROM python:3\.\d+-slim\b", text)
    assert [command[1] for command in _gateway_commands(text)] == ["setup"]
    assert re.search(r"(?m)^VOLUME\b", text)
    assert re.search(r"(?m)^ENV GATEWAY_HOME=", text)
    user = re.findall(r"(?m)^USER (\S+)", text)
    assert user and not user[-1].startswith(("root", "0")), "the last USER must not be root"
    assert re.search(r"(?m)^COPY \$\{LOCKFILE\} /etc/gateway/gateway\.lock$", text)
    entrypoint = re.search(r"(?m)^ENTRYPOINT (\[.*\])$", text)
    assert entrypoint
    (program,) = json.loads(entrypoint.group(1))
    assert re.search(rf"(?m)^COPY deploy/entrypoint\.sh {re.escape(program)}$", text)
    verbs = [command[1] for command in _gateway_commands(ENTRYPOINT.read_text(encoding="utf-8"))]
    assert verbs == ["sync", "serve"]


# ----------------------------------------------------------------------------- systemd


def test_the_unit_syncs_frozen_then_serves_on_loopback():
    text = UNIT.read_text(encoding="utf-8")
    pre = re.findall(r"(?m)^ExecStartPre=(.*)$", text)
    start = re.findall(r"(?m)^ExecStart=(.*)$", text)
    assert any(re.search(r"/gateway sync --frozen --accept --lockfile \S+$", line) for line in pre)
    assert len(start) == 1
    assert re.search(r"/gateway serve --mcp --http 127\.0\.0\.1:8080( |$)", start[0])
    # The running server follows the lockfile the start synced, and /metrics stays local.
    lockfile = re.search(r"--lockfile (\S+)$", next(line for line in pre if " sync " in line))
    assert lockfile and f"--lockfile {lockfile.group(1)}" in start[0]
    assert "--metrics 127.0.0.1:" in start[0]
    assert re.search(r"(?m)^ExecReload=/bin/kill -HUP \$MAINPID$", text)


def test_the_unit_leaves_the_sandbox_its_system_calls():
    settings = dict(
        line.split("=", 1)
        for line in UNIT.read_text(encoding="utf-8").splitlines()
        if "=" in line and not line.startswith("#")
    )
    allowed = settings["SystemCallFilter"].split()
    assert not allowed[0].startswith("~"), "an allow-list, extended with what the sandbox uses"
    for call in (*LANDLOCK_CALLS, "seccomp"):
        assert call in allowed
    # Node's JIT writes code; read-only cgroups would undo the delegation.
    assert "MemoryDenyWriteExecute" not in settings
    assert "ProtectControlGroups" not in settings
    assert settings["Delegate"] == "yes"
    assert settings["NoNewPrivileges"] == "yes"


def test_systemd_analyze_verifies_the_unit(tmp_path: Path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed here")
    # verify checks that each Exec program exists: point them at this checkout's gateway.
    gateway = shutil.which("gateway", path=str(Path(sys.executable).parent))
    if gateway is None:
        pytest.skip("no gateway script beside this Python (an editable install makes one)")
    unit = tmp_path / UNIT.name
    unit.write_text(
        UNIT.read_text(encoding="utf-8").replace("/opt/extension-gateway/bin/gateway", gateway),
        encoding="utf-8",
    )
    done = subprocess.run(
        [analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    # Unknown keys and unknown system call groups are only warnings: none may appear.
    assert done.stderr.strip() == "", done.stderr


# ------------------------------------------------------- the entrypoint, for real


def _secret_volume(folder: Path, version: str, tokens: str) -> None:
    """What the kubelet does for a Secret volume: the files in a versioned folder,
    ``..data`` pointing at it, each key a link through ``..data``; an update writes a
    new folder and swaps ``..data`` atomically. The files are read-only."""
    versioned = folder / f"..{version}"
    versioned.mkdir()
    (versioned / "tokens.json").write_text(tokens, encoding="utf-8")
    (versioned / "tokens.json").chmod(0o444)
    versioned.chmod(0o555)
    link = folder / "..data_tmp"
    link.symlink_to(versioned.name)
    link.replace(folder / "..data")
    if not (folder / "tokens.json").is_symlink():
        (folder / "tokens.json").symlink_to("..data/tokens.json")


def _request(url: str, token: str | None = None) -> int:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test_deploy", "version": "1"},
        },
    }
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode() if token is not None else None,
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **({"Authorization": f"Bearer {token}"} if token else {}),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


@contextlib.contextmanager
def _entrypoint(tmp_path: Path, secret: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    shim = tmp_path / "bin"
    shim.mkdir()
    (shim / "gateway").write_text(
        f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m gateway "$@"\n', encoding="utf-8"
    )
    (shim / "gateway").chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{shim}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path / "user"),
        "GATEWAY_HOME": str(tmp_path / "volume" / "home"),
        "LOCKFILE": str(LOCKFILE),
        "TOKENS_FILE": str(secret / "tokens.json"),
        "LISTEN": "127.0.0.1:0",
    }
    process = subprocess.Popen(
        ["/bin/sh", str(ENTRYPOINT)],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        said = ""
        for line in process.stderr:
            said += line
            found = re.search(r"MCP on (http://\S+)/mcp", line)
            if found:
                break
        else:
            raise AssertionError(f"the server did not start:\n{said}")
        yield found.group(1), process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=30)
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


def test_the_entrypoint_syncs_links_the_secret_and_serves(tmp_path: Path):
    admin = tmp_path / "admin"
    made = subprocess.run(
        [sys.executable, "-m", "gateway", "token", "create", "ci-bot", "--json"],
        env={**os.environ, "GATEWAY_HOME": str(admin), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    token = json.loads(made.stdout)["token"]
    secret = tmp_path / "secret"
    secret.mkdir()
    _secret_volume(secret, "v1", (admin / "tokens.json").read_text(encoding="utf-8"))

    with _entrypoint(tmp_path, secret) as (base, process):
        assert _request(f"{base}/healthz") == 200
        deadline = time.monotonic() + 60
        while _request(f"{base}/readyz") != 200:
            assert time.monotonic() < deadline, "/readyz never became 200"
            time.sleep(0.2)
        assert _request(f"{base}/mcp", token) == 200
        assert _request(f"{base}/mcp", "gw_not-a-token") == 401

        # The Secret is updated without the token: the running server refuses it.
        subprocess.run(
            [sys.executable, "-m", "gateway", "token", "revoke", "ci-bot"],
            env={**os.environ, "GATEWAY_HOME": str(admin), "PYTHONPATH": str(ROOT)},
            capture_output=True,
            check=True,
            timeout=60,
        )
        _secret_volume(secret, "v2", (admin / "tokens.json").read_text(encoding="utf-8"))
        assert _request(f"{base}/mcp", token) == 401

        home = tmp_path / "volume" / "home"
        assert (home / "tokens.json").is_symlink()
        assert (home.stat().st_mode & 0o777) == 0o700
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0


# ------------------------------------------------------------ the OpenTelemetry Collector


def test_the_collector_takes_otlp_over_http_where_the_docs_point_the_gateway():
    config = _documents(DEPLOY / "otel-collector.yaml")[0]
    endpoint = config["receivers"]["otlp"]["protocols"]["http"]["endpoint"]
    assert endpoint.endswith(":4318")
    docs = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    assert re.search(r"OTEL_EXPORTER_OTLP_ENDPOINT\n\s+value: http://\S+:4318", docs)
    # Every pipeline takes the gateway's OTLP and names only components defined above.
    pipelines = config["service"]["pipelines"]
    assert set(pipelines) == {"traces", "metrics"}
    for pipeline in pipelines.values():
        assert pipeline["receivers"] == ["otlp"]
        for kind in ("receivers", "processors", "exporters"):
            assert set(pipeline[kind]) <= set(config[kind])
    assert "grpc" not in config["receivers"]["otlp"]["protocols"]  # the gateway speaks HTTP
