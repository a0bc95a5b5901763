"""Names a typo away from popular packages: a dependency (or the package itself) called
``expresss``, ``reqeusts`` or ``lodahs`` is how typosquatting malware gets installed.

The check is one edit away — a letter added, dropped, changed, or two neighbours swapped —
from a short list of the most depended-upon npm and PyPI packages, and never the popular
name itself; scoped names (``@types/node``) are compared by their last part only when the
scope is not the popular package's own. It is a heuristic over names: a real package may sit
one letter from a popular one (said as information when it is the package's own name).
"""

from __future__ import annotations

import json
from pathlib import Path

from gateway.audit import _codes
from gateway.audit._model import Risk

__all__ = ["POPULAR", "one_typo_away", "typosquat_risks"]

POPULAR = frozenset({
    # npm
    "react", "react-dom", "lodash", "express", "axios", "chalk", "commander", "debug",
    "moment", "request", "typescript", "webpack", "eslint", "prettier", "jest", "mocha",
    "dotenv", "uuid", "yargs", "glob", "minimist", "semver", "ws", "cors", "body-parser",
    "node-fetch", "mongoose", "socket.io", "jquery", "vue", "next", "electron", "colors",
    "inquirer", "rimraf", "mkdirp", "fs-extra", "async", "bluebird", "underscore",
    "cross-env", "nodemon", "zod", "undici", "openai", "esbuild", "vite",
    # PyPI
    "requests", "numpy", "pandas", "urllib3", "setuptools", "boto3", "botocore", "django",
    "flask", "pyyaml", "certifi", "idna", "charset-normalizer", "cryptography", "pillow",
    "matplotlib", "scipy", "pytest", "httpx", "pydantic", "fastapi", "jinja2", "click",
    "colorama", "beautifulsoup4", "selenium", "tensorflow", "torch", "anthropic",
})  # fmt: skip


def one_typo_away(name: str, popular: str) -> bool:
    """``name`` is ``popular`` with one letter added, dropped or changed, or two neighbours
    swapped (and is not ``popular``)."""
    if name == popular or abs(len(name) - len(popular)) > 1 or len(popular) < 4:
        return False
    if len(name) == len(popular):
        diffs = [i for i, (a, b) in enumerate(zip(name, popular, strict=True)) if a != b]
        if len(diffs) == 1:
            return True
        first, second = [*diffs, 0, 0][:2]
        return (
            len(diffs) == 2
            and second == first + 1
            and name[first] == popular[second]
            and name[second] == popular[first]
        )
    short, long = sorted((name, popular), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _squatted(name: str) -> str | None:
    plain = name.lower().rpartition("/")[2] if name.startswith("@") else name.lower()
    for popular in sorted(POPULAR):
        if plain != popular and one_typo_away(plain, popular):
            return popular
    return None


def typosquat_risks(root: Path, package_name: str) -> list[Risk]:
    """The package's npm dependencies and its own name, each checked against ``POPULAR``."""
    risks: list[Risk] = []
    names: list[tuple[str, str]] = []
    try:
        manifest = json.loads((root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        manifest = None
    if isinstance(manifest, dict):
        for key in ("dependencies", "optionalDependencies", "peerDependencies"):
            listed = manifest.get(key)
            if isinstance(listed, dict):
                names += [(str(dep), "package.json") for dep in listed]
    for name, where in sorted(set(names)):
        popular = _squatted(name)
        if popular is not None:
            risks.append(Risk("typosquat", _codes.TYPOSQUAT.code, "warning",
                              f"it depends on {name!r}, one typo away from {popular!r}",
                              where))  # fmt: skip
    own = _squatted(package_name)
    if own is not None:
        risks.append(Risk("typosquat", _codes.TYPOSQUAT.code, "info",
                          f"its name {package_name!r} is one typo away from {own!r}"))  # fmt: skip
    return risks
