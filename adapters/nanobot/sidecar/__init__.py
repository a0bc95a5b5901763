"""The nanobot Python sidecar: a nimlet-protocol extension process hosting ``register(api)``.

The gateway never imports package code: a nanobot ``runtime: python`` package runs here, in
a child process that speaks the nimlet protocol (JSON lines over stdio), so a package that
blocks, crashes, calls ``sys.exit`` or leaks memory costs only its own process.

This ``__init__`` stays empty on purpose: the launch plan starts the sidecar from its
``__main__.py`` file without importing ``adapters`` (whose ``__init__`` imports the whole
gateway, about half a second), and every module here avoids heavy imports until the
``register`` line has been written. See docs/nanobot.md.
"""
