"""`gateway completion bash|zsh|fish [--install]` and the hidden `gateway __complete ids|prefer`
(issue 22). The bash script is driven in a real bash with a private HOME and GATEWAY_HOME."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gateway.packages import install, load_adapters
from gateway.store import StateStore
from tests._cli import run_here
from tests.gateway.test_cli import gateway

BIN = str(Path(sys.executable).parent)
"""Where this environment's `gateway` script is: the completion scripts call it by name."""


def _env(workspace: Any) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GATEWAY_", "XDG_"))}
    env.update(
        GATEWAY_HOME=str(workspace.home / ".gateway"),
        HOME=str(workspace.home),
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
    )
    return env


def script(workspace: Any, shell: str) -> Path:
    done = gateway(workspace, "completion", shell)
    assert done.returncode == 0, done.stderr
    path = workspace.home / f"gateway.{shell}"
    path.write_text(done.stdout)
    return path


def complete_bash(workspace: Any, *words: str) -> list[str]:
    """What the bash script offers for the last of ``words`` (``gateway`` first)."""
    path = script(workspace, "bash")
    line = " ".join(f"'{word}'" for word in words)
    code = f'source "{path}"; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; _gateway; printf "%s\\n" "${{COMPREPLY[@]}}"'
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", code], capture_output=True, text=True,
        env=_env(workspace), cwd=workspace.home, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [word for word in done.stdout.splitlines() if word]


def installed(workspace: Any, name: str, folder: str | None = None) -> str:
    """``name`` installed from a local folder (``folder``, by default ``name``: a folder
    named otherwise is a name the package answers to besides its id)."""
    source = workspace.root.parent / "sources" / (folder or name)
    source.mkdir(parents=True)
    (source / "extension.json").write_text(json.dumps({"name": name, "command": ["true"]}))
    report = install(
        workspace.config.home, str(source), kind="local", inspector=load_adapters().inspect
    )
    return report.package.record.id


def test_the_bash_script_is_valid_bash(workspace):
    done = subprocess.run(
        ["bash", "-n", str(script(workspace, "bash"))], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_completing_a_verb_prefix_offers_the_verbs_it_starts(workspace):
    assert complete_bash(workspace, "gateway", "tr") == ["trust"]


def test_completing_after_trust_offers_the_installed_ids(workspace):
    package_id = installed(workspace, "alpha")
    assert package_id in complete_bash(workspace, "gateway", "trust", "")


def test_completing_an_id_offers_the_names_recorded_at_install_too(workspace):
    package_id = installed(workspace, "alpha", folder="alpha-src")
    assert complete_bash(workspace, "gateway", "enable", "") == sorted([package_id, "alpha-src"])


def test_completing_after_prefer_offers_each_name_prefer_takes(workspace):
    """Installed ids, the names recorded at install and the discovered extensions already
    preferred (``prefer`` replaces its list) — and ``prefer`` takes every word offered."""
    package_id = installed(workspace, "alpha", folder="alpha-src")
    with StateStore.open(workspace.config.home) as store:
        store.set_preferred(["pi:helper"], ["pi:helper"])
    offered = complete_bash(workspace, "gateway", "prefer", "")
    assert offered == sorted([package_id, "alpha-src", "pi:helper"])
    done = gateway(workspace, "prefer", *offered, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["preferred"] == sorted(["pi:helper", package_id])


def test_completion_offers_no_name_a_shell_would_expand(workspace):
    """A discovered extension is named by its folder: ``compgen -W`` would run ``$(…)``."""
    package_id = installed(workspace, "alpha")
    with StateStore.open(workspace.config.home) as store:
        store.set_preferred(["pi:$(touch x)", "pi:a*"], ["pi:$(touch x)", "pi:a*"])
    assert gateway(workspace, "__complete", "prefer").stdout.split() == [package_id]


def test_completing_an_option_offers_the_verbs_options(workspace):
    assert "--packages" in complete_bash(workspace, "gateway", "list", "--pa")


def test_completing_a_shell_after_completion_offers_the_three_shells(workspace):
    assert complete_bash(workspace, "gateway", "completion", "") == ["bash", "zsh", "fish"]


def test_the_hidden_helper_lists_ids_and_nothing_without_a_store(workspace):
    assert gateway(workspace, "__complete", "ids").stdout == ""
    package_id = installed(workspace, "beta")
    assert gateway(workspace, "__complete", "ids").stdout.split() == [package_id]


def test_the_hidden_helper_is_not_in_the_help(workspace):
    assert "__complete" not in gateway(workspace, "--help").stdout


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_the_zsh_and_fish_scripts_are_valid_where_the_shell_exists(workspace, shell):
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed here: its script is not syntax-checked")
    done = subprocess.run(
        [shell, "-n", str(script(workspace, shell))], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("shell", "where"),
    [
        ("bash", ".local/share/bash-completion/completions/gateway"),
        ("zsh", ".zfunc/_gateway"),
        ("fish", ".config/fish/completions/gateway.fish"),
    ],
)
def test_install_writes_where_the_shell_looks_and_says_where(workspace, shell, where):
    done = run_here(["completion", "--install", shell], env=_env(workspace), cwd=workspace.home)
    assert done.returncode == 0, done.stderr
    target = workspace.home / where
    assert target.read_text().startswith(("#", "#compdef"))
    assert str(target) in done.stdout


def test_install_without_a_shell_takes_the_one_shell_names(workspace):
    env = {**_env(workspace), "SHELL": "/usr/bin/fish"}
    done = run_here(["completion", "--install"], env=env, cwd=workspace.home)
    assert done.returncode == 0, done.stderr
    assert (workspace.home / ".config/fish/completions/gateway.fish").is_file()


def test_no_shell_is_a_usage_error_with_its_code(workspace):
    done = gateway(workspace, "completion")
    assert done.returncode == 2
    assert "[completion.unknown_shell]" in done.stderr


def test_completing_ids_and_printing_docs_load_nothing_heavy(workspace):
    from tests.gateway.test_cli_start import loaded

    installed(workspace, "gamma")
    for argv in (["__complete", "ids"], ["docs", "cli"], ["completion", "bash"]):
        assert loaded(workspace, f"from gateway.cli import main; main({argv!r})") == [], argv


def complete_fish(workspace: Any, line: str) -> list[str]:
    """What fish offers for ``line`` with the script loaded (``complete -C``)."""
    path = script(workspace, "fish")
    done = subprocess.run(
        ["fish", "--no-config", "-c", f"source {path}; complete -C '{line}'"],
        capture_output=True, text=True, env=_env(workspace), cwd=workspace.home, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [word.split("\t")[0] for word in done.stdout.splitlines() if word]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed here")
def test_fish_completes_verbs_ids_and_options(workspace):
    package_id = installed(workspace, "gamma")
    assert complete_fish(workspace, "gateway tr") == ["trust"]
    assert complete_fish(workspace, "gateway enable ") == [package_id]
    assert "--packages" in complete_fish(workspace, "gateway list --pa")
