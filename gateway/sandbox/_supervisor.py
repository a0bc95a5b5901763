"""The trampoline's last step for a child whose protected names are guarded (``_guard``):
it forks; the fork installs the filter that hands name-changing calls to a listener,
sends the listener back, and execs the program; the trampoline stays as its supervisor.

The supervisor is the program's parent, in its namespaces, Landlock domain and cgroup, so
what it does for the program the kernel checks as the program's own, and it may read the
program's memory (an ancestor, as Yama's ptrace scope 1 asks). It makes each call it is
handed (``_emulate``) and answers it; a refusal is EROFS for the program (as the
read-only bind of a protected path that exists gives) and one line of
JSON on the report socket for the gateway (``sandbox.protected_name``).

The gateway knows the supervisor's pid, not the program's: it signals the whole process
group, which reaches the program; the supervisor ignores those signals and exits as the
program did (its status, or the same signal) once the program has exited. If the supervisor
is killed, the program is too (``PR_SET_PDEATHSIG``); a call handed over after that fails
with ENOSYS, never goes through unchecked. A grandchild that outlives the program loses
its supervisor the same way.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import resource
import select
import signal
import socket
import sys

from gateway.sandbox._confining import install_filter
from gateway.sandbox._emulate import LINK_OUTSIDE, GuardRefusal, decode, perform
from gateway.sandbox._guard import GuardPlan
from gateway.sandbox._notify import Listener, NotifyError, install_listener_filter

__all__ = ["run_supervised"]

_PR_SET_PDEATHSIG = 1
_IGNORED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGPIPE)
_REPORT_LIMIT = 256
"""Refusals reported per supervisor: a package looping on a protected name says so once
per path, and at most this many paths."""


def _fail(program: str, error: OSError, code: int) -> None:
    sys.stderr.write(f"gateway sandbox: {program}: {error.strerror or error}\n")
    sys.stderr.flush()
    os._exit(code)


def _start_program(
    program: list[str], channel: socket.socket, parent: int, guard_filter: bytes, report: int
) -> None:
    """In the fork: never returns. The report socket is not the program's to write."""
    try:
        if report >= 0:
            os.close(report)
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(126)
        listener = install_listener_filter(guard_filter)
        socket.send_fds(channel, [b"L"], [listener])
        os.close(listener)
        channel.close()
    except OSError as error:
        _fail(program[0], error, 126)
    try:
        os.execvpe(program[0], program, os.environ)
    except FileNotFoundError as error:
        _fail(program[0], error, 127)
    except OSError as error:
        _fail(program[0], error, 126)
    os._exit(126)


def run_supervised(
    program: list[str], guard: GuardPlan, guard_filter: bytes, own_filter: bytes, report_to: int
) -> int:
    """Start ``program`` under ``guard`` and supervise it until it exits; returns its exit
    status (or ends this process with its signal). ``own_filter``: the filter the
    supervisor itself keeps (the program's, without the hand-over)."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    parent = os.getpid()
    child = os.fork()
    if child == 0:
        mine.close()
        _start_program(program, theirs, parent, guard_filter, report_to)
    theirs.close()
    try:
        _, fds, _, _ = socket.recv_fds(mine, 1, 1)
    except OSError:
        fds = []
    mine.close()
    if not fds:
        return _exit_status(os.waitpid(child, 0)[1])
    listener = Listener(fds[0])
    _detach(keep={listener.fd, report_to, 2})
    for number in _IGNORED:
        signal.signal(number, signal.SIG_IGN)
    if own_filter:
        install_filter(own_filter)
    reporter = _Reporter(report_to)
    pidfd = os.pidfd_open(child)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    poller.register(listener.fd, select.POLLIN)
    while True:
        ready = dict(poller.poll())
        if pidfd in ready:
            break
        if ready.get(listener.fd, 0) & select.POLLIN:
            _handle_one(listener, guard, reporter)
    return _exit_status(os.waitpid(child, 0)[1])


def _handle_one(listener: Listener, guard: GuardPlan, reporter: _Reporter) -> None:
    notification = listener.receive()
    if notification is None:
        return
    try:
        call = decode(listener, notification)
        if not listener.valid(notification):
            return  # its caller is gone: what was read may be another process's
        perform(guard, call, listener, notification)
    except GuardRefusal as refusal:
        reporter.refused(refusal)
        # EROFS, as the read-only bind of a protected path that exists: one answer for a
        # protected name whichever mechanism holds it.
        outside = refusal.action == LINK_OUTSIDE
        listener.answer(notification, error=errno.EACCES if outside else errno.EROFS)
    except OSError as error:
        if isinstance(error, NotifyError):
            raise
        listener.answer(notification, error=error.errno or errno.EIO)
    except Exception as error:  # a bug here must not leave the program waiting forever
        sys.stderr.write(f"gateway sandbox: supervisor: {error!r}\n")
        listener.answer(notification, error=errno.EIO)


class _Reporter:
    def __init__(self, fd: int) -> None:
        self.sock = socket.socket(fileno=fd) if fd >= 0 else None
        self.said: set[tuple[str, str]] = set()

    def refused(self, refusal: GuardRefusal) -> None:
        key = (refusal.action, refusal.path)
        if self.sock is None or key in self.said or len(self.said) >= _REPORT_LIMIT:
            return
        self.said.add(key)
        line = {"action": refusal.action, "path": refusal.path, "name": refusal.name}
        try:
            self.sock.send(json.dumps(line).encode() + b"\n", socket.MSG_DONTWAIT)
        except OSError:
            return  # the gateway stopped listening: still refused


def _detach(keep: set[int]) -> None:
    """Let go of everything the program inherited but the supervisor does not need: its
    standard input and output (so their readers see the program's end as theirs) and
    every other descriptor."""
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    for entry in os.listdir("/proc/self/fd"):
        fd = int(entry)
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                continue


def _exit_status(status: int) -> int:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        return 128 + number  # a signal that does not end a process
    return os.waitstatus_to_exitcode(status)
