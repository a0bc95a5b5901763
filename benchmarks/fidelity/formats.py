"""Gemini CLI extensions and Codex plugins against their hosts' own readers.

    python benchmarks/fidelity/formats.py [--gemini BUNDLE_JS] [--codex BINARY]
        [--cache DIR] [--git-mirrors DIR] [--json OUT]

**Gemini CLI** (``@google/gemini-cli@0.61.0``, its ``bundle/gemini.js`` under node): every
extension of the corpus is placed in ``$HOME/.gemini/extensions/`` of a private HOME and
``gemini extensions list -o json`` is read (0.61.0 writes it to stderr); each extension is
compared with ``gateway inspect``'s reading: loaded or refused, name, version, MCP server
names, context files, skills, ``excludeTools``. The corpus: this repository's fixtures,
Gemini CLI's own ``bundle/examples`` and three ``gemini-cli-extensions`` repositories at
pinned commits, plus malformed manifests made here (each must be refused by both).
Commands are not in Gemini's listing (its command loader runs only interactively).

**Codex** (``@openai/codex@0.171.0``'s linux-x64 binary): every plugin of a local
marketplace (``openai/plugins`` at a pinned commit, renamed — Codex reserves its curated
marketplace's name — plus this repository's fixtures) is added with ``codex plugin
marketplace add`` and ``codex plugin add`` under a private CODEX_HOME; then ``codex debug
prompt-input`` (the skills the model is shown, ``plugin:skill``) and ``codex mcp list
--json`` (the servers, merged by name across plugins) are compared with the gateway's.

Without ``--gemini``/``--codex`` the packages are installed with npm into the cache.
Figures go to docs/compatibility.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

from adapters.gemini import hydrate  # noqa: E402
from adapters.plugin_host import GEMINI_EVENT_OF, GEMINI_UNSUPPORTED_EVENTS  # noqa: E402
from adapters.registry import inspect_package  # noqa: E402

GEMINI_SPEC = "@google/gemini-cli@0.61.0"
CODEX_SPEC = "@openai/codex@0.171.0-linux-x64"
GEMINI_REPOS = {
    name: (f"gemini-cli-extensions/{name}", commit)
    for name, commit in (
        ("code-review", "4549120bd91e46c3ec541e6587265271a92e8193"),
        ("conductor", "080a3697da33bf2bd17a868889653a3aa05b5e02"),
        ("security", "d7fb9acc31d8054c0fa6dfecb965b4a65c5a532d"),
    )
}
CODEX_REPO = ("openai/plugins", "3fdeeb4970a1fa176ccabf873ae64fd6053cb2b0")
MALFORMED = {
    "bad-name": {"name": "bad name!", "version": "1.0.0"},
    "no-version": {"name": "no-version"},
    "context-outside": {"name": "ctx", "version": "1.0.0", "contextFileName": "../x.md"},
    "context-absolute": {"name": "ctx-abs", "version": "1.0.0", "contextFileName": "/etc/hostname"},
    "bad-types": {"name": "types", "version": 1, "mcpServers": []},
    "not-json": None,
}


def _npm(spec: str, cache: Path) -> Path:
    prefix = cache / re.sub(r"[^A-Za-z0-9.-]+", "_", spec)
    if not (prefix / "node_modules").is_dir():
        subprocess.run(["npm", "install", "--prefix", str(prefix), "--omit=optional",
                        "--ignore-scripts", spec], check=True, timeout=900)  # fmt: skip
    return prefix / "node_modules"


def _tree(repo: str, commit: str, mirrors: Path, out: Path) -> Path:
    """The repository's files at ``commit`` (blobs the mirror lacks are left out)."""
    git_dir = mirrors / repo.replace("/", "+") / "repo"
    if not git_dir.is_dir():
        git_dir = out.parent / f"{repo.replace('/', '+')}.git"
        if not git_dir.is_dir():
            subprocess.run(["git", "clone", "--bare", "-q", f"https://github.com/{repo}",
                            str(git_dir)], check=True)  # fmt: skip
    listing = subprocess.run(["git", "-C", str(git_dir), "ls-tree", "-r", "-z", commit],
                             capture_output=True, check=True).stdout  # fmt: skip
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, path = record.split(b"\t", 1)
        _, kind, sha = meta.split()
        if kind != b"blob":
            continue
        blob = subprocess.run(["git", "-C", str(git_dir), "cat-file", "blob", sha.decode()],
                              capture_output=True, check=False)  # fmt: skip
        if blob.returncode == 0:
            target = out / path.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(blob.stdout)
    return out


def _gateway(root: Path) -> dict[str, Any] | None:
    entry = inspect_package(root)
    if not entry.ok:
        return None
    kinds: dict[str, list[str]] = {}
    for c in entry.contributions:
        kinds.setdefault(c.kind, []).append(c.name)
    return {"name": entry.id, "version": entry.version, "ecosystem": entry.ecosystem,
            "servers": sorted(kinds.get("mcp_server", [])),
            "context": sorted(kinds.get("context_file", [])),
            "skills": sorted(kinds.get("skill", [])),
            "implicit_skills": sorted(c.name for c in entry.contributions if c.kind == "skill"
                                      and c.detail.get("implicit", True)),
            "hooks": _gemini_hooks(entry.metadata) if entry.ecosystem == "gemini"
            else None}  # fmt: skip


def _gemini_hooks(metadata: dict[str, Any]) -> dict[str, Any]:
    """The hook events the gateway runs (with their commands, hydrated but for the two
    paths, which differ between the hosts) and those it names as never run."""
    declared = (metadata.get("hooks") or {}).get("hooks") or {}
    separators = {"/": "/", "pathSeparator": "/"}
    runs = {event: sorted(hydrate(hook["command"], separators) for group in groups
                          for hook in group.get("hooks", []) if hook.get("type") == "command")
            for event, groups in declared.items() if event in GEMINI_EVENT_OF}  # fmt: skip
    return {"runs": runs, "named": sorted(metadata.get("unsupported_hook_events") or [])}


# ------------------------------------------------------------------------------ Gemini CLI


def gemini_corpus(scratch: Path, node_modules: Path, mirrors: Path) -> dict[str, Path]:
    corpus = {f"fixture-{p.name}": p for p in sorted((REPO / "tests/fixtures/gemini").iterdir())}
    examples = node_modules / "@google/gemini-cli/bundle/examples"
    corpus |= {f"example-{p.name}": p for p in sorted(examples.iterdir()) if p.is_dir()}
    for name, (repo, commit) in GEMINI_REPOS.items():
        corpus[name] = _tree(repo, commit, mirrors, scratch / "trees" / name)
    for name, manifest in MALFORMED.items():
        folder = scratch / "malformed" / name
        folder.mkdir(parents=True)
        text = "{ not json" if manifest is None else json.dumps(manifest)
        (folder / "gemini-extension.json").write_text(text)
        corpus[f"malformed-{name}"] = folder
    return corpus


def gemini_reference(corpus: dict[str, Path], bundle: Path, scratch: Path) -> dict[str, Any]:
    home = scratch / "gemini-home"
    extensions, workspace = home / ".gemini" / "extensions", scratch / "gemini-ws"
    extensions.mkdir(parents=True)
    workspace.mkdir()
    for key, path in corpus.items():
        shutil.copytree(path, extensions / key)
    env = {"HOME": str(home), "PATH": os.environ["PATH"], "NO_COLOR": "1"}
    done = subprocess.run(["node", str(bundle), "extensions", "list", "-o", "json"],
                          capture_output=True, text=True, cwd=workspace, env=env,
                          timeout=300, check=False)  # fmt: skip
    text = done.stderr + done.stdout
    listed: list[dict[str, Any]] = []
    for match in re.finditer(r"^\[", text, re.MULTILINE):  # the array among warnings
        try:
            listed = json.JSONDecoder().raw_decode(text, match.start())[0]
            break
        except ValueError:
            continue
    found: dict[str, Any] = {}
    for item in listed:
        key = Path(item["path"]).name
        base = Path(item["path"])
        # The gateway keeps a version as text; Gemini CLI passes a number through.
        found[key] = {"name": item["name"], "version": str(item.get("version", "")),
                      "servers": sorted(item.get("mcpServers") or {}),
                      "context": sorted(str(Path(c).relative_to(base))
                                        for c in item.get("contextFiles") or []),
                      "skills": sorted(s["name"] for s in item.get("skills") or []),
                      "hooks": _listed_hooks(item.get("hooks") or {}, base, workspace)}  # fmt: skip
    return found


def _listed_hooks(hooks: dict[str, Any], base: Path, workspace: Path) -> dict[str, Any]:
    """The hooks Gemini CLI loaded (hydrated), with its two paths put back as variables."""

    def abstract(command: str) -> str:
        return command.replace(str(base), "${extensionPath}").replace(
            str(workspace), "${workspacePath}"
        )

    runs = {event: sorted(abstract(hook["command"]) for group in groups
                          for hook in group.get("hooks", []) if hook.get("type") == "command")
            for event, groups in hooks.items() if event in GEMINI_EVENT_OF}  # fmt: skip
    named = sorted(event for event in hooks if event in GEMINI_UNSUPPORTED_EVENTS)
    return {"runs": runs, "named": named}


# ----------------------------------------------------------------------------------- Codex


def codex_corpus(scratch: Path, mirrors: Path) -> Path:
    """One local marketplace: openai/plugins' (renamed) plus the fixtures."""
    market = _tree(*CODEX_REPO, mirrors, scratch / "codex-market")
    path = market / ".agents/plugins/marketplace.json"
    document = json.loads(path.read_text())
    document["name"] = "fidelity"
    for fixture in sorted((REPO / "tests/fixtures/codex").iterdir()):
        shutil.copytree(fixture, market / "plugins" / f"fixture-{fixture.name}")
        name = _gateway(fixture)
        document["plugins"].append(
            {
                "name": name["name"] if name else fixture.name,
                "source": {"source": "local", "path": f"./plugins/fixture-{fixture.name}"},
            }
        )
    path.write_text(json.dumps(document))
    return market


def codex_reference(market: Path, binary: Path, scratch: Path) -> dict[str, Any]:
    home = scratch / "codex-home"
    (home / "ws").mkdir(parents=True)
    env = {"HOME": str(home), "CODEX_HOME": str(home), "PATH": os.environ["PATH"]}

    def codex(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(binary), *args], capture_output=True, text=True, env=env,
                              cwd=home / "ws", timeout=120, check=False)  # fmt: skip

    codex("plugin", "marketplace", "add", str(market), "--json")
    document = json.loads((market / ".agents/plugins/marketplace.json").read_text())
    installed: dict[str, bool] = {}
    skills: dict[str, list[str]] = {}
    # Codex shows the model a bounded skills list: plugins are enabled a batch at a time
    # (at most BATCH_SKILLS skills by the gateway's count), so none is cut for space.
    batch: list[str] = []
    counted = 0
    plugins = [(p["name"], _skill_count(market, p)) for p in document["plugins"]]
    for index, (name, count) in enumerate(plugins):
        batch.append(name)
        counted += count
        last = index == len(plugins) - 1
        if not last and counted + plugins[index + 1][1] <= BATCH_SKILLS:
            continue
        for plugin in batch:
            added = codex("plugin", "add", f"{plugin}@fidelity", "--json")
            installed[plugin] = added.returncode == 0
        _read_skills(codex("debug", "prompt-input", "x").stdout, skills)
        for plugin in batch:
            if not last:
                codex("plugin", "remove", f"{plugin}@fidelity", "--json")
        batch, counted = [], 0
    if plugins:  # every plugin enabled at once for the servers
        for plugin, _ in plugins:
            codex("plugin", "add", f"{plugin}@fidelity", "--json")
    servers = json.loads(codex("mcp", "list", "--json").stdout or "[]")
    transports = {s["name"]: s["transport"]["type"].replace("_", "-") for s in servers}
    return {"installed": installed, "skills": skills, "servers": transports}


# ------------------------------------------------------------------------------ comparing


BATCH_SKILLS = 40


def _skill_count(market: Path, plugin: dict[str, Any]) -> int:
    source = plugin.get("source")
    path = source.get("path") if isinstance(source, dict) else source
    return sum(1 for _ in (market / str(path)).rglob("SKILL.md")) if path else 0


def _read_skills(prompt: str, skills: dict[str, list[str]]) -> None:
    text = "\n".join(_strings(json.loads(prompt))) if prompt else ""
    roots = dict(re.findall(r"`(r\d+)` = `([^`]+)`", text))
    for name, root, rest in re.findall(r"- ([^:\s]+:[^:\s]+): .*?\(file: (r\d+)/([^)]+)\)", text):
        full = f"{roots.get(root, '')}/{rest}"
        plugin = re.search(r"/plugins/cache/fidelity/([^/]+)/", full)
        if plugin:
            skills.setdefault(plugin.group(1), []).append(name)


def compare_gemini(corpus: dict[str, Path], reference: dict[str, Any]) -> dict[str, Any]:
    rows = {}
    for key, path in corpus.items():
        ours, theirs = _gateway(path), reference.get(key)
        if ours is not None:
            ours = {k: v for k, v in ours.items() if k not in ("ecosystem", "implicit_skills")}
        rows[key] = {"identical": ours == theirs, "gateway": ours, "gemini": theirs}
    same = sum(row["identical"] for row in rows.values())
    return {"identical": same, "total": len(rows), "rows": rows}


def compare_codex(market: Path, reference: dict[str, Any]) -> dict[str, Any]:
    rows, servers = {}, {}
    for folder in sorted((market / "plugins").iterdir()):
        ours = _gateway(folder)
        name = ours["name"] if ours else folder.name
        loaded = reference["installed"].get(name, False)
        theirs = sorted(reference["skills"].get(name, [])) if loaded else None
        mine = ours["implicit_skills"] if ours else None  # what Codex lists for its model
        if ours:
            servers |= {s: "stdio" if s in _stdio(folder) else "streamable-http"
                        for s in ours["servers"]}  # fmt: skip
        rows[name] = {"identical": mine == theirs, "gateway": mine, "codex": theirs}
    same = sum(row["identical"] for row in rows.values())
    return {"identical": same, "total": len(rows), "rows": rows,
            "servers": {"gateway": servers, "codex": reference["servers"],
                        "identical": servers == reference["servers"]}}  # fmt: skip


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [text for item in items for text in _strings(item)]


def _stdio(folder: Path) -> set[str]:
    entry = inspect_package(folder)
    return set(entry.metadata.get("stdio_servers") or {})


def _gemini(args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    modules = _npm(GEMINI_SPEC, args.cache) if args.gemini is None else args.gemini.parents[3]
    bundle = args.gemini or modules / "@google/gemini-cli/bundle/gemini.js"
    corpus = gemini_corpus(scratch, modules, args.git_mirrors)
    return compare_gemini(corpus, gemini_reference(corpus, bundle, scratch))


def _codex(args: argparse.Namespace, scratch: Path) -> dict[str, Any]:
    binary = args.codex or (
        _npm(CODEX_SPEC, args.cache) / "@openai/codex/vendor/x86_64-unknown-linux-musl/bin/codex"
    )
    market = codex_corpus(scratch, args.git_mirrors)
    return compare_codex(market, codex_reference(market, binary, scratch))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gemini", type=Path, help="gemini-cli's bundle/gemini.js")
    parser.add_argument("--codex", type=Path, help="the codex binary")
    parser.add_argument(
        "--cache", type=Path, default=Path.home() / ".cache/extension-gateway-fidelity"
    )
    parser.add_argument("--git-mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--json", type=Path)
    parser.add_argument("--only", choices=("gemini", "codex"), help="one host only")
    args = parser.parse_args(argv)
    empty: dict[str, Any] = {"identical": 0, "total": 0, "rows": {},
                             "servers": {"identical": True}}  # fmt: skip
    gemini = codex = empty
    with tempfile.TemporaryDirectory(prefix="fidelity-formats-") as scratch_name:
        scratch = Path(scratch_name)
        if args.only != "codex":
            gemini = _gemini(args, scratch)
        if args.only != "gemini":
            codex = _codex(args, scratch)
    for label, result in (("gemini", gemini), ("codex", codex)):
        print(f"{label}: {result['identical']}/{result['total']} identical")
        for key, row in sorted(result["rows"].items()):
            if not row["identical"]:
                host = row.get("gemini", row.get("codex"))
                print(f"  {key}: gateway {row['gateway']} / host {host}")
    print(f"codex servers identical: {codex['servers']['identical']}")
    if not codex["servers"]["identical"]:
        print(f"  gateway {codex['servers']['gateway']}\n  codex {codex['servers']['codex']}")
    if args.json:
        args.json.write_text(json.dumps({"gemini": gemini, "codex": codex}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
