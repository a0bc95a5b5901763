"""Hostile packages, one per ecosystem: every name a package chooses — its skills' (their own
``SKILL.md`` says them), its prompt templates' (their file names), its tools' and commands',
its own id — is one a writer could take for a path: ``../../x``, an absolute path,
``a/b``, ``..``, ``NUL``, ``con``, NUL itself, 300 characters, a newline."""

from __future__ import annotations

import json
from pathlib import Path

from tests.adapters._helpers import write_tree

__all__ = ["ECOSYSTEMS", "PROMPT_STEMS", "outside", "skill_names", "write_tree"]


def skill_names(base: Path) -> list[str]:
    """Skill names (front matter: anything). The absolute one lies under ``base``, so a
    scan of ``base`` finds whatever it would have written."""
    return ["../../x", "../../../../x", str(base / "abs"), "a/b", "..", "NUL", "con", "\x00",
            "x" * 300, "x\ny"]  # fmt: skip


PROMPT_STEMS = ["NUL", "con", "x\ny", "a\\b", "p" * 250, "com1.x"]
"""Prompt template names (file stems: no ``/``, NUL or ``..`` fits a file name here)."""


def _yaml(text: str) -> str:
    return json.dumps(text)  # a JSON string is a YAML double-quoted scalar


def _skills(base: Path) -> dict[str, object]:
    return {
        f"skills/s{index}/SKILL.md": f"---\nname: {_yaml(name)}\ndescription: hostile\n---\nhi\n"
        for index, name in enumerate(skill_names(base))
    }


def _prompts() -> dict[str, object]:
    return {
        f"prompts/{stem}.md": "---\ndescription: hostile\n---\nhi $@\n" for stem in PROMPT_STEMS
    }


def pi(dest: Path, base: Path) -> Path:
    manifest = {"name": "hostile-pi", "version": "1.0.0", "keywords": ["pi-package"],
                "pi": {"skills": ["./skills"], "prompts": ["./prompts"]}}  # fmt: skip
    return write_tree(dest, {"package.json": manifest, **_skills(base), **_prompts()})


def nimlet(dest: Path, base: Path) -> Path:
    tool = {"name": "../../x", "description": "hostile", "command": ["./run.sh"],
            "input_schema": {"type": "object"}}  # fmt: skip
    files = {"tools/t/tool.json": tool, "tools/t/run.sh": "#!/bin/sh\n"}
    return write_tree(dest, {**files, **_skills(base), **_prompts()})


def openclaw(dest: Path, base: Path) -> Path:
    manifest = {"id": "..", "name": "..", "configSchema": {"type": "object"}, "skills": ["skills"]}
    # Without a name in package.json the plugin's own id, "..", is the package's.
    package = {"version": "1.0.0", "type": "module", "openclaw": {"extensions": ["./index.mjs"]}}
    entry = "export default { id: '..', register() {} };\n"
    files = {"openclaw.plugin.json": manifest, "package.json": package, "index.mjs": entry}
    return write_tree(dest, {**files, **_skills(base)})


def nu(dest: Path, base: Path) -> Path:
    commands = {name: {"description": "hostile", "message": "hi"} for name in skill_names(base)}
    manifest = {"name": "hostile-nu", "version": "1.0.0", "type": "module",
                "keywords": ["nu-package"],
                "nu": {"namespace": "hostile", "skills": ["skills"],
                       "tools": ["tools/*/tool.yaml"], "client": {"commands": commands}}}  # fmt: skip
    tool = ("name: " + _yaml("hostile__../../x") + "\nversion: 1\ndescription: hostile\n"
            "args_schema: {type: object}\nentry: index.mjs\n")  # fmt: skip
    files = {"tools/t/tool.yaml": tool, "tools/t/index.mjs": "export default () => 'hi';\n"}
    return write_tree(dest, {"package.json": manifest, **files, **_skills(base)})


def nanobot(dest: Path, base: Path) -> Path:
    """nanobot's names are lowercase by its own rule, which ``con`` and ``nul`` pass."""
    manifest = {"id": "hostile.bot", "name": "Hostile", "version": "1.0.0", "apiVersion": 1,
                "runtime": "python", "entry": "hostile_bot:register",
                "contributions": [{"kind": kind, "name": name, "description": "hostile"}
                                  for kind in ("tool", "skill") for name in ("con", "nul")]}  # fmt: skip
    files = {
        "nanobot.extension.json": manifest,
        "hostile_bot/__init__.py": "def register(api): pass\n",
    }
    return write_tree(dest, files)


def claude(dest: Path, base: Path) -> Path:
    """A Claude Code plugin: command names from file stems and from front matter."""
    named = {
        f"commands/n{index}.md": f"---\nname: {_yaml(name)}\ndescription: hostile\n---\nhi\n"
        for index, name in enumerate(skill_names(base))
    }
    stems = {f"commands/{stem}.md": "hi $ARGUMENTS\n" for stem in PROMPT_STEMS}
    files = {".claude-plugin/plugin.json": {"name": "hostile-claude"}, **named, **stems}
    return write_tree(dest, {**files, **_skills(base)})


ECOSYSTEMS = {"pi": pi, "nimlet": nimlet, "openclaw": openclaw, "nu": nu, "nanobot": nanobot,
              "claude": claude}  # fmt: skip


def outside(base: Path, *inside: Path) -> list[Path]:
    """Everything under ``base`` that is not under one of ``inside``."""
    return sorted(
        path
        for path in base.rglob("*")
        if not any(path == root or path.is_relative_to(root) for root in inside)
    )
