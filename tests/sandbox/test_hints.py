"""Grant hints from a package's sources, and refusals recognised in real error output:
the lines are what Node and Python print when this sandbox refuses them."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.runtime import find_node
from gateway.sandbox import (
    PackageGrants,
    detect_support,
    explain_denial,
    grant_hints,
    node_runtime_paths,
    package_sandbox,
    policy_for_entry,
    python_runtime_paths,
    spawn_confined,
)
from tests.adapters._helpers import write_tree
from tests.gateway.packages._helpers import cli, cli_json, install_from, pi

from .conftest import needs_landlock

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "npm"


def test_a_real_package_using_fetch_in_a_dependency_is_said_to_need_network(
    tmp_path: Path,
) -> None:
    # The repository's own tarball (2,300 files), unpacked by GNU tar: a third of the CPU of
    # ``tarfile``'s data filter; it strips a leading "/" and skips a member with "..".
    tarball = FIXTURES / "agentuity-pi-2.0.21.tgz"
    subprocess.run(["tar", "--no-same-owner", "-xzf", str(tarball), "-C", str(tmp_path)],
                   check=True)  # fmt: skip
    hints = grant_hints(tmp_path / "package", "@agentuity/pi")
    network = [h for h in hints if "`network`" in h.message]
    assert network and network[0].code == "install.needs_grant"
    assert network[0].hint == "gateway permissions @agentuity/pi network"
    assert "fetch" in network[0].message


def test_hints_name_the_file_and_line_and_skip_what_is_granted(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "pkg", {
        "index.ts": "import x from 'y';\n\nconst r = await fetch(url);\n",
        "lib/save.py": "from pathlib import Path\nPath('out.txt').write_text('x')\n",
        "lib/home.js": "const os = require('os');\nconst h = os.homedir();\n",
    })  # fmt: skip
    messages = {h.message.split("(")[0]: h for h in grant_hints(root, "p")}
    assert any("index.ts:3" in m.message for m in messages.values())
    assert any("lib/save.py:2" in m.message for m in messages.values())
    home = [h for h in messages.values() if "home" in h.message]
    assert home and home[0].hint is None  # no grant opens the home
    granted = grant_hints(root, "p", frozenset({"network", "workspace.write"}))
    assert [h.hint for h in granted] == [None]


def test_a_package_that_does_nothing_outside_gets_no_hint(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "pkg", {"index.ts": "export default (pi) => pi.registerTool({})\n"}
    )
    assert grant_hints(root, "quiet") == []


def _denial_line(argv: list[str], policy: object, cwd: Path) -> str:
    child = spawn_confined(argv, policy=policy, cwd=cwd, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)  # type: ignore[arg-type]  # fmt: skip
    out, _ = child.communicate(timeout=60)
    return out.decode()


@pytest.fixture
def sandbox(tmp_path: Path):  # type: ignore[no-untyped-def]
    workspace = tmp_path / "ws"
    workspace.mkdir()
    node = find_node()
    built = package_sandbox(home=tmp_path / "home", package_id="p", package_root=None,
                            workspace=workspace, grants=PackageGrants(),
                            runtime=[*python_runtime_paths(), *node_runtime_paths(node)])  # fmt: skip
    return built.policy, workspace, node


@needs_landlock
def test_real_refusals_are_explained_with_the_missing_grant(sandbox) -> None:  # type: ignore[no-untyped-def]
    policy, workspace, node = sandbox
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    try:
        python_write = _denial_line(
            [sys.executable, "-c", f"open({str(workspace / 'x')!r}, 'w')"], policy, workspace
        )
        python_net = _denial_line(
            [sys.executable, "-c", f"import socket; socket.create_connection(('127.0.0.1', {port}))"],
            policy, workspace,
        )  # fmt: skip
        lines = [python_write, python_net]
        if node is not None:
            lines.append(_denial_line(
                [node, "-e", f"require('fs').writeFileSync({json.dumps(str(workspace / 'y'))}, 'x')"],
                policy, workspace,
            ))  # fmt: skip
    finally:
        listener.close()
    found = []
    for output in lines:
        explained = [d for line in output.splitlines()
                     if (d := explain_denial(line, policy, "p", workspace)) is not None]  # fmt: skip
        assert explained, output
        found.append(explained[0].hint)
    assert found[0] == "gateway permissions p workspace.write"
    assert found[1] == "gateway permissions p network"
    if node is not None:
        assert found[2] == "gateway permissions p workspace.write"


def test_lines_that_are_not_refusals_are_left_alone(sandbox) -> None:  # type: ignore[no-untyped-def]
    policy, workspace, _ = sandbox
    for line in ("all good", "Error: ENOENT: no such file or directory, open '/nope'", ""):
        assert explain_denial(line, policy, "p", workspace) is None


def test_a_pi_package_can_be_granted_network_though_it_declares_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    install_from(home, pi(tmp_path / "src", "net-pi"))
    granted = cli_json(home, "permissions", "net-pi", "network")
    assert granted == {"id": "net-pi", "requested": [], "granted": ["network"]}
    install_from(home, pi(tmp_path / "src", "net-pi"))  # a reinstall keeps it
    assert cli_json(home, "permissions", "net-pi")["granted"] == ["network"]

    from gateway.packages import load_adapters
    from gateway.store import StateStore

    with StateStore.open(home) as store:
        package = store.get_package("net-pi")
    entry = load_adapters().inspect(package.record.path)
    assert policy_for_entry(entry, package.granted, home=home, workspace=None).policy.network.any


def test_installing_a_real_package_says_which_grant_its_code_needs_in_plain_output(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    done = cli(home, "install", str(FIXTURES / "ollama-openclaw-web-search-0.2.2.tgz"))
    assert done.returncode == 0, done.stderr
    shown = done.stdout + done.stderr
    assert "install.needs_grant" in shown
    assert "gateway permissions @ollama/openclaw-web-search network" in shown


def test_a_granted_network_is_not_hinted_again_at_reinstall(tmp_path: Path) -> None:
    home = tmp_path / "home"
    tarball = str(FIXTURES / "ollama-openclaw-web-search-0.2.2.tgz")
    assert cli(home, "install", tarball).returncode == 0
    assert cli(home, "permissions", "@ollama/openclaw-web-search", "network").returncode == 0
    again = cli(home, "install", tarball)
    assert again.returncode == 0, again.stderr
    assert "permissions @ollama/openclaw-web-search network" not in again.stdout + again.stderr


def test_only_the_code_the_entry_points_reach_is_read(tmp_path: Path) -> None:
    """Tests, type declarations, examples and an unused dependency use the network; the
    code that loads does not."""
    root = write_tree(tmp_path / "pkg", {
        "index.ts": "import { tool } from './lib/tool.js';\nimport 'used';\nexport default tool;\n",
        "lib/tool.ts": "export const tool = () => 1;\n",
        "lib/tool.test.ts": "await fetch('http://localhost');\n",
        "tests/e2e.ts": "await fetch('http://localhost');\n",
        "types/api.d.ts": "declare function fetch(url: string): void;\n",
        "examples/demo.js": "require('fs').writeFileSync('x', 'y');\n",
        "node_modules/used/package.json": json.dumps({"exports": {".": {"import": "./m.mjs"}}}),
        "node_modules/used/m.mjs": "export const answer = 42;\n",
        "node_modules/unused/index.js": "module.exports = () => fetch('https://x');\n",
    })  # fmt: skip
    assert grant_hints(root, "p", entries=["index.ts"]) == []


def test_a_dependency_the_entry_imports_is_read_and_named(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "pkg", {
        "index.js": "const client = require('@acme/client/http');\n",
        "node_modules/@acme/client/http.js": "module.exports = (u) => fetch(u);\n",
    })  # fmt: skip
    (hint,) = grant_hints(root, "p", entries=["index.js"])
    assert "node_modules/@acme/client/http.js:1" in hint.message
    assert hint.hint == "gateway permissions p network"


def test_python_imports_are_followed_from_the_entry_module(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "pkg", {
        "review/__init__.py": "from .store import save\nfrom review import net\n",
        "review/store.py": "from pathlib import Path\ndef save(t):\n    Path('o').write_text(t)\n",
        "review/net.py": "import json\n",
        "review/unused.py": "import requests\n",
        "tests/test_review.py": "import socket\n",
    })  # fmt: skip
    hints = grant_hints(root, "p", entries=["review/__init__.py"])
    assert [h.hint for h in hints] == ["gateway permissions p workspace.write"]
    assert "review/store.py:3" in hints[0].message


def test_without_entry_points_tests_and_declarations_are_still_skipped(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "pkg", {
        "src/main.ts": "export const x = 1;\n",
        "src/main.spec.ts": "await fetch('http://localhost');\n",
        "src/api.d.ts": "declare function fetch(u: string): void;\n",
        "test/run.js": "require('fs').writeFileSync('x', 'y');\n",
    })  # fmt: skip
    assert grant_hints(root, "p") == []


def test_an_import_cannot_lead_the_reader_outside_the_package(tmp_path: Path) -> None:
    write_tree(tmp_path, {"outside.js": "fetch('https://x');\n"})
    root = write_tree(tmp_path / "pkg", {"index.js": "import '../outside.js';\n"})
    assert grant_hints(root, "p", entries=["index.js"]) == []


def test_a_package_writing_where_git_runs_code_gets_no_grant_command(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "pkg", {
        "index.js": "const fs = require('fs');\n"
                    "fs.writeFileSync('.git/hooks/pre-commit', payload, { mode: 0o755 });\n",
    })  # fmt: skip
    (hint,) = grant_hints(root, "p", entries=["index.js"])
    assert hint.hint is None
    assert ".git/hooks" in hint.message and "outside any sandbox" in hint.message
    assert "gateway permissions" not in hint.message


def test_a_write_grant_hint_says_what_the_grant_opens(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "pkg", {"save.py": "open('notes.txt', 'w').write('x')\n"})
    (hint,) = grant_hints(root, "p", entries=["save.py"])
    assert hint.hint == "gateway permissions p workspace.write"
    opens = (
        "writable, but for .git, CI and agent configs, which stay read-only"
        if detect_support().private_mounts or detect_support().user_namespaces
        else "the whole workspace writable, .git included"
    )
    assert opens in hint.message


def test_a_hostile_source_neither_stalls_the_reader_nor_hides_a_real_import(
    tmp_path: Path,
) -> None:
    """Thousands of `import` words before an unmatched run, an unclosed Python import list:
    the matcher stays linear, and the real import after them is still followed."""
    root = write_tree(tmp_path / "pkg", {
        "index.js": "import a " * 40_000 + "\nimport './net.js';\n",
        "net.js": "fetch('https://x');\n",
        "main.py": "from . import (\n" + "name, " * 40_000 + "\nimport helper\n",
        "helper.py": "open('out.txt', 'w').write('x')\n",
    })  # fmt: skip
    hints = grant_hints(root, "p", entries=["index.js", "main.py"])
    assert sorted(h.hint or "" for h in hints) == [
        "gateway permissions p network", "gateway permissions p workspace.write",
    ]  # fmt: skip


def test_a_package_that_names_its_hosts_is_offered_grants_by_host(tmp_path: Path) -> None:
    root = tmp_path / "p"
    write_tree(root, {"index.js": (
        'const API = "https://api.weather.gov/v1";\n'
        "export const go = () => fetch(`${API}/now`).then(() =>\n"
        '  fetch("https://uploads.weather.gov:8443/x"));\n'
        '// see http://localhost:3000 for the dev server\n'
    )})  # fmt: skip
    (hint,) = grant_hints(root, "p", entries=["index.js"])
    assert hint.hint == "gateway permissions p network:api.weather.gov network:uploads.weather.gov"
    assert "plain `network` opens any host" in hint.message
    # granted by host (or wide), it is not hinted again
    assert (
        grant_hints(root, "p", frozenset({"network:api.weather.gov"}), entries=["index.js"]) == []
    )
    assert grant_hints(root, "p", frozenset({"network"}), entries=["index.js"]) == []


def test_a_host_reserved_for_examples_is_not_offered_as_a_grant(tmp_path: Path) -> None:
    # A bundled dependency's example string (RFC 2606/6761 names) is not where the package
    # connects: the hint names the real host only, or the plain grant when none is left.
    root = tmp_path / "p"
    write_tree(root, {"index.js": (
        '// e.g. new Proxy("https://genai.example.com/v1") or https://api.example\n'
        'export const go = () => fetch("https://api.weather.gov/now");\n'
    )})  # fmt: skip
    (hint,) = grant_hints(root, "p", entries=["index.js"])
    assert hint.hint == "gateway permissions p network:api.weather.gov"
    write_tree(root, {"index.js": (
        'export const go = (url = "https://genai.example.com/v1") => fetch(url);\n'
    )})  # fmt: skip
    (hint,) = grant_hints(root, "p", entries=["index.js"])
    assert hint.hint == "gateway permissions p network"
    assert "example" not in hint.message.split("e.g.")[0]
