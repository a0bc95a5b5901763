"""Published nanobot plugins: a distribution registering through the `nanobot.channels` entry
point is recognised as a channel plugin and refused by name — channels are unsupported in a
headless host — instead of "no metadata"."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters import inspect_package
from gateway.packages import InstallError, install, load_adapters
from tests.adapters._helpers import write_tree

PYPROJECT = """\
[project]
name = "nanobot-channel-acme"
version = "0.3.1"

[project.entry-points."nanobot.channels"]
acme = "nanobot_channel_acme.channel:AcmeChannel"
"""


def test_a_nanobot_channels_entry_point_is_named_as_a_channel_plugin(tmp_path: Path) -> None:
    write_tree(tmp_path, {"pyproject.toml": PYPROJECT, "nanobot_channel_acme/channel.py": ""})
    entry = inspect_package(tmp_path)
    assert (entry.ecosystem, entry.id, entry.version) == (
        "nanobot",
        "nanobot-channel-acme",
        "0.3.1",
    )
    assert [(c.kind, c.name) for c in entry.contributions] == [("channel", "acme")]
    (diagnostic,) = entry.diagnostics
    assert diagnostic.code == "nanobot.channel_plugin"
    assert "nanobot.channels" in diagnostic.message
    assert "acme = nanobot_channel_acme.channel:AcmeChannel" in diagnostic.message
    assert "unsupported in a headless host" in diagnostic.message


def test_an_unpacked_wheels_entry_points_are_read_too(tmp_path: Path) -> None:
    points = "[nanobot.channels]\nacme = nanobot_channel_acme:AcmeChannel\n"
    write_tree(tmp_path, {"nanobot_channel_acme-0.3.1.dist-info/entry_points.txt": points})
    entry = inspect_package(tmp_path)
    assert [d.code for d in entry.diagnostics] == ["nanobot.channel_plugin"]
    assert (entry.id, entry.version) == ("nanobot_channel_acme", "0.3.1")


def test_installing_a_channel_plugin_refuses_with_what_it_is(tmp_path: Path) -> None:
    source = write_tree(tmp_path / "src", {"pyproject.toml": PYPROJECT})
    with pytest.raises(InstallError) as refused:
        install(tmp_path / "home", str(source), kind="local", inspector=load_adapters().inspect)
    assert "nanobot channel plugin" in str(refused.value)
    assert "no package metadata" not in str(refused.value)
