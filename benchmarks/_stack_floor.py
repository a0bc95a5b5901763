"""What ``bench_cli.py``'s one-shot call cannot go below while the house keeps its libraries:
a Python that imports what every one-shot ``gateway call`` must use, by the rules in the
README's style section, and does the least of each — nothing of the gateway's own.

    python benchmarks/_stack_floor.py

- ``argparse``: the command line parsed;
- ``sqlite3``: the state store opened (in memory here);
- ``pydantic``: the boundary — one wire message validated by a model;
- ``anyio`` on ``asyncio``: one event loop run, one child process started and reaped (the
  gateway reads its children's pipes on the loop).

The child is ``true``: what an extension costs is the bare call's, measured beside this.
"""

import argparse
import json
import sqlite3
import sys

import anyio
import pydantic


class Message(pydantic.BaseModel):
    type: str
    id: str | None = None
    content: list[dict[str, str]] = []


async def main() -> None:
    args = argparse.ArgumentParser().parse_args([])
    store = sqlite3.connect(":memory:")
    store.execute("create table packages (id text primary key)")
    Message.model_validate(json.loads('{"type": "result", "id": "1", "content": []}'))
    await anyio.run_process(["true"])
    store.close()
    sys.stdout.write(f"{args!r}\n")


if __name__ == "__main__":
    anyio.run(main)
