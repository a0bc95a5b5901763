"""Loading packages into the sidecar: entry forms, the register contract, rollback, module
isolation, ownership, the api's extras, and nanobot's Tool with and without nanobot-ai."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ._helpers import ECHO_TOOL, codes, load, write_package


@pytest.mark.parametrize(
    ("files", "entry", "entries"),
    [
        ({"extension.py": "def register(api): api.register_tool(T())"}, "extension:register", None),
        ({"extension.py": "def register(api): api.register_tool(T())"}, "extension", None),
        ({"ext.py": "def setup(api): api.register_tool(T())"}, "ext:setup", None),
        (
            {"pkg/__init__.py": "", "pkg/sub.py": "def register(api): api.register_tool(T())"},
            "pkg.sub:register",
            None,
        ),
        (
            {"extension.py": "def register(api): api.register_tool(T())"},
            None,
            ["extension:register"],
        ),
    ],
    ids=["module-attribute", "default-attribute", "other-attribute", "dotted-module", "entries"],
)
def test_register_entry_forms(
    tmp_path: Path, files: dict[str, str], entry: str | None, entries: list[str] | None
) -> None:
    tool = ECHO_TOOL + "\nT = lambda: Echo('echo', 'ok')\n"
    files = {name: tool + text if text else text for name, text in files.items()}
    package = write_package(tmp_path / "p", "test.entry", files, entry=entry, entries=entries,
                            tools=["echo"])  # fmt: skip
    register, sidecar = load(tmp_path, package)
    with sidecar:
        assert register["gateway"]["diagnostics"] == []
        assert sidecar.tool("1", "echo", text="x")["content"] == "ok:x"


@pytest.mark.parametrize(
    ("source", "code", "needle"),
    [
        (
            "def register(api):\n    api.register_tool(T())\n    return 1\n",
            "nanobot.register_returned_value",
            "returned int",
        ),
        (
            "async def register(api):\n    api.register_tool(T())\n",
            "nanobot.register_returned_value",
            "returned coroutine",
        ),
        (
            "def register(api):\n    api.register_tool(T())\n    raise RuntimeError('boom')\n",
            "nanobot.register_failed",
            "RuntimeError: boom",
        ),
        (
            "import sys\ndef register(api):\n    api.register_tool(T())\n    sys.exit(2)\n",
            "nanobot.register_failed",
            "SystemExit: 2",
        ),
        (
            "import not_installed_anywhere\ndef register(api): pass\n",
            "nanobot.register_failed",
            "not_installed_anywhere",
        ),
        (
            "def register(api):\n    api.register_tool(T())\n    api.register_tool(T())\n",
            "nanobot.register_failed",
            "already registered",
        ),
        ("register = 42\n", "nanobot.register_failed", "is not a function"),
        ("def other(api): pass\n", "nanobot.register_failed", "is not a function"),
    ],
    ids=[
        "returns-value",
        "async-register",
        "raises",
        "sys-exit",
        "import-error",
        "duplicate-in-package",
        "not-callable",
        "missing-attribute",
    ],
)
def test_a_failed_register_is_rolled_back_and_others_still_load(
    tmp_path: Path, source: str, code: str, needle: str
) -> None:
    bad = write_package(
        tmp_path / "bad", "test.bad", ECHO_TOOL + "\nT = lambda: Echo('bad_tool', 'bad')\n" + source,
        tools=["bad_tool"],
    )  # fmt: skip
    good = write_package(
        tmp_path / "good", "test.good",
        ECHO_TOOL + "\ndef register(api): api.register_tool(Echo('good_tool', 'good'))\n",
        tools=["good_tool"],
    )  # fmt: skip
    register, sidecar = load(tmp_path, bad, good)
    with sidecar:
        assert [t["name"] for t in register["tools"]] == ["good_tool"]
        [diagnostic] = register["gateway"]["diagnostics"]
        assert diagnostic["code"] == code
        assert needle in diagnostic["message"] and "rolled back" in diagnostic["message"]
        assert diagnostic["message"].startswith("test.bad: ")
        assert sidecar.tool("1", "good_tool", text="y")["content"] == "good:y"
        sidecar.close()
        assert "was never awaited" not in sidecar.log


def test_an_entry_module_outside_the_package_is_refused(tmp_path: Path) -> None:
    # Upstream imported `json:register` from the standard library; here it is looked up
    # inside the package only.
    package = write_package(tmp_path / "p", "test.json", {"other.py": ""}, entry="json:register")
    register, sidecar = load(tmp_path, package)
    with sidecar:
        [diagnostic] = register["gateway"]["diagnostics"]
    assert diagnostic["code"] == "nanobot.register_failed"
    assert "entry module 'json' is not in the package" in diagnostic["message"]


ISOLATED = """
import sys
import helpers
from . import helpers as relative
from .helpers import VALUE

class Which:
    description = "which"
    parameters = {"type": "object", "properties": {}}

    def __init__(self, name):
        self.name = name

    async def execute(self):
        return {
            "value": VALUE,
            "same": helpers is relative,
            "module": __name__,
            "top_level_extension": "extension" in sys.modules,
            "top_level_helpers": "helpers" in sys.modules,
            "root_on_path": any("@ROOT@" in p for p in sys.path),
        }

def register(api):
    api.register_tool(Which("which_@NAME@"))
"""


def test_two_packages_shipping_the_same_module_names_are_isolated(tmp_path: Path) -> None:
    roots = []
    for name in ("alpha", "beta"):
        source = ISOLATED.replace("@NAME@", name).replace("@ROOT@", str(tmp_path / name))
        roots.append(
            write_package(
                tmp_path / name,
                f"test.{name}",
                {"extension.py": source, "helpers.py": f"VALUE = {name!r}\n"},
                tools=[f"which_{name}"],
            )
        )
    register, sidecar = load(tmp_path, *roots)
    with sidecar:
        assert register["gateway"]["diagnostics"] == []
        for name in ("alpha", "beta"):
            found = json.loads(sidecar.tool(name, f"which_{name}")["content"])
            assert found["value"] == name and found["same"] is True
            assert found["module"].startswith("_gw_pkg_") and found["module"].endswith(".extension")
            assert not found["top_level_extension"] and not found["top_level_helpers"]
            assert not found["root_on_path"]


def test_undeclared_registrations_are_refused_at_the_call(tmp_path: Path) -> None:
    source = (
        ECHO_TOOL
        + """
from nanobot.agent.hook import AgentHook

class Hook(AgentHook):
    async def before_execute_tool(self, context, tool_call, tool, params):
        return None

def register(api):
    api.register_tool(Echo("declared", "d"))
    api.register_tool(Echo("sneaky", "s"))
    api.register_command("/declared", lambda ctx: "ok")
    api.register_command("/sneaky", lambda ctx: "no")
    api.register_hook_factory(lambda ctx: Hook())
"""
    )
    package = write_package(tmp_path / "p", "test.owner", source, tools=["declared"],
                            commands=["declared"])  # fmt: skip
    register, sidecar = load(tmp_path, package)
    with sidecar:
        assert [t["name"] for t in register["tools"]] == ["declared"]
        assert [c["name"] for c in register["commands"]] == ["declared"]
        assert "events" not in register
        reported = register["gateway"]["diagnostics"]
    assert codes(reported) == ["nanobot.undeclared_registration"] * 3
    assert [d["contribution"] for d in reported] == ["sneaky", "sneaky", "<lambda>"]
    assert "register_tool('sneaky')" in reported[0]["message"]


@pytest.mark.parametrize(
    ("expression", "needle"),
    [
        ("object()", "reading name/description/parameters raised"),
        ("Bad('has space', {'type': 'object'})", "is not 1-64 of"),
        ("Bad('tool', {'type': 'string'})", "must be a JSON Schema object"),
        (
            "Bad('tool', {'type': 'object', 'properties': {'x': {'type': 'strin'}}})",
            "'strin' is not a JSON Schema type",
        ),
        ("Bad('tool', {'type': 'object', 'default': object()})", "not JSON"),
        ("Bad('tool', {'type': 'object'}, execute=None)", "no callable execute"),
    ],
)
def test_tools_the_protocol_cannot_carry_are_refused(
    tmp_path: Path, expression: str, needle: str
) -> None:
    source = f"""
class Bad:
    description = "bad"

    def __init__(self, name, parameters, execute=True):
        self.name, self.parameters = name, parameters
        if execute:
            self.execute = lambda **kw: "x"

def register(api):
    api.register_tool({expression})
"""
    package = write_package(tmp_path / "p", "test.invalid", source, tools=["tool"])
    register, sidecar = load(tmp_path, package)
    with sidecar:
        [diagnostic] = register["gateway"]["diagnostics"]
    assert diagnostic["code"] == "nanobot.registration_invalid" and needle in diagnostic["message"]
    assert "tools" not in register


def test_same_tool_in_two_packages_first_wins_unless_replaced(tmp_path: Path) -> None:
    def package(name: str, replaces: list[str] | None = None) -> Path:
        return write_package(
            tmp_path / name, f"test.{name}",
            ECHO_TOOL + f"\ndef register(api):\n    api.register_tool(Echo('shared', '{name}'))\n"
            f"    api.register_command('/shared', lambda ctx: '{name}')\n",
            tools=["shared"], commands=["shared"],
            replaces={"shared": replaces} if replaces else None,
        )  # fmt: skip

    first, second, third = package("first"), package("second"), package("third", ["test.first"])
    register, sidecar = load(tmp_path, first, second, third)
    with sidecar:
        assert [t["name"] for t in register["tools"]] == ["shared"]
        assert sidecar.tool("1", "shared")["content"] == "third:"
        assert sidecar.command("2", "shared")["message"] == "third"
        messages = [d["message"] for d in register["gateway"]["diagnostics"]]
    assert codes(register["gateway"]["diagnostics"]) == ["nanobot.registration_conflict"] * 4
    assert "test.first keeps it; test.second's registration is refused" in messages[0]
    assert "test.third replaces test.first (declared in replaces)" in messages[2]


def test_a_rolled_back_replacement_brings_the_original_back(tmp_path: Path) -> None:
    original = write_package(
        tmp_path / "original", "test.original",
        ECHO_TOOL + "\ndef register(api): api.register_tool(Echo('shared', 'original'))\n",
        tools=["shared"],
    )  # fmt: skip
    broken = write_package(
        tmp_path / "broken", "test.broken",
        ECHO_TOOL + "\ndef register(api):\n    api.register_tool(Echo('shared', 'broken'))\n"
        "    raise RuntimeError('late failure')\n",
        tools=["shared"], replaces={"shared": ["test.original"]},
    )  # fmt: skip
    register, sidecar = load(tmp_path, original, broken)
    with sidecar:
        assert sidecar.tool("1", "shared")["content"] == "original:"
    assert codes(register["gateway"]["diagnostics"]) == [
        "nanobot.registration_conflict", "nanobot.register_failed",
    ]  # fmt: skip
