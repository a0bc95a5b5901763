"""The attacker: one escape attempt per run, as a package's code would make it.

    python _probe.py ATTACK [NAME=TYPE:VALUE ...]

Each argument of the attempt is one ``NAME=TYPE:VALUE`` (``s`` a string, ``i`` an int,
``b`` a bool: ``1`` or ``0``; ``conftest.probe_arguments`` writes them). Exit 0: the attempt
worked (prints what it got); exit 10: the kernel refused it with a permission error
(EACCES, EPERM, or EXDEV for a link across a sandbox boundary); exit 2: anything else — a
broken fixture must never pass for a sandbox that held.

Standard library only: it runs inside the sandbox under ``python -I -S``, ~700 times per
run of the escape suite. So it imports at its start only what every attempt needs (``errno``,
``os``, ``sys``: ~8 ms of CPU to start) and each attempt the rest it uses; ``json``,
``subprocess`` and ``socket`` at the start were ~25 ms per probe (``json`` alone imports
``re``).
"""

from __future__ import annotations

import errno
import os
import sys

DENIED = 10
HELD_FD = 100
_DENIED_ERRNOS = {errno.EACCES, errno.EPERM, errno.EXDEV}


def read(path: str) -> str:
    with open(path, "rb") as handle:
        return handle.read(64).decode("latin-1")


def own_child(opens: str | None = None) -> int:
    """A process of this sandbox to aim at instead of the gateway (the control case)."""
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(ready_r)
        if opens:  # held on the same descriptor number the gateway stand-in uses
            os.dup2(os.open(opens, os.O_RDONLY), HELD_FD)
        os.write(ready_w, b"ready")
        os.close(ready_w)
        import time

        time.sleep(30)
        os._exit(0)
    os.close(ready_w)
    os.read(ready_r, 16)
    os.close(ready_r)
    return pid


def target(args: dict) -> int:
    """The gateway (this process's parent), or a child of this process (control)."""
    if args.get("target") == "own":
        return own_child(args.get("opens"))
    return os.getppid()


def run_descriptor(fd: int, via: str) -> str:
    """Execute the program behind ``fd``: by its ``/proc/self/fd`` path, or by the descriptor
    itself (``execveat(fd, "", AT_EMPTY_PATH)``, which is what ``fexecve`` does). A script's
    interpreter is handed ``/dev/fd/N``, so the descriptor must survive the exec."""
    os.set_inheritable(fd, True)
    if via == "proc":
        import subprocess

        done = subprocess.run([f"/proc/self/fd/{fd}"], capture_output=True, text=True,
                              pass_fds=(fd,))  # fmt: skip
        if done.returncode != 0:
            raise OSError(errno.EACCES if done.returncode == 126 else errno.EIO, done.stderr)
        return done.stdout
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        os.dup2(write_end, 1)
        try:
            os.execve(fd, ["payload"], {})
        except OSError as error:
            os.write(2, f"{error.errno}".encode())
            os._exit(100 + error.errno)
    os.close(write_end)
    output = os.read(read_end, 64).decode()
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code >= 100:
        raise OSError(code - 100, os.strerror(code - 100))
    return output


def run_anonymous(flags: int, via: str) -> str:
    """A script written to an anonymous file (``memfd_create``), then executed: no folder,
    so no Landlock rule, stands in the way."""
    fd = os.memfd_create("payload", flags)
    os.write(fd, b"#!/bin/sh\necho ran\n")
    return run_descriptor(fd, via)


def _kill(pid: int) -> None:
    """End the control's own child (never the gateway: the parent)."""
    if pid != os.getppid():
        import signal

        os.kill(pid, signal.SIGKILL)


def attack(name: str, args: dict) -> str:
    if name == "read":
        return read(args["path"])
    if name == "listdir":
        return ",".join(sorted(os.listdir(args["path"])))
    if name == "link_then_read":
        os.link(args["source"], args["link"])
        return read(args["link"])
    if name == "rename":
        os.rename(args["source"], args["target"])
        return f"moved to {args['target']}"
    if name == "symlink_then_read":
        os.symlink(args["source"], args["link"])
        return read(args["link"])
    if name == "reopen_for_write":
        fd = os.open(args["path"], os.O_RDONLY)
        writable = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_APPEND)
        return f"wrote {os.write(writable, b'escaped')} bytes"
    if name == "fchmod_then_write":
        fd = os.open(args["path"], os.O_RDONLY)
        os.fchmod(fd, 0o666)
        with open(args["path"], "ab") as handle:
            return f"wrote {handle.write(b'escaped')} bytes"
    if name == "fchmod":
        fd = os.open(args["path"], os.O_RDONLY)
        os.fchmod(fd, int(args["mode"], 8))
        return oct(os.stat(args["path"]).st_mode)
    if name == "fchown":
        fd = os.open(args["path"], os.O_RDONLY)
        os.fchown(fd, args["uid"], -1)
        return f"owner now {os.stat(args['path']).st_uid}"
    if name == "create":
        with open(args["path"], "xb") as handle:
            handle.write(b"escaped")
        os.unlink(args["path"]) if args.get("cleanup") else None
        return f"created {args['path']}"
    if name == "write_then_exec":
        with open(args["path"], "w") as handle:
            handle.write("#!/bin/sh\necho ran\n")
        os.chmod(args["path"], 0o755)
        import subprocess

        return subprocess.run([args["path"]], capture_output=True, check=True, text=True).stdout
    if name == "memfd_exec":
        return run_anonymous(args.get("flags", 0), args["via"])
    if name == "fexec_written_file":
        with open(args["path"], "w") as handle:
            handle.write("#!/bin/sh\necho ran\n")
        os.chmod(args["path"], 0o755)
        return run_descriptor(os.open(args["path"], os.O_RDONLY), "execveat")
    if name == "proc_file":
        pid = target(args)
        path = f"/proc/{pid}/{args['file']}"
        try:
            if args.get("readlink"):
                return os.readlink(path)
            with open(path, "rb") as handle:
                if args["file"] == "mem":
                    return "opened"  # the ptrace check is at open; offset 0 is unmapped
                return f"{len(handle.read(4096))} bytes"
        finally:
            _kill(pid)
    if name == "proc_root":
        pid = target(args)
        try:
            return read(f"/proc/{pid}/root{args['path']}")
        finally:
            _kill(pid)
    if name == "signal":
        pid = target(args)
        try:
            os.kill(pid, 0)
            return f"signalled {pid}"
        finally:
            _kill(pid)
    if name in ("unix_connect", "tcp_connect", "tcp_bind", "udp_send"):
        return network(name, args)
    if name == "shell":
        return shell(args)
    raise SystemExit(f"unknown attack {name}")


def network(name: str, args: dict) -> str:
    import socket

    if name == "unix_connect":
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(args["address"].replace("@", "\0", 1))
            return client.recv(64).decode()
    if name == "tcp_connect":
        with socket.create_connection(("127.0.0.1", args["port"]), timeout=5) as client:
            return client.recv(64).decode()
    if name == "tcp_bind":
        with socket.socket() as server:
            server.bind(("127.0.0.1", 0))
            server.listen()
            return f"listening on {server.getsockname()[1]}"
    if name == "udp_send":
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
            return f"sent {client.sendto(b'escaped', ('127.0.0.1', args['port']))} bytes"
    raise SystemExit(f"unknown attack {name}")


def shell(args: dict) -> str:
    import subprocess

    script = args["script"]
    if args.get("target") == "own":
        script = script.replace("{pid}", "$child")
        script = f"sleep 30 & child=$!; {script}; status=$?; kill $child; exit $status"
    else:
        script = script.replace("{pid}", str(os.getppid()))
    done = subprocess.run(["/bin/sh", "-c", script], capture_output=True, text=True)
    if done.returncode != 0:
        # The shell's tools say "Permission denied" / "Operation not permitted".
        message = done.stderr.strip()
        denied = "ermission denied" in message or "not permitted" in message
        raise OSError(errno.EACCES if denied else errno.EIO, message)
    return done.stdout[:64]


_TYPES = {"s": str, "i": int, "b": lambda text: text == "1"}


def arguments(encoded: list[str]) -> dict:
    """``NAME=TYPE:VALUE`` each (the module's docstring)."""
    found = {}
    for item in encoded:
        key, _, typed = item.partition("=")
        kind, _, value = typed.partition(":")
        found[key] = _TYPES[kind](value)
    return found


def main() -> int:
    name = sys.argv[1]
    try:
        got = attack(name, arguments(sys.argv[2:]))
    except OSError as error:
        print(f"{name}: {error}")
        return DENIED if error.errno in _DENIED_ERRNOS else 2
    print(f"{name}: {got!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
