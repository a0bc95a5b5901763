"""Nimlet's permission prompt for extension tools: in act mode, every call of a tool that
asks (``ToolEntry.ask_permission``) needs a grant under ``tool:<name>`` before its
``tool_call`` hook runs. A grant is remembered for the session, or for the project in
``<workspace>/.nimlet/permissions.json`` (``{"allow": [...]}``, read only when the
workspace is trusted); a denial holds for that call only. With no one to ask (the
embedding agent gave no ``approve`` handler: nimlet's print, JSON and RPC modes) or in
yolo mode, calls run without asking."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gateway.base import Diagnostics
from gateway.host import _codes
from gateway.model import AgentLink, Approval, ApprovalRequest, ToolEntry

__all__ = ["DENIED", "PermissionPolicy"]

DENIED = "Tool execution was denied."
"""The error result of a call the user denied (code ``approval_denied``)."""


class PermissionPolicy:
    def __init__(self, workspace: Path, trusted: bool, diagnostics: Diagnostics) -> None:
        self.path = workspace / ".nimlet" / "permissions.json"
        self._diagnostics = diagnostics
        self._session: set[str] = set()
        self._project: set[str] = self._load() if trusted else set()

    def _load(self) -> set[str]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return set()
        except (OSError, UnicodeDecodeError) as error:
            return self._invalid(f"cannot be read ({error})")
        try:
            data: Any = json.loads(text)
        except json.JSONDecodeError as error:
            return self._invalid(f"is not JSON ({error.msg})")
        allow = data.get("allow") if isinstance(data, dict) else None
        if not isinstance(allow, list):
            return self._invalid('has no "allow" array')
        return {item for item in allow if isinstance(item, str)}

    def _invalid(self, why: str) -> set[str]:
        self._diagnostics.add(
            _codes.PERMISSIONS_FILE_INVALID(f"{self.path} {why}; no project grants are used")
        )
        return set()

    def granted(self, key: str) -> bool:
        return key in self._session or key in self._project

    def grants(self) -> dict[str, list[str]]:
        return {"project": sorted(self._project), "session": sorted(self._session)}

    def remember(self, key: str, decision: Approval) -> None:
        if decision is Approval.SESSION:
            self._session.add(key)
        elif decision is Approval.PROJECT:
            self._project.add(key)
            self._save()

    def clear_project(self) -> None:
        self._project.clear()
        self._save()

    def _save(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps({"allow": sorted(self._project)}, indent=2) + "\n")
        except OSError as error:
            self._diagnostics.add(
                _codes.PERMISSIONS_FILE_INVALID(f"{self.path} cannot be written ({error})")
            )

    def allowed_without_asking(self, tool: ToolEntry, link: AgentLink) -> bool:
        """No prompt is needed: the tool does not ask, yolo, a grant, or no one to ask."""
        return (
            not tool.ask_permission
            or link.yolo
            or link.approve is None
            or self.granted(tool.permission_key)
        )

    async def ask(self, tool: ToolEntry, arguments: dict[str, Any], link: AgentLink) -> bool:
        """True when the call may go on (to its ``tool_call`` hook)."""
        if self.allowed_without_asking(tool, link):
            return True
        assert link.approve is not None
        decision = await link.approve(
            ApprovalRequest(
                tool=tool.name,
                owner=tool.owner,
                key=tool.permission_key,
                prompt=f"Allow tool: {tool.name}",
                arguments=dict(arguments),
            )
        )
        self.remember(tool.permission_key, decision)
        return decision is not Approval.DENY
