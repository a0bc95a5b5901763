"""``GatewayError``: the root of every exception the gateway and its adapters raise.

Catching it catches anything the gateway refuses or fails at; each class below lives in
the package named beside it. A class that is also a built-in kind keeps that base
(``PathRefused`` is an ``OSError``), so code that catches the built-in still does. The
tree, kept true by ``tests/test_errors.py``::

    GatewayError
    ├── HomeUnusable ................................ gateway.base
    ├── PathRefused (OSError) ....................... gateway.base
    ├── LandlockError (OSError) ..................... gateway.sandbox
    ├── PrivilegeError (OSError) .................... gateway.sandbox
    ├── SeccompError (OSError) ...................... gateway.sandbox
    ├── SandboxError (OSError) ...................... gateway.sandbox
    ├── SandboxUnavailable .......................... gateway.sandbox
    ├── DestinationError (ValueError) ............... gateway.sandbox
    ├── HeadError (ValueError) ...................... gateway.sandbox
    ├── Refused ..................................... gateway.sandbox
    ├── Unreachable ................................. gateway.sandbox
    ├── GuardRefusal ................................ gateway.sandbox
    ├── NotifyError (OSError) ....................... gateway.sandbox
    ├── StoreError .................................. gateway.store
    │   ├── StoreBusy ............................... gateway.store
    │   ├── StoreCorrupt ............................ gateway.store
    │   ├── StoreTooNew ............................. gateway.store
    │   ├── UnknownPackage .......................... gateway.store
    │   └── PermissionNotRequested .................. gateway.store
    ├── ContentHashError ............................ gateway.store
    ├── LaunchError ................................. gateway.runtime
    ├── NodeEnvError ................................ gateway.runtime
    ├── NpmError .................................... gateway.runtime
    ├── SetupError .................................. gateway.runtime
    ├── ExtensionError .............................. gateway.wire
    │   ├── ExtensionTimeout ........................ gateway.wire
    │   ├── ExtensionExited ......................... gateway.wire
    │   └── ExtensionStartError ..................... gateway.wire
    │       ├── RegisterInvalid ..................... gateway.wire
    │       └── SandboxRefused ...................... gateway.wire
    ├── MessageError (ValueError) ................... gateway.wire
    ├── ExtraError (ValueError) ..................... gateway.wire
    ├── PipeClosed .................................. gateway.wire
    ├── ChannelClosed ............................... gateway.wire
    ├── UnknownTool (LookupError) ................... gateway.model
    ├── UnknownCommand (LookupError) ................ gateway.model
    ├── SessionNotFound ............................. gateway.model
    ├── SessionActionError .......................... gateway.model
    ├── SignInFailed ................................ gateway.model
    ├── NoAdapters (RuntimeError) ................... gateway.packages
    ├── FetchError .................................. gateway.packages
    ├── SourceError ................................. gateway.packages
    ├── ExtractError ................................ gateway.packages
    ├── ArchiveError ................................ gateway.packages
    │   └── ArchiveDigestMismatch ................... gateway.packages
    ├── VerifyError ................................. gateway.packages
    ├── InstallError ................................ gateway.packages
    ├── LockfileError ............................... gateway.packages
    ├── SyncRefused ................................. gateway.packages
    ├── PackageConfigError .......................... gateway.packages
    ├── SecretsError ................................ gateway.packages
    ├── SignInError ................................. gateway.packages
    ├── ServeError .................................. gateway.serve
    ├── TokenError .................................. gateway.serve
    ├── HostRequestFailed ........................... gateway.serve
    ├── LoadFailed .................................. gateway.migrate
    ├── MigrationError .............................. gateway.migrate
    ├── Usage ....................................... gateway.cli
    ├── BadArgument ................................. gateway.cli
    ├── SessionRefused .............................. gateway.cli
    ├── SidecarSetupError ........................... adapters
    ├── ManifestError ............................... adapters.nanobot
    ├── InvalidRegistration ......................... adapters.nanobot
    ├── ConfigError ................................. adapters.plugin_host
    ├── MCPError .................................... adapters.plugin_host
    ├── ConnectError ................................ adapters.plugin_host
    ├── ConnectTimeout .............................. adapters.plugin_host
    ├── ProxyError .................................. adapters.plugin_host
    └── InvalidResult (ValueError) .................. adapters.plugin_host

Private classes that only carry control flow inside one module (``_Stop``, ``_Invalid``,
``_Mismatch``, ``_Overflow``) derive from it too, and are not drawn.
"""

from __future__ import annotations

__all__ = ["GatewayError"]


class GatewayError(Exception):
    """Something the gateway or an adapter refused or failed at; ``str()`` says what."""
