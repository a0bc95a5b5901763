"""Inside a fresh network namespace: its loopback brought up and the egress listener opened
on it (``_namespaces``). The listener is created in the namespace, so connections to it come
from the child's side; its descriptor goes to the gateway's egress proxy, which accepts them
in the gateway's own namespace, where the outside world is."""

from __future__ import annotations

import fcntl
import socket
import struct

TYPE_CHECKING = False  # the trampoline imports this module: no typing (_confining)
if TYPE_CHECKING:
    from typing import Final

__all__ = ["EGRESS_HOST", "EGRESS_PORT", "open_loopback_listener"]

EGRESS_HOST: Final = "127.0.0.1"
EGRESS_PORT: Final = 3128
"""Where a child with network grants by destination finds the proxy: its own loopback (the
namespace is private, so a fixed port collides with nothing)."""

_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1
_IFF_RUNNING = 0x40


def _loopback_up() -> None:
    """``ip link set lo up``: a new network namespace's loopback starts down."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as control:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(control, _SIOCGIFFLAGS, request))[1]
        wanted = struct.pack("16sH14x", b"lo", flags | _IFF_UP | _IFF_RUNNING)
        fcntl.ioctl(control, _SIOCSIFFLAGS, wanted)


def open_loopback_listener(backlog: int = 128) -> int:
    """In the calling thread's (new) network namespace: loopback up, a TCP socket
    listening on ``EGRESS_HOST:EGRESS_PORT``; its descriptor (close-on-exec, the caller's
    to hand on). Raises ``OSError``."""
    _loopback_up()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((EGRESS_HOST, EGRESS_PORT))
        listener.listen(backlog)
    except BaseException:
        listener.close()
        raise
    return listener.detach()
