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
  defaults; :func:`explain_denial` turns a refusal in its stderr into a diagnostic.
- :func:`safe_name` turns a name a package controls into a harmless file name.
- :class:`ResourceLimits` (memory, processes, file size, CPU weight) ride on a policy;
  :func:`limits_from_settings` reads a package's ``$gateway.limits``, :func:`detect_cgroups`
  says whether cgroups hold them here, :func:`explain_exit` and :func:`explain_output`
  which one a process ran into.

See docs/security.md for the threat model and what each platform promises.
"""

from gateway.sandbox._builder import (
    SANDBOX_PERMISSIONS,
    PackageGrants,
    PackageSandbox,
    exposed_paths,
    grants_from,
    node_runtime_paths,
    package_dirs,
    package_sandbox,
    policy_for_entry,
    python_runtime_paths,
    system_policy,
)
from gateway.sandbox._cgroups import Cgroups, detect_cgroups
from gateway.sandbox._codes import LIMIT_EXCEEDED, LIMITS_INVALID
from gateway.sandbox._descendants import (
    descendants,
    family,
    kill_descendants,
    kill_family,
    reap_adopted,
)
from gateway.sandbox._exceeded import explain_exit, explain_limit, explain_output
from gateway.sandbox._hints import explain_denial, grant_hints
from gateway.sandbox._landlock import abi_version
from gateway.sandbox._limits import (
    LIMIT_NAMES,
    ResourceLimits,
    format_size,
    limits_from_settings,
    parse_size,
)
from gateway.sandbox._names import safe_name
from gateway.sandbox._policy import NetworkAccess, Ports, SandboxPolicy
from gateway.sandbox._privileges import become_subreaper, is_dumpable, is_subreaper, make_undumpable
from gateway.sandbox._spawn import SandboxError, spawn_confined, wait_for_exit
from gateway.sandbox._support import (
    FULL_ABI,
    KernelSupport,
    SandboxUnavailable,
    detect_support,
    missing_protections,
    support_diagnostics,
)

__all__ = [
    "FULL_ABI",
    "LIMITS_INVALID",
    "LIMIT_EXCEEDED",
    "LIMIT_NAMES",
    "SANDBOX_PERMISSIONS",
    "Cgroups",
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
    "descendants",
    "detect_cgroups",
    "detect_support",
    "explain_denial",
    "explain_exit",
    "explain_limit",
    "explain_output",
    "exposed_paths",
    "family",
    "format_size",
    "grant_hints",
    "grants_from",
    "is_dumpable",
    "is_subreaper",
    "kill_descendants",
    "kill_family",
    "limits_from_settings",
    "make_undumpable",
    "missing_protections",
    "node_runtime_paths",
    "package_dirs",
    "package_sandbox",
    "parse_size",
    "policy_for_entry",
    "python_runtime_paths",
    "reap_adopted",
    "safe_name",
    "spawn_confined",
    "support_diagnostics",
    "system_policy",
    "wait_for_exit",
]
