"""The baseline of ``bench_cli.py``'s call: one tool call of a nimlet extension by hand.

    python -I benchmarks/_bare_call.py EXTENSION_FOLDER [TOOL [JSON_ARGS]]

Spawns the command of the folder's ``extension.json`` (from the current folder, as the
gateway does), sends ``initialize``, reads ``register``, sends the one ``tool`` request,
reads the reply, then ``shutdown`` and waits for the extension to exit. No host, no hooks,
no sandbox, no session: the floor under ``gateway call``.
"""

import json
import os
import subprocess
import sys


def main() -> None:
    folder = sys.argv[1]
    tool = sys.argv[2] if len(sys.argv) > 2 else "save_note"
    arguments = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {"text": "hi"}
    with open(os.path.join(folder, "extension.json")) as handle:
        command = json.load(handle)["command"]
    if not os.path.isabs(command[0]) and "/" in command[0]:
        command[0] = os.path.join(folder, command[0])
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    send, read = child.stdin.write, child.stdout.readline
    initialize = {"type": "initialize", "version": 1, "workspace": os.getcwd(), "session_id": "s"}
    send(json.dumps(initialize).encode() + b"\n")
    child.stdin.flush()
    json.loads(read())  # register
    request = {"type": "tool", "id": "1", "name": tool, "arguments": arguments}
    send(json.dumps(request).encode() + b"\n")
    child.stdin.flush()
    reply = json.loads(read())
    send(b'{"type": "shutdown"}\n')
    child.stdin.close()
    child.wait()
    print(reply.get("content"))


if __name__ == "__main__":
    main()
