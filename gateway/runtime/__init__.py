"""Starting children: where Node comes from (``gateway setup``, nodeenv), the allow-listed
environment and process groups, confined spawning, npm runs for the user.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_attributes

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.runtime._child import Child, ChildOutput, run_child, start_child
    from gateway.runtime._program_reads import CREDENTIAL_FILES, program_reads, shebang
    from gateway.runtime._spawn import (
        LaunchError,
        child_environment,
        kill_group,
        resolve_command,
        signal_group,
    )
    from gateway.runtime.installation import install_share_dir
    from gateway.runtime.node import (
        MIN_SIDECAR_NODE,
        bundled_node_dir,
        find_node,
        node_env_dir,
        node_version,
        npm_command,
        private_node_env,
    )
    from gateway.runtime.npm import NpmError, npm_environment, run_tool
    from gateway.runtime.setup import SetupError, run_setup

_WHERE: dict[str, str] = {
    "CREDENTIAL_FILES": "gateway.runtime._program_reads",
    "program_reads": "gateway.runtime._program_reads",
    "shebang": "gateway.runtime._program_reads",
    "Child": "gateway.runtime._child",
    "ChildOutput": "gateway.runtime._child",
    "LaunchError": "gateway.runtime._spawn",
    "MIN_SIDECAR_NODE": "gateway.runtime.node",
    "NpmError": "gateway.runtime.npm",
    "SetupError": "gateway.runtime.setup",
    "bundled_node_dir": "gateway.runtime.node",
    "child_environment": "gateway.runtime._spawn",
    "find_node": "gateway.runtime.node",
    "install_share_dir": "gateway.runtime.installation",
    "kill_group": "gateway.runtime._spawn",
    "node_env_dir": "gateway.runtime.node",
    "node_version": "gateway.runtime.node",
    "npm_command": "gateway.runtime.node",
    "npm_environment": "gateway.runtime.npm",
    "private_node_env": "gateway.runtime.node",
    "resolve_command": "gateway.runtime._spawn",
    "run_child": "gateway.runtime._child",
    "run_setup": "gateway.runtime.setup",
    "run_tool": "gateway.runtime.npm",
    "signal_group": "gateway.runtime._spawn",
    "start_child": "gateway.runtime._child",
}

__all__ = [
    "CREDENTIAL_FILES",
    "MIN_SIDECAR_NODE",
    "Child",
    "ChildOutput",
    "LaunchError",
    "NpmError",
    "SetupError",
    "bundled_node_dir",
    "child_environment",
    "find_node",
    "install_share_dir",
    "kill_group",
    "node_env_dir",
    "node_version",
    "npm_command",
    "npm_environment",
    "private_node_env",
    "program_reads",
    "resolve_command",
    "run_child",
    "run_setup",
    "run_tool",
    "shebang",
    "signal_group",
    "start_child",
]

__getattr__, __dir__ = lazy_attributes(__name__, _WHERE)
