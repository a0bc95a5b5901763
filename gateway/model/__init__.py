"""What the host talks about: catalog entries and launch plans, discovery and manifests,
the registry, the event catalogue, the session and what the embedding agent provides.
"""

from __future__ import annotations

from gateway.base.lazy import lazy_exports

TYPE_CHECKING = False  # typing itself costs a runtime several ms at start

if TYPE_CHECKING:
    from gateway.model._adapter import Adapter as Adapter
    from gateway.model._adapter import AdapterSet as AdapterSet
    from gateway.model._adapter import CallPlanner as CallPlanner
    from gateway.model._adapter import OfferedSource as OfferedSource
    from gateway.model._adapter import OffersPackages as OffersPackages
    from gateway.model._adapter import PackageRequirement as PackageRequirement
    from gateway.model._adapter import PreparesInstalls as PreparesInstalls
    from gateway.model._adapter import RequiresPackages as RequiresPackages
    from gateway.model._adapter import ServesConfiguredResources as ServesConfiguredResources
    from gateway.model._adapter import ServesResources as ServesResources
    from gateway.model._adapter import SharesProcesses as SharesProcesses
    from gateway.model._adapter import SignsIn as SignsIn
    from gateway.model._adapter import StagesInstalls as StagesInstalls
    from gateway.model._codes import HOOK_FAILED as HOOK_FAILED
    from gateway.model._commands import SESSION_ID as SESSION_ID
    from gateway.model._commands import SessionAction as SessionAction
    from gateway.model._commands import SessionActionError as SessionActionError
    from gateway.model._commands import session_action as session_action
    from gateway.model._launch import CallPlan as CallPlan
    from gateway.model._launch import CallTool as CallTool
    from gateway.model._launch import DiscoveredLaunch as DiscoveredLaunch
    from gateway.model._launch import LaunchRefusal as LaunchRefusal
    from gateway.model._launch import LaunchSpec as LaunchSpec
    from gateway.model._launch import PromptCommand as PromptCommand
    from gateway.model._launch import SkillFile as SkillFile
    from gateway.model._results import AgentStartResult as AgentStartResult
    from gateway.model._results import CompactionReason as CompactionReason
    from gateway.model._results import CompactionResult as CompactionResult
    from gateway.model._results import InputResult as InputResult
    from gateway.model._results import Summarizer as Summarizer
    from gateway.model._results import ToolResult as ToolResult
    from gateway.model._results import UnknownCommand as UnknownCommand
    from gateway.model._results import UnknownTool as UnknownTool
    from gateway.model._sign_in import RemoteServer as RemoteServer
    from gateway.model._sign_in import SignedIn as SignedIn
    from gateway.model._sign_in import SignInFailed as SignInFailed
    from gateway.model._sign_in import SignInPrompt as SignInPrompt
    from gateway.model._tool_index import IndexHit as IndexHit
    from gateway.model._tool_index import SearchDocument as SearchDocument
    from gateway.model._tool_index import ToolIndex as ToolIndex
    from gateway.model._tool_index import load_ranking as load_ranking
    from gateway.model._tool_words import name_words as name_words
    from gateway.model.agent import AgentLink as AgentLink
    from gateway.model.agent import Approval as Approval
    from gateway.model.agent import ApprovalRequest as ApprovalRequest
    from gateway.model.agent import Completion as Completion
    from gateway.model.agent import CompletionRequest as CompletionRequest
    from gateway.model.agent import EditRequest as EditRequest
    from gateway.model.agent import EditResult as EditResult
    from gateway.model.agent import ModelContext as ModelContext
    from gateway.model.agent import UserMessage as UserMessage
    from gateway.model.catalog import CONTRIBUTION_KINDS as CONTRIBUTION_KINDS
    from gateway.model.catalog import DECLARES_PERMISSIONS as DECLARES_PERMISSIONS
    from gateway.model.catalog import NANOBOT_CONTRIBUTION_KINDS as NANOBOT_CONTRIBUTION_KINDS
    from gateway.model.catalog import RUNTIMES as RUNTIMES
    from gateway.model.catalog import CatalogEntry as CatalogEntry
    from gateway.model.catalog import Contribution as Contribution
    from gateway.model.catalog import Dependency as Dependency
    from gateway.model.catalog import Permission as Permission
    from gateway.model.catalog import folder_name as folder_name
    from gateway.model.discovery import DiscoveredExtension as DiscoveredExtension
    from gateway.model.discovery import DiscoveredTool as DiscoveredTool
    from gateway.model.discovery import Discovery as Discovery
    from gateway.model.discovery import PromptTemplate as PromptTemplate
    from gateway.model.discovery import Skill as Skill
    from gateway.model.discovery import discover as discover
    from gateway.model.discovery import discover_package as discover_package
    from gateway.model.discovery import expand_prompt as expand_prompt
    from gateway.model.display import fill_placeholders as fill_placeholders
    from gateway.model.display import render_call as render_call
    from gateway.model.events import CANONICAL_EVENTS as CANONICAL_EVENTS
    from gateway.model.events import EXTENDED_ALIASES as EXTENDED_ALIASES
    from gateway.model.events import EXTENDED_EVENTS as EXTENDED_EVENTS
    from gateway.model.events import NIMLET_EVENTS as NIMLET_EVENTS
    from gateway.model.events import PLAN_EVENTS as PLAN_EVENTS
    from gateway.model.events import EventCatalogue as EventCatalogue
    from gateway.model.events import EventOutcome as EventOutcome
    from gateway.model.events import EventSpec as EventSpec
    from gateway.model.events import RewriteCheck as RewriteCheck
    from gateway.model.events import dispatch as dispatch
    from gateway.model.frontmatter import SKILL_SCAN_LINES as SKILL_SCAN_LINES
    from gateway.model.frontmatter import parse_front_matter as parse_front_matter
    from gateway.model.manifest import load_extension_manifest as load_extension_manifest
    from gateway.model.manifest import load_tool_manifest as load_tool_manifest
    from gateway.model.registry import BUILTIN_OWNER as BUILTIN_OWNER
    from gateway.model.registry import CommandEntry as CommandEntry
    from gateway.model.registry import CommandOutcome as CommandOutcome
    from gateway.model.registry import FlagEntry as FlagEntry
    from gateway.model.registry import HookEntry as HookEntry
    from gateway.model.registry import HookHandler as HookHandler
    from gateway.model.registry import Registry as Registry
    from gateway.model.registry import ToolEntry as ToolEntry
    from gateway.model.registry import ToolOutcome as ToolOutcome
    from gateway.model.registry import make_tool as make_tool
    from gateway.model.session import MAX_ENTRY_BYTES as MAX_ENTRY_BYTES
    from gateway.model.session import MAX_NOTIFICATIONS as MAX_NOTIFICATIONS
    from gateway.model.session import Session as Session
    from gateway.model.session import SessionEffect as SessionEffect
    from gateway.model.session import SessionNotFound as SessionNotFound


__getattr__, __dir__, __all__ = lazy_exports(__name__, __file__)
