"""``gateway docs [TOPIC]``: the documentation shipped with the gateway.

``gateway/_docs`` is a link to the checkout's ``docs/``; building the wheel copies the files
it names (``[tool.setuptools.package-data]``), so a checkout and an installed wheel read the
same folder and the docs exist once in git. A page in a subfolder is a topic by its path
(``gateway docs performance/cli``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gateway.base import GatewayConfig
from gateway.cli import _codes
from gateway.cli._output import refuse

__all__ = ["DOCS_DIR", "run_docs", "topics"]

DOCS_DIR = Path(__file__).resolve().parent.parent / "_docs"


def topics(folder: Path = DOCS_DIR) -> list[str]:
    """Every topic: the shipped ``*.md`` files' paths under the folder without ``.md``
    (``cli``, ``performance/cli``), sorted."""
    try:
        found = [path for path in folder.rglob("*.md") if path.is_file()]
    except OSError:
        return []
    return sorted(path.relative_to(folder).with_suffix("").as_posix() for path in found)


def _title(path: Path) -> str:
    try:
        with path.open(encoding="utf-8") as text:
            first = text.readline().strip()
    except (OSError, UnicodeDecodeError):
        return ""
    return first.lstrip("#").strip().replace("`", "")


def run_docs(args: argparse.Namespace, config: GatewayConfig) -> int:
    del config  # the docs are the installation's, not the home's
    known = topics()
    if args.topic is None:
        width = max(map(len, known), default=0)
        for topic in known:
            print(f"{topic:<{width}}  {_title(DOCS_DIR / f'{topic}.md')}")
        if not known:
            refuse(_codes.DOCS_MISSING(f"no documentation is shipped in {DOCS_DIR}"))
            return 1
        print("gateway docs TOPIC prints one")
        return 0
    topic = args.topic.removesuffix(".md")
    if topic not in known:
        message = f"no topic {args.topic!r}; topics: {', '.join(known) or 'none shipped'}"
        refuse(_codes.DOCS_TOPIC_UNKNOWN(message))
        return 2
    sys.stdout.write((DOCS_DIR / f"{topic}.md").read_text(encoding="utf-8"))
    return 0
