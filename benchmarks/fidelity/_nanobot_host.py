"""nanobot's own host, outside the gateway: upstream's manifest reader (``nanobot.extensions
.codec.load_manifest`` of HKUDS/nanobot at the extension branch's commit, copied into the
cache by ``run.py``, never into the repository) and upstream's ``_activate_python`` import
rules, with a recording stand-in for its ``PythonExtensionApi`` (the same three methods and
signatures; upstream's needs nanobot's whole agent). Hook factories are probed once, as the
gateway does, to learn which ``AgentHook`` points they implement.

    python _nanobot_host.py OUT.json JOB.json     (PYTHONPATH: the upstream copy)

JOB.json: a list of {key, path}. Prints nothing; writes the result to OUT.json.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from nanobot.extensions.codec import load_manifest  # upstream's reader

# AgentHook's methods (upstream nanobot/agent/hook.py at the same commit).
HOOK_POINTS = (
    "wants_streaming",
    "before_run",
    "after_run",
    "on_error",
    "on_finally",
    "before_iteration",
    "on_stream",
    "on_stream_end",
    "on_provider_tool_event",
    "before_execute_tools",
    "before_execute_tool",
    "after_execute_tool",
    "on_execute_tool_error",
    "emit_reasoning",
    "emit_reasoning_end",
    "after_iteration",
    "finalize_content",
    # the gateway's additions, looked for on duck-typed hooks too
    "on_session_start",
    "on_session_end",
    "before_compact",
    "after_compact",
)


class RecordingApi:
    """Upstream's ``PythonExtensionApi`` surface, recording instead of registering."""

    def __init__(self, owner: str) -> None:
        self.owner = owner
        self.tools: list[str] = []
        self.commands: list[str] = []
        self.factories: list[Any] = []

    def register_tool(self, tool: Any) -> None:
        if tool.name in self.tools:
            raise ValueError(f"tool '{tool.name}' is already registered by '{self.owner}'")
        self.tools.append(tool.name)

    def register_command(self, command: str, handler: Any, *, prefix: bool = False) -> None:
        command = f"/{command.lstrip('/')}"
        if prefix:
            command = f"{command} "
        self.commands.append(command)

    def register_hook_factory(self, factory: Any) -> None:
        self.factories.append(factory)


def _points(hook: Any) -> list[str]:
    found = []
    for name in HOOK_POINTS:
        method = getattr(type(hook), name, None)
        if method is None:
            continue
        owner = next((k for k in type(hook).__mro__ if name in vars(k)), None)
        if (
            owner is not None
            and owner.__name__ == "AgentHook"
            and owner.__module__.startswith("nanobot.")
        ):
            continue  # upstream's no-op base
        found.append(name)
    return found


def load_one(job: dict[str, Any]) -> dict[str, Any]:
    root = Path(job["path"]).resolve()
    manifest = load_manifest(root / "nanobot.extension.json")
    out: dict[str, Any] = {
        "key": job["key"],
        "id": manifest.id,
        "runtime": manifest.runtime.value,
        "declared": [[c.kind.value, c.name] for c in manifest.contributions],
    }
    if manifest.runtime.value != "python":
        out["note"] = f"runtime {manifest.runtime.value}: not run by this reader"
        return out
    entries = manifest.activation_entries
    if len(entries) != 1:
        raise ValueError("Python extensions must declare exactly one entry")
    module_name, separator, attribute = entries[0].partition(":")
    if not separator:
        attribute = "register"
    sys.path.insert(0, str(root))
    try:
        module = importlib.import_module(module_name)
        module_path = getattr(module, "__file__", None)
        if not module_path or not Path(module_path).resolve().is_relative_to(root):
            raise ValueError(f"Python extension entry resolves outside its package: {module_name}")
        api = RecordingApi(manifest.id)
        if getattr(module, attribute)(api) is not None:
            raise TypeError("Python extension register function must return None")
    finally:
        sys.path.remove(str(root))
    points: list[str] = []
    for factory in api.factories:
        try:
            hook = factory(None)
        except Exception as error:
            out.setdefault("factory_errors", []).append(str(error))
            continue
        if hook is not None:
            points += [p for p in _points(hook) if p not in points]
    out.update(
        tools=api.tools, commands=api.commands, hook_points=points, factories=len(api.factories)
    )
    return out


def main() -> None:
    out_file, job_file = sys.argv[1], sys.argv[2]
    results = []
    for job in json.loads(Path(job_file).read_text()):
        started = time.monotonic()
        try:
            result = load_one(job)
        except Exception as error:
            result = {
                "key": job["key"],
                "failed": f"{type(error).__name__}: {error}",
                "trace": traceback.format_exc()[-1500:],
            }
        result["seconds"] = round(time.monotonic() - started, 3)
        results.append(result)
        Path(out_file).write_text(json.dumps(results))


if __name__ == "__main__":
    main()
