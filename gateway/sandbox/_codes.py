"""The diagnostic codes of resource limits. The sandbox's other codes are the core's
(``gateway/base/_codes.py``); ``docs/diagnostics.md`` documents each one."""

from __future__ import annotations

from gateway.base import Severity, define_code

LIMIT_EXCEEDED = define_code(
    "sandbox.limit_exceeded",
    Severity.WARNING,
    "A package's process went over one of its resource limits: memory (killed by the "
    "kernel's OOM killer in its cgroup, or an allocation refused), processes (a fork or a "
    "thread refused), or file size (a write past it). The message names the package and the "
    "limit; that process failed or was killed, the gateway and every other package carry on.",
    "If the package really needs more, raise that limit: `gateway config ID "
    "'$gateway.limits.memory' 4G` (also `pids`, `file_size`, `cpu_weight`; docs/security.md); "
    "otherwise nothing to do — the limit did its job.",
)
LIMITS_INVALID = define_code(
    "sandbox.limits_invalid",
    Severity.WARNING,
    "A package's `$gateway.limits` setting cannot be used (not a size, a number out of "
    "range, an unknown limit); that limit keeps its default.",
    "Fix it with `gateway config ID '$gateway.limits.KEY' VALUE` (sizes such as `512M`, "
    "`2G` or `off`), or remove it with `--unset`.",
)
