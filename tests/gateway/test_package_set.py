"""``apply_package_changes`` (a package set that changes under a running gateway): what it
tells of a change is what it then runs, and each change is told once — even when the store
moves on between the evaluation and the restart (a ``gateway sync`` still writing)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from gateway import GatewayConfig, open_gateway
from gateway.host import Gateway, PackageChanges, apply_package_changes, follow_packages
from gateway.store import StateStore, StoreError
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


class _Watched:
    """The watch's fingerprint reads (``package_set_fingerprint`` as ``follow_packages``
    calls it), wrapped to say when the watch has caught up with a change and its undo,
    without timing: once ``made`` is set, the next read makes a write that changes no
    package (``trust_workspace`` of another folder), and the read that write wakes comes
    after all the watch did before it — ``caught_up`` is then set. ``first``, when given,
    runs at the start of the first read once ``armed`` is set."""

    gateway: Gateway | None = None

    def __init__(self, home: Path, first: Callable[[], None] | None = None) -> None:
        from gateway.host import _package_set

        self._home, self._first, self._read = home, first, _package_set.package_set_fingerprint
        self.made, self.armed, self._marked = (
            threading.Event(),
            threading.Event(),
            threading.Event(),
        )
        self.caught_up = anyio.Event()

    def __call__(self, home: Path) -> str | None:
        if self._first is not None and self.armed.is_set():
            first, self._first = self._first, None
            first()
        found = self._read(home)
        if self._marked.is_set():
            anyio.from_thread.run_sync(self.caught_up.set)
        elif self.made.is_set():
            with StateStore.open(self._home) as store:
                store.trust_workspace(self._home.parent / "elsewhere", True)
            self._marked.set()
        return found


def _set_enabled(home: Path, package_id: str, enabled: bool) -> None:
    with StateStore.open(home) as store:
        store.set_enabled(package_id, enabled)


async def _follow_until_caught_up(
    workspace: Path, config: GatewayConfig, watched: _Watched, monkeypatch: pytest.MonkeyPatch
) -> list[PackageChanges]:
    """``follow_packages`` until ``watched`` says it caught up; then what runs is what the
    store says (alpha and beta) and nothing is left to apply."""
    from gateway.host import _package_set

    monkeypatch.setattr(_package_set, "package_set_fingerprint", watched)
    told: list[PackageChanges] = []
    async with open_gateway(workspace, config=config) as gateway:
        watched.gateway = gateway
        assert {"alpha_echo", "beta_echo"} <= _names(gateway)
        async with anyio.create_task_group() as group:
            group.start_soon(follow_packages, gateway, told.append)
            await watched.caught_up.wait()
            group.cancel_scope.cancel()
        assert {"alpha_echo", "beta_echo"} <= _names(gateway)  # as the store says
        assert not await apply_package_changes(gateway)  # nothing left to apply
    return told


def _two_packages(tmp_path: Path) -> tuple[Path, GatewayConfig]:
    config = _config(tmp_path)
    install_ready(config.home, package(tmp_path / "alpha", "alpha"))
    install_ready(config.home, package(tmp_path / "beta", "beta"))
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace, config


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the watch is inotify")
async def test_a_change_and_its_undo_made_while_the_set_is_evaluated_are_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``gateway disable beta`` then ``gateway enable beta`` while the watch evaluates the
    set: the evaluation reads beta disabled, the store ends as it began. What the watch
    compares the store with next is what that evaluation read — not a fingerprint read
    before it, which equals the store's at the end (an ABA) and left beta stopped until
    the next change. No timing: the evaluation itself makes the change and its undo (the
    change before its reads, the undo after)."""
    from gateway.host import _package_set

    workspace, config = _two_packages(tmp_path)
    watched, evaluate = _Watched(config.home), _package_set.evaluate_packages

    def evaluated_between_a_change_and_its_undo(home: Path, adapters: Any) -> Any:
        if watched.made.is_set():
            return evaluate(home, adapters)
        _set_enabled(home, "beta", False)
        try:
            return evaluate(home, adapters)
        finally:
            _set_enabled(home, "beta", True)
            watched.made.set()

    monkeypatch.setattr(_package_set, "evaluate_packages", evaluated_between_a_change_and_its_undo)
    told = await _follow_until_caught_up(workspace, config, watched, monkeypatch)
    assert [(c.added, c.removed) for c in told] == [((), ("beta",)), (("beta",), ())]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the watch is inotify")
async def test_a_reload_of_its_own_between_a_change_and_its_undo_is_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gateway reloads by itself (as for a settings change or a workspace trusted)
    between ``gateway disable beta`` and ``gateway enable beta``: the reload read beta
    disabled, the store ends as the watch's last evaluation read it. What the gateway runs
    is no longer what that evaluation read, and the watch evaluates again. The change, the
    reload and the undo are made in the watch's first fingerprint read after its first
    evaluation (woken by a write that changes no package, made as that evaluation ends)."""
    from gateway.host import _package_set

    workspace, config = _two_packages(tmp_path)

    def reload_between_a_change_and_its_undo() -> None:
        _set_enabled(config.home, "beta", False)
        assert watched.gateway is not None
        anyio.from_thread.run(watched.gateway.reload)
        _set_enabled(config.home, "beta", True)
        watched.made.set()

    watched, evaluate = (
        _Watched(config.home, reload_between_a_change_and_its_undo),
        _package_set.evaluate_packages,
    )

    def evaluated_then_woken(home: Path, adapters: Any) -> Any:
        try:
            return evaluate(home, adapters)
        finally:
            watched.armed.set()
            with StateStore.open(home) as store:
                store.trust_workspace(home.parent / "elsewhere", False)

    monkeypatch.setattr(_package_set, "evaluate_packages", evaluated_then_woken)
    told = await _follow_until_caught_up(workspace, config, watched, monkeypatch)
    assert [(c.added, c.removed) for c in told] == [(("beta",), ())]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the watch is inotify")
async def test_a_change_whose_evaluation_could_not_read_the_store_is_applied_without_another_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``gateway disable beta`` wakes the watch, and its evaluation finds the store
    unreadable (a writer holding it): nothing else is written, yet beta stops — the watch
    reads the store again until it can. The change is made as the first evaluation ends;
    the second fails; the third reads it."""
    from gateway.host import _package_set

    workspace, config = _two_packages(tmp_path)
    evaluate, calls = _package_set.evaluate_packages, []

    def unreadable_once_after_a_change(home: Path, adapters: Any) -> Any:
        calls.append(home)
        if len(calls) == 2:
            raise StoreError("the store is being written")
        try:
            return evaluate(home, adapters)
        finally:
            if len(calls) == 1:
                _set_enabled(home, "beta", False)

    monkeypatch.setattr(_package_set, "evaluate_packages", unreadable_once_after_a_change)
    told: list[PackageChanges] = []
    stopped = anyio.Event()
    async with open_gateway(workspace, config=config) as gateway:
        restart = gateway.restart_package

        async def restarted(package_id: str, *args: Any) -> None:
            await restart(package_id, *args)
            if package_id == "beta":
                stopped.set()

        monkeypatch.setattr(gateway, "restart_package", restarted)
        async with anyio.create_task_group() as group:
            group.start_soon(follow_packages, gateway, told.append)
            with anyio.fail_after(60):  # a hang fails here; nothing else is timed
                await stopped.wait()
            group.cancel_scope.cancel()
        assert "beta_echo" not in _names(gateway) and "alpha_echo" in _names(gateway)
    assert [c.removed for c in told] == [("beta",)] and len(calls) == 3
