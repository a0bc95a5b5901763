"""Which OpenClaw each plugin is measured against, and that OpenClaw installed.

The rule: **a plugin is measured against the OpenClaw its declarations select, as the gateway
emulates it.** The gateway reads the lowest OpenClaw version all of a plugin's declarations
admit (``compat.pluginApi``, ``compat.minGatewayVersion``, ``install.minHostVersion``, the
``openclaw`` peer range: ``adapters/openclaw/_lines.py`` ``floor``, used here to read them the
same way) and applies the rules of the OpenClaw of that floor. Its rules change at three
OpenClaw releases (the bounds of ``REFERENCES``; facts about OpenClaw, written out here
again rather than taken from the gateway's constants):

- 2026.5.0: the loader's jiti transform for every entry gives way to native ``require`` with
  a jiti fallback;
- 2026.5.2: a tool outside ``contracts.tools`` is refused;
- 2026.8.0: native ``require`` with no fallback; ``before_agent_start``, ``deactivate`` and
  ``subagent_spawning`` gone; the root SDK barrel and 2026.8's SDK removals gone.

The reference is the newest OpenClaw release published on the npm registry in the band
between two boundaries that holds the plugin's floor (``REFERENCES``): 2026.4.29 below
2026.5.0, none for 2026.5.0-2026.5.1 (no release was published: such a plugin is not
measured, an error naming why), 2026.7.35 for 2026.5.2-2026.7.x; and the pinned 2026.9.6
(the sidecar's own, which the gateway emulates; the registry has nothing newer) for a
plugin declaring 2026.8 or later, or nothing. The older references are installed once into
the cache from the npm registry (``<cache>/openclaw-<version>``), as OpenClaw's own install
runs: no scripts, no peers.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Final

from _context import Context, HostSetupFailed
from _corpus import SIDECAR_MODULES

from adapters._semver import parse_version

PINNED_OPENCLAW: Final = "2026.9.6"
"""The sidecar's own ``openclaw`` (sidecars/package.json): the reference for plugins that
declare OpenClaw 2026.8 or later, or nothing."""

REFERENCES: Final[tuple[tuple[str, str | None], ...]] = (
    ("2026.5.0", "2026.4.29"),
    ("2026.5.2", None),
    ("2026.8.0", "2026.7.35"),
)
"""``(below, release)``: for a floor below ``below`` (and at or above the previous bound),
the newest OpenClaw release of that band on the npm registry (``npm view openclaw
versions``, 2026-12-05; pre-releases not counted); None: the band has no release."""


class NoReference(Exception):
    """No OpenClaw release applies the rules the plugin's declarations select."""


def reference_for(floor: tuple[int, int, int] | None) -> str:
    """The OpenClaw version to measure a plugin of declared ``floor`` against (None: it
    declares nothing that can be read, so it is loaded as the pinned OpenClaw)."""
    if floor is None:
        return PINNED_OPENCLAW
    previous = "0.0.0"
    for below, release in REFERENCES:
        bound = parse_version(below)
        assert bound is not None
        if floor < bound:
            if release is None:
                raise NoReference(
                    f"the plugin declares OpenClaw {'.'.join(map(str, floor))}, in "
                    f"[{previous}, {below}), where no OpenClaw release was published"
                )
            return release
        previous = below
    return PINNED_OPENCLAW


def openclaw_reference(root: Path) -> str:
    """The reference for the plugin at ``root``, its declarations read as the gateway reads
    them."""
    from adapters.openclaw._inspect import inspect_plugin
    from adapters.openclaw._lines import floor

    return reference_for(floor(inspect_plugin(root).metadata))


def openclaw_dir(version: str, ctx: Context) -> Path:
    """The ``openclaw`` package folder of ``version``: the sidecar's own for the pinned one,
    else installed once into the cache from the npm registry (no scripts, no peers)."""
    if version == PINNED_OPENCLAW:
        return SIDECAR_MODULES / "openclaw"
    prefix = ctx.cache / f"openclaw-{version}"
    folder = prefix / "node_modules" / "openclaw"
    if (prefix / ".done").exists():
        return folder
    shutil.rmtree(prefix, ignore_errors=True)
    prefix.mkdir(parents=True)
    (prefix / "package.json").write_text("{}\n")
    flags = ["--omit=dev", "--omit=peer", "--ignore-scripts", "--legacy-peer-deps"]
    result = subprocess.run(
        [*ctx.npm, "install", f"openclaw@{version}", *flags, "--no-audit", "--no-fund"],
        capture_output=True,
        text=True,
        timeout=max(ctx.args.install_timeout, 600),
        env=ctx.npm_env(),
        check=False,
        cwd=prefix,
    )
    (prefix / "npm.log").write_text(result.stdout + result.stderr)
    if result.returncode != 0 or not folder.exists():
        raise HostSetupFailed(f"npm install openclaw@{version}: {result.stderr.strip()[-400:]}")
    (prefix / ".done").write_text("ok")
    return folder
