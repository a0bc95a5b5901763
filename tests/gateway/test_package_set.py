"""``apply_package_changes`` (a package set that changes under a running gateway): what it
tells of a change is what it then runs, and each change is told once — even when the store
moves on between the evaluation and the restart (a ``gateway sync`` still writing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway import GatewayConfig, open_gateway
from gateway.host import PackageChanges, apply_package_changes
from gateway.store import StateStore
from tests.serve._helpers import install_ready
from tests.serve.test_reload import package

pytestmark = pytest.mark.anyio


def _config(tmp_path: Path) -> GatewayConfig:
    return GatewayConfig(home=tmp_path / "home", user_home=tmp_path / "user")


def _names(gateway) -> set[str]:
    return {tool.name for tool in gateway.tools()}


async def test_a_package_told_as_added_runs_though_the_store_changed_after_it_was_read(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path)
    install_ready(config.home, package(tmp_path / "alpha", "alpha"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    told: list[PackageChanges] = []
    async with open_gateway(workspace, config=config) as gateway:
        install_ready(config.home, package(tmp_path / "beta", "beta"))

        def hear(changes: PackageChanges) -> None:
            told.append(changes)
            if len(told) == 1:  # the store moves on after the read, before the restart
                with StateStore.open(config.home) as store:
                    store.set_enabled("beta", False)

        first = await apply_package_changes(gateway, hear)
        assert first.added == ("beta",)
        assert {"beta_echo", "beta_wait"} <= _names(gateway)  # what was told runs
        second = await apply_package_changes(gateway, hear)
        assert second.removed == ("beta",) and "beta_echo" not in _names(gateway)
        assert not await apply_package_changes(gateway, hear)
    assert [(c.added, c.removed) for c in told] == [(("beta",), ()), ((), ("beta",))]


async def test_a_package_installed_but_not_yet_trusted_is_not_news_until_it_runs(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path)
    install_ready(config.home, package(tmp_path / "alpha", "alpha"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    told: list[PackageChanges] = []
    async with open_gateway(workspace, config=config) as gateway:
        install_ready(config.home, package(tmp_path / "beta", "beta"), trusted=False)
        assert not await apply_package_changes(gateway, told.append)
        assert told == [] and "beta_echo" not in _names(gateway)
        with StateStore.open(config.home) as store:
            store.set_trusted("beta", True)
        assert (await apply_package_changes(gateway, told.append)).added == ("beta",)
        assert "beta_echo" in _names(gateway)
    assert [c.added for c in told] == [("beta",)]
