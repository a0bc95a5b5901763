"""Starting children: where Node comes from (``gateway setup``, nodeenv), the allow-listed
environment and process groups, confined spawning, npm runs for the user.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.runtime._child import Child as Child
    from gateway.runtime._child import ChildOutput as ChildOutput
    from gateway.runtime._child import run_child as run_child
    from gateway.runtime._child import start_child as start_child
    from gateway.runtime._program_reads import CREDENTIAL_FILES as CREDENTIAL_FILES
    from gateway.runtime._program_reads import program_reads as program_reads
    from gateway.runtime._program_reads import shebang as shebang
    from gateway.runtime._spawn import LaunchError as LaunchError
    from gateway.runtime._spawn import child_environment as child_environment
    from gateway.runtime._spawn import kill_group as kill_group
    from gateway.runtime._spawn import resolve_command as resolve_command
    from gateway.runtime._spawn import signal_group as signal_group
    from gateway.runtime.installation import install_share_dir as install_share_dir
    from gateway.runtime.node import MIN_SIDECAR_NODE as MIN_SIDECAR_NODE
    from gateway.runtime.node import bundled_node_dir as bundled_node_dir
    from gateway.runtime.node import find_node as find_node
    from gateway.runtime.node import node_env_dir as node_env_dir
    from gateway.runtime.node import node_version as node_version
    from gateway.runtime.node import npm_command as npm_command
    from gateway.runtime.node import private_node_env as private_node_env
    from gateway.runtime.npm import NpmError as NpmError
    from gateway.runtime.npm import npm_environment as npm_environment
    from gateway.runtime.npm import run_tool as run_tool
    from gateway.runtime.setup import SetupError as SetupError
    from gateway.runtime.setup import run_setup as run_setup


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
