"""nanobot packages in a gateway across changes: disabled, untrusted, uninstalled, reloaded
with updated source, and given their config file."""

from __future__ import annotations

import json

import pytest

from gateway import open_gateway

from ._helpers import echo_package, install_ready, set_package, write_package

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("change", ["disable", "untrust", "uninstall"])
async def test_disable_untrust_uninstall_and_reload_remove_registrations(
    workspace, tmp_path, change
):
    from gateway.packages import uninstall

    home = workspace.config.home
    install_ready(home, echo_package(tmp_path / "src", "test.gone", "gone"))
    install_ready(home, echo_package(tmp_path / "src", "test.stays", "stays"))
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert {t.name for t in gateway.tools()} == {"echo_gone", "echo_stays"}
        if change == "disable":
            set_package(home, "test.gone", enabled=False)
        elif change == "untrust":
            set_package(home, "test.gone", trusted=False)
        else:
            uninstall(home, "test.gone")
        await gateway.reload()
        assert {t.name for t in gateway.tools()} == {"echo_stays"}
        assert "test.gone" not in gateway.registry.owners
        if change == "disable":
            set_package(home, "test.gone", enabled=True)
            await gateway.reload()
            assert {t.name for t in gateway.tools()} == {"echo_gone", "echo_stays"}


async def test_reload_runs_the_updated_source(workspace, tmp_path):
    home = workspace.config.home
    src = tmp_path / "src"
    install_ready(home, echo_package(src, "test.update", "u"))
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        assert (await gateway.call_tool("echo_u", {"text": "1"})).content == "test.update:1"
        source = (src / "test.update" / "extension.py").read_text()
        (src / "test.update" / "extension.py").write_text(source.replace('"test.update:"', '"v2:"'))
        install_ready(home, src / "test.update")  # a changed reinstall needs trust again
        await gateway.reload()
        assert (await gateway.call_tool("echo_u", {"text": "1"})).content == "v2:1"


async def test_the_package_config_file_reaches_api_config(workspace, tmp_path):
    home = workspace.config.home
    package = write_package(
        tmp_path / "src" / "configured", "test.configured",
        "import json\n"
        "class T:\n    name = 'show_config'\n    description = 'd'\n"
        "    parameters = {'type': 'object'}\n"
        "    def __init__(self, api):\n        self.api = api\n"
        "    async def execute(self):\n        return json.dumps(dict(self.api.config))\n"
        "def register(api):\n    api.register_tool(T(api))\n",
        tools=["show_config"],
    )  # fmt: skip
    install_ready(home, package)
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "test.configured.json").write_text('{"level": 3}')
    async with open_gateway(
        workspace.root, config=workspace.config, transport=workspace.transport
    ) as gateway:
        result = await gateway.call_tool("show_config", {})
    assert json.loads(result.content) == {"level": 3}
