"""Confinement of the processes the gateway starts (Linux: Landlock, seccomp, capabilities).

- :class:`SandboxPolicy` says what one child may touch; :func:`policy_for_entry` and
  :func:`package_sandbox` build it from what a package declares and was granted.
- :func:`spawn_confined` starts a child under a policy, :func:`wait_for_exit` waits for it
  without polling.
- :func:`detect_support` says what this kernel can enforce, :func:`support_diagnostics`
  what a run should report about it once, :func:`missing_protections` what a policy lacks.
- For the gateway process itself: :func:`make_undumpable`, :func:`become_subreaper`,
  :func:`kill_descendants`, :func:`reap_adopted`; for one child, :func:`family` and
  :func:`kill_family`.
- :func:`grant_hints` says at install what a package's code appears to need beyond the
  defaults; :func:`explain_denial` turns a refusal in its stderr into a diagnostic, and
  :func:`explain_unreachable` a tool's failure to reach a host its sandbox has no grant for.
- :func:`safe_name` turns a name a package controls into a harmless file name.
- :class:`ResourceLimits` (memory, processes, file size, CPU weight) ride on a policy;
  :func:`limits_from_settings` reads a package's ``$gateway.limits``, :func:`detect_cgroups`
  says whether cgroups hold them here, :func:`explain_exit` and :func:`explain_output`
  which one a process ran into.

See docs/security.md for the threat model and what each platform promises.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.sandbox._builder import (
        SANDBOX_PERMISSIONS,
        PackageGrants,
        PackageSandbox,
        exposed_paths,
        grants_from,
        is_sandbox_grant,
        node_runtime_paths,
        package_dirs,
        package_sandbox,
        policy_for_entry,
        python_runtime_paths,
        system_policy,
    )
    from gateway.sandbox._cgroups import Cgroups, cleanup_cgroups, detect_cgroups
    from gateway.sandbox._codes import (
        EGRESS_UPSTREAM,
        NETWORK_DENIED,
        NO_NETWORK_GRANT,
        PROTECTED_NAME,
        SANDBOX_DENIED,
        SANDBOX_REFUSED,
    )
    from gateway.sandbox._descendants import (
        descendants,
        family,
        kill_descendants,
        kill_family,
        reap_adopted,
    )
    from gateway.sandbox._destinations import (
        NETWORK_GRANT_PREFIX,
        Destination,
        DestinationError,
        destination_grant,
        destinations_from,
        is_wide_network,
        normal_host,
        parse_destination,
    )
    from gateway.sandbox._exceeded import explain_exit, explain_limit, explain_output
    from gateway.sandbox._hints import code_hosts, explain_denial, grant_hints
    from gateway.sandbox._landlock import abi_version
    from gateway.sandbox._limits import (
        LIMIT_NAMES,
        ResourceLimits,
        format_size,
        limits_from_settings,
        parse_size,
    )
    from gateway.sandbox._names import safe_name
    from gateway.sandbox._netns import EGRESS_HOST, EGRESS_PORT
    from gateway.sandbox._policy import NetworkAccess, Ports, SandboxPolicy
    from gateway.sandbox._privileges import (
        become_subreaper,
        is_dumpable,
        is_subreaper,
        make_undumpable,
    )
    from gateway.sandbox._protected import PROTECTED_NAMES, reopened_names
    from gateway.sandbox._refusals import settle_refusals
    from gateway.sandbox._spawn import spawn_confined, wait_for_exit
    from gateway.sandbox._support import (
        FULL_ABI,
        SANDBOXED_VARIABLE,
        KernelSupport,
        SandboxError,
        SandboxUnavailable,
        detect_support,
        missing_protections,
        support_diagnostics,
    )
    from gateway.sandbox._unreachable import explain_unreachable

_WHERE: dict[str, str] = {
    "SANDBOXED_VARIABLE": "gateway.sandbox._support",
    "EGRESS_UPSTREAM": "gateway.sandbox._codes",
    "NETWORK_DENIED": "gateway.sandbox._codes",
    "NO_NETWORK_GRANT": "gateway.sandbox._codes",
    "NETWORK_GRANT_PREFIX": "gateway.sandbox._destinations",
    "Destination": "gateway.sandbox._destinations",
    "DestinationError": "gateway.sandbox._destinations",
    "destination_grant": "gateway.sandbox._destinations",
    "destinations_from": "gateway.sandbox._destinations",
    "is_wide_network": "gateway.sandbox._destinations",
    "normal_host": "gateway.sandbox._destinations",
    "parse_destination": "gateway.sandbox._destinations",
    "EGRESS_HOST": "gateway.sandbox._netns",
    "EGRESS_PORT": "gateway.sandbox._netns",
    "SANDBOX_DENIED": "gateway.sandbox._codes",
    "settle_refusals": "gateway.sandbox._refusals",
    "PROTECTED_NAME": "gateway.sandbox._codes",
    "SANDBOX_REFUSED": "gateway.sandbox._codes",
    "Cgroups": "gateway.sandbox._cgroups",
    "cleanup_cgroups": "gateway.sandbox._cgroups",
    "FULL_ABI": "gateway.sandbox._support",
    "LIMIT_NAMES": "gateway.sandbox._limits",
    "ResourceLimits": "gateway.sandbox._limits",
    "detect_cgroups": "gateway.sandbox._cgroups",
    "explain_exit": "gateway.sandbox._exceeded",
    "explain_limit": "gateway.sandbox._exceeded",
    "explain_output": "gateway.sandbox._exceeded",
    "format_size": "gateway.sandbox._limits",
    "limits_from_settings": "gateway.sandbox._limits",
    "parse_size": "gateway.sandbox._limits",
    "KernelSupport": "gateway.sandbox._support",
    "NetworkAccess": "gateway.sandbox._policy",
    "PackageGrants": "gateway.sandbox._builder",
    "PackageSandbox": "gateway.sandbox._builder",
    "Ports": "gateway.sandbox._policy",
    "SANDBOX_PERMISSIONS": "gateway.sandbox._builder",
    "SandboxError": "gateway.sandbox._support",
    "SandboxPolicy": "gateway.sandbox._policy",
    "SandboxUnavailable": "gateway.sandbox._support",
    "abi_version": "gateway.sandbox._landlock",
    "become_subreaper": "gateway.sandbox._privileges",
    "descendants": "gateway.sandbox._descendants",
    "detect_support": "gateway.sandbox._support",
    "explain_denial": "gateway.sandbox._hints",
    "explain_unreachable": "gateway.sandbox._unreachable",
    "exposed_paths": "gateway.sandbox._builder",
    "family": "gateway.sandbox._descendants",
    "grant_hints": "gateway.sandbox._hints",
    "code_hosts": "gateway.sandbox._hints",
    "grants_from": "gateway.sandbox._builder",
    "is_sandbox_grant": "gateway.sandbox._builder",
    "PROTECTED_NAMES": "gateway.sandbox._protected",
    "reopened_names": "gateway.sandbox._protected",
    "is_dumpable": "gateway.sandbox._privileges",
    "is_subreaper": "gateway.sandbox._privileges",
    "kill_descendants": "gateway.sandbox._descendants",
    "kill_family": "gateway.sandbox._descendants",
    "make_undumpable": "gateway.sandbox._privileges",
    "missing_protections": "gateway.sandbox._support",
    "node_runtime_paths": "gateway.sandbox._builder",
    "package_dirs": "gateway.sandbox._builder",
    "package_sandbox": "gateway.sandbox._builder",
    "policy_for_entry": "gateway.sandbox._builder",
    "python_runtime_paths": "gateway.sandbox._builder",
    "reap_adopted": "gateway.sandbox._descendants",
    "safe_name": "gateway.sandbox._names",
    "spawn_confined": "gateway.sandbox._spawn",
    "support_diagnostics": "gateway.sandbox._support",
    "system_policy": "gateway.sandbox._builder",
    "wait_for_exit": "gateway.sandbox._spawn",
}

__all__ = [
    "EGRESS_HOST",
    "EGRESS_PORT",
    "EGRESS_UPSTREAM",
    "FULL_ABI",
    "LIMIT_NAMES",
    "NETWORK_DENIED",
    "NETWORK_GRANT_PREFIX",
    "NO_NETWORK_GRANT",
    "PROTECTED_NAME",
    "PROTECTED_NAMES",
    "SANDBOXED_VARIABLE",
    "SANDBOX_DENIED",
    "SANDBOX_PERMISSIONS",
    "SANDBOX_REFUSED",
    "Cgroups",
    "Destination",
    "DestinationError",
    "KernelSupport",
    "NetworkAccess",
    "PackageGrants",
    "PackageSandbox",
    "Ports",
    "ResourceLimits",
    "SandboxError",
    "SandboxPolicy",
    "SandboxUnavailable",
    "abi_version",
    "become_subreaper",
    "cleanup_cgroups",
    "code_hosts",
    "descendants",
    "destination_grant",
    "destinations_from",
    "detect_cgroups",
    "detect_support",
    "explain_denial",
    "explain_exit",
    "explain_limit",
    "explain_output",
    "explain_unreachable",
    "exposed_paths",
    "family",
    "format_size",
    "grant_hints",
    "grants_from",
    "is_dumpable",
    "is_sandbox_grant",
    "is_subreaper",
    "is_wide_network",
    "kill_descendants",
    "kill_family",
    "limits_from_settings",
    "make_undumpable",
    "missing_protections",
    "node_runtime_paths",
    "normal_host",
    "package_dirs",
    "package_sandbox",
    "parse_destination",
    "parse_size",
    "policy_for_entry",
    "python_runtime_paths",
    "reap_adopted",
    "reopened_names",
    "safe_name",
    "settle_refusals",
    "spawn_confined",
    "support_diagnostics",
    "system_policy",
    "wait_for_exit",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
