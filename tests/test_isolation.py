"""The suite is isolated from its machine (tests/conftest.py): its own HOME and GATEWAY_HOME in
every process, Node from this installation — so it passes while the machine's `~/.gateway`
holds a Node environment that points at nothing and a version cache that lies (issue 35: a
run failed 76 tests while another installation's `gateway setup` rewrote `~/.gateway/node`)."""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

from gateway.runtime import bundled_node_dir, find_node, node_env_dir

REPO = Path(__file__).resolve().parents[1]
MACHINE_HOME = Path(pwd.getpwuid(os.getuid()).pw_dir)


def test_every_test_runs_with_its_own_home_and_gateway_home() -> None:
    home = Path(os.environ["HOME"])
    assert home != MACHINE_HOME and home.name == "home"
    assert home.parent.name.startswith("gateway-suite-")
    assert Path(os.environ["GATEWAY_HOME"]) == home / ".gateway"
    assert Path.home() == home


def test_node_comes_from_this_installation() -> None:
    node = find_node()
    assert node is not None
    env, bundled = node_env_dir(), bundled_node_dir()
    own = [env / "bin" / "node", *([bundled / "node"] if bundled else [])]
    assert Path(node) in own, node


def _identity(executable: Path) -> str:
    """The key under which `gateway.runtime.node` caches a Node's version."""
    real = os.path.realpath(executable)
    info = os.stat(real)
    return f"{real}:{info.st_ino}:{info.st_size}:{info.st_mtime_ns}"


def _broken_machine_home(root: Path) -> Path:
    """A user's home whose `~/.gateway` is broken every way the suite could trip on: a
    private Node environment at the old place whose Node fails and runs a Node that is gone,
    and a version cache saying every Node this installation can find is 1.0.0."""
    home = root / "machine-home"
    gateway_home = home / ".gateway"
    (gateway_home / "node" / "bin").mkdir(parents=True)
    node = gateway_home / "node" / "bin" / "node"
    node.write_text("#!/bin/sh\nexit 1\n")
    node.chmod(0o755)
    record = {"node": str(root / "gone" / "node"), "version": "24.0.0", "source": "x"}
    (gateway_home / "node" / "gateway-node.json").write_text(json.dumps(record))
    candidates = [node_env_dir() / "bin" / "node", node]
    if bundled_node_dir() is not None:
        candidates.append(bundled_node_dir() / "node")  # type: ignore[operator]
    lies = {_identity(path): [1, 0, 0] for path in candidates if path.exists()}
    (gateway_home / "cache").mkdir()
    (gateway_home / "cache" / "node-versions.json").write_text(json.dumps(lies))
    return home


def _machine_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GATEWAY_")}
    env["HOME"] = str(home)
    return env


def test_the_suite_passes_while_the_machines_gateway_home_is_broken(tmp_path: Path) -> None:
    home = _broken_machine_home(tmp_path)
    # Control: the broken home does reach a gateway that uses it (its Node looks too old)...
    doctor = subprocess.run(
        [sys.executable, "-m", "gateway", "doctor", "--json"],
        env=_machine_env(home), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["node"]["status"] != "ok", checks["node"]
    # ...and a part of the suite that needs Node >= 22.19 (it skips without one), run under
    # that home, finds its own and passes.
    report = tmp_path / "report.xml"
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "tests/pi/test_prompt_args.py", "-n", "0",
         "-p", "no:cacheprovider", "--basetemp", str(tmp_path / "basetemp"),
         f"--junitxml={report}"],
        env=_machine_env(home), cwd=REPO, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    suite = ElementTree.parse(report).getroot().find("testsuite")
    assert suite is not None
    ran, skipped = int(suite.get("tests", "0")), int(suite.get("skipped", "0"))
    assert ran >= 10 and skipped == 0, (ran, skipped)
