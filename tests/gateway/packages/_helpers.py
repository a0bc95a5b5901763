"""Builders for the package tests: package folders, git repositories, the CLI, the gates."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gateway.packages import (
    InstallReport,
    PackageStatus,
    evaluate_packages,
    install,
    load_adapters,
)
from gateway.store import STATE_FILE, InstalledPackage, StateStore
from tests._cli import run_gateway
from tests.adapters._helpers import write_tree

REPO = Path(__file__).resolve().parents[3]

# A tiny nimlet extension: it marks that it ran, registers one tool and echoes calls.
EXTENSION_SCRIPT = """#!@PYTHON@
import json
import sys

with open(@MARKER@, "a") as handle:
    handle.write("started\\n")


def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()


send(
    {
        "type": "register",
        "tools": [
            {"name": "pkg_echo", "description": "echo from a package", "input_schema": {"type": "object"}}
        ],
        "commands": [],
        "events": [],
    }
)
for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") == "shutdown":
        break
    if message.get("type") == "tool":
        arguments = json.dumps(message.get("arguments") or {}, sort_keys=True)
        send({"type": "response", "id": message["id"], "content": "echo " + arguments})
"""


def dependency(kind: str, name: str, specifier: str = "", optional: bool = False) -> dict[str, Any]:
    found: dict[str, Any] = {"kind": kind, "name": name}
    if specifier:
        found["specifier"] = specifier
    if optional:
        found["optional"] = True
    return found


def nanobot(
    root: Path,
    package_id: str,
    *,
    version: str = "1.0.0",
    permissions: Iterable[str] = (),
    dependencies: Iterable[dict[str, Any]] = (),
    files: dict[str, object] | None = None,
) -> Path:
    """A declarative nanobot package (metadata only, nothing to run)."""
    manifest = {
        "id": package_id,
        "name": package_id,
        "version": version,
        "apiVersion": 1,
        "runtime": "declarative",
        "permissions": [{"name": p, "reason": f"the tests need {p}"} for p in permissions],
        "dependencies": list(dependencies),
    }
    return write_tree(root, {"nanobot.extension.json": manifest, **(files or {})})


def pi(root: Path, name: str, version: str = "1.0.0", **extra: Any) -> Path:
    manifest = {"name": name, "version": version, "pi": {"extensions": ["./index.ts"]}, **extra}
    return write_tree(root, {"package.json": manifest, "index.ts": "export default () => {}\n"})


def nimlet(root: Path, name: str, marker: Path) -> Path:
    """A nimlet extension package whose process appends to ``marker`` when it starts."""
    script = EXTENSION_SCRIPT.replace("@PYTHON@", sys.executable).replace(
        "@MARKER@", repr(str(marker))
    )
    write_tree(root, {"extension.json": {"name": name, "command": ["./ext.py"]}, "ext.py": script})
    (root / "ext.py").chmod(0o755)
    return root


def install_from(home: Path, source: Path | str, **options: Any) -> InstallReport:
    options.setdefault("kind", "local")
    return install(home, str(source), inspector=load_adapters().inspect, **options)


def requested(package: InstalledPackage) -> list[str]:
    return [p.name for p in load_adapters().inspect(package.record.path).permissions]


def make_ready(
    home: Path, package_id: str, *, trust: bool = True, grant: bool = True, enable: bool = True
) -> None:
    """Pass the chosen gates (grant = every requested permission)."""
    with StateStore.open(home) as store:
        package = store.get_package(package_id)
        wanted = requested(package)
        if grant and wanted:
            store.grant(package_id, wanted, wanted)
        store.set_trusted(package_id, trust)
        store.set_enabled(package_id, enable)


def evaluate(home: Path) -> list[PackageStatus]:
    return evaluate_packages(home, load_adapters())


def by_id(statuses: Iterable[PackageStatus]) -> dict[str, PackageStatus]:
    return {status.id: status for status in statuses}


def codes(status: PackageStatus) -> list[str]:
    return [d.code for d in status.diagnostics]


def recorded(home: Path) -> list[InstalledPackage]:
    if not (home / STATE_FILE).exists():
        return []
    with StateStore.open(home) as store:
        return store.list_packages()


def cli(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``gateway ARGS`` with its state in ``home`` and an empty user home beside it, as
    ``python -m gateway`` would, in this process where it can (tests/_cli.py)."""
    user = home.parent / "user"
    user.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env.update(GATEWAY_HOME=str(home), HOME=str(user))
    return run_gateway(args, env=env, cwd=cwd or user)


def cli_json(home: Path, *args: str, code: int = 0) -> Any:
    done = cli(home, *args, "--json")
    assert done.returncode == code, (done.stdout, done.stderr)
    return json.loads(done.stdout)


GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Tester",
    "GIT_AUTHOR_EMAIL": "tester@example.com",
    "GIT_COMMITTER_NAME": "Tester",
    "GIT_COMMITTER_EMAIL": "tester@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repository: Path, *args: str) -> str:
    env = {**os.environ, **GIT_IDENTITY, "HOME": str(repository.parent)}
    done = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
        cwd=repository,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def version_folders(home: Path) -> set[Path]:
    """Every installed version folder on disk (staging and the lock files excluded)."""
    root = home / "packages"
    if not root.is_dir():
        return set()
    return {
        version
        for folder in root.iterdir()
        if folder.is_dir() and folder.name not in (".staging", ".locks")
        for version in folder.iterdir()
    }


def staging_leftovers(home: Path) -> list[Path]:
    staging = home / "packages" / ".staging"
    return sorted(staging.iterdir()) if staging.is_dir() else []
