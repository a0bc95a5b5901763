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

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.sandbox._builder import SANDBOX_PERMISSIONS as SANDBOX_PERMISSIONS
    from gateway.sandbox._builder import PackageGrants as PackageGrants
    from gateway.sandbox._builder import PackageSandbox as PackageSandbox
    from gateway.sandbox._builder import exposed_paths as exposed_paths
    from gateway.sandbox._builder import grants_from as grants_from
    from gateway.sandbox._builder import is_sandbox_grant as is_sandbox_grant
    from gateway.sandbox._builder import node_runtime_paths as node_runtime_paths
    from gateway.sandbox._builder import package_dirs as package_dirs
    from gateway.sandbox._builder import package_sandbox as package_sandbox
    from gateway.sandbox._builder import policy_for_entry as policy_for_entry
    from gateway.sandbox._builder import python_runtime_paths as python_runtime_paths
    from gateway.sandbox._builder import system_policy as system_policy
    from gateway.sandbox._cgroups import Cgroups as Cgroups
    from gateway.sandbox._cgroups import cleanup_cgroups as cleanup_cgroups
    from gateway.sandbox._cgroups import detect_cgroups as detect_cgroups
    from gateway.sandbox._codes import EGRESS_UPSTREAM as EGRESS_UPSTREAM
    from gateway.sandbox._codes import NETWORK_DENIED as NETWORK_DENIED
    from gateway.sandbox._codes import NO_NETWORK_GRANT as NO_NETWORK_GRANT
    from gateway.sandbox._codes import PROTECTED_NAME as PROTECTED_NAME
    from gateway.sandbox._codes import SANDBOX_DENIED as SANDBOX_DENIED
    from gateway.sandbox._codes import SANDBOX_REFUSED as SANDBOX_REFUSED
    from gateway.sandbox._descendants import descendants as descendants
    from gateway.sandbox._descendants import family as family
    from gateway.sandbox._descendants import kill_descendants as kill_descendants
    from gateway.sandbox._descendants import kill_family as kill_family
    from gateway.sandbox._descendants import reap_adopted as reap_adopted
    from gateway.sandbox._destinations import NETWORK_GRANT_PREFIX as NETWORK_GRANT_PREFIX
    from gateway.sandbox._destinations import Destination as Destination
    from gateway.sandbox._destinations import DestinationError as DestinationError
    from gateway.sandbox._destinations import destination_grant as destination_grant
    from gateway.sandbox._destinations import destinations_from as destinations_from
    from gateway.sandbox._destinations import is_wide_network as is_wide_network
    from gateway.sandbox._destinations import normal_host as normal_host
    from gateway.sandbox._destinations import parse_destination as parse_destination
    from gateway.sandbox._exceeded import explain_exit as explain_exit
    from gateway.sandbox._exceeded import explain_limit as explain_limit
    from gateway.sandbox._exceeded import explain_output as explain_output
    from gateway.sandbox._hints import code_hosts as code_hosts
    from gateway.sandbox._hints import explain_denial as explain_denial
    from gateway.sandbox._hints import grant_hints as grant_hints
    from gateway.sandbox._landlock import abi_version as abi_version
    from gateway.sandbox._limits import LIMIT_NAMES as LIMIT_NAMES
    from gateway.sandbox._limits import ResourceLimits as ResourceLimits
    from gateway.sandbox._limits import format_size as format_size
    from gateway.sandbox._limits import limits_from_settings as limits_from_settings
    from gateway.sandbox._limits import parse_size as parse_size
    from gateway.sandbox._names import safe_name as safe_name
    from gateway.sandbox._netns import EGRESS_HOST as EGRESS_HOST
    from gateway.sandbox._netns import EGRESS_PORT as EGRESS_PORT
    from gateway.sandbox._policy import NetworkAccess as NetworkAccess
    from gateway.sandbox._policy import Ports as Ports
    from gateway.sandbox._policy import SandboxPolicy as SandboxPolicy
    from gateway.sandbox._privileges import become_subreaper as become_subreaper
    from gateway.sandbox._privileges import is_dumpable as is_dumpable
    from gateway.sandbox._privileges import is_subreaper as is_subreaper
    from gateway.sandbox._privileges import make_undumpable as make_undumpable
    from gateway.sandbox._protected import PROTECTED_NAMES as PROTECTED_NAMES
    from gateway.sandbox._protected import reopened_names as reopened_names
    from gateway.sandbox._refusals import settle_refusals as settle_refusals
    from gateway.sandbox._spawn import spawn_confined as spawn_confined
    from gateway.sandbox._spawn import wait_for_exit as wait_for_exit
    from gateway.sandbox._support import FULL_ABI as FULL_ABI
    from gateway.sandbox._support import SANDBOXED_VARIABLE as SANDBOXED_VARIABLE
    from gateway.sandbox._support import KernelSupport as KernelSupport
    from gateway.sandbox._support import SandboxError as SandboxError
    from gateway.sandbox._support import SandboxUnavailable as SandboxUnavailable
    from gateway.sandbox._support import detect_support as detect_support
    from gateway.sandbox._support import missing_protections as missing_protections
    from gateway.sandbox._support import support_diagnostics as support_diagnostics
    from gateway.sandbox._unreachable import explain_unreachable as explain_unreachable


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
