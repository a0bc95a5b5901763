"""What ``gateway shell`` shows and asks: side effects and diagnostics as they happen, tool
progress, an extension's ``ui_request`` (question, confirm, input, masked password) and
nimlet's permission prompt, all read from the shell's terminal."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from gateway.base import Diagnostic, Severity, counted, without_colour
from gateway.cli._terminal import Terminal
from gateway.model import Approval, ApprovalRequest, SessionEffect
from gateway.wire import ExtensionProcess, UiAnswer, UiRequest

__all__ = ["EffectView", "approver", "asker", "show_diagnostic", "show_effect", "show_progress"]

_APPROVALS = {
    "o": Approval.ONCE,
    "once": Approval.ONCE,
    "s": Approval.SESSION,
    "session": Approval.SESSION,
    "p": Approval.PROJECT,
    "project": Approval.PROJECT,
    "d": Approval.DENY,
    "deny": Approval.DENY,
}


def asker(terminal: Terminal) -> Callable[[ExtensionProcess, UiRequest], Awaitable[UiAnswer]]:
    async def ask(process: ExtensionProcess, request: UiRequest) -> UiAnswer:
        terminal.say(f"\n? {process.name} asks: {request.prompt}")
        if request.method == "confirm":
            line = await terminal.line("yes or no (empty to dismiss)> ")
            if not line:
                return UiAnswer(cancelled=True)
            return UiAnswer(confirmed=line.strip().lower() in ("y", "yes"))
        if request.method in ("input", "password"):
            secret = request.method == "password"
            hint = "hidden, empty to dismiss" if secret else "empty to dismiss"
            line = await terminal.line(f"answer ({hint})> ", secret=secret)
            return UiAnswer(answer=line) if line else UiAnswer(cancelled=True)
        for number, option in enumerate(request.options, start=1):
            terminal.say(f"  {number}. {option}")
        line = await terminal.line("answer (number or text, empty to dismiss)> ")
        if not line:
            return UiAnswer(cancelled=True)
        if line.isdigit() and 1 <= int(line) <= len(request.options):
            return UiAnswer(answer=request.options[int(line) - 1])
        return UiAnswer(answer=line)

    return ask


def approver(terminal: Terminal) -> Callable[[ApprovalRequest], Awaitable[Approval]]:
    async def approve(request: ApprovalRequest) -> Approval:
        terminal.say(f"\n! {request.prompt} ({request.owner})")
        line = await terminal.line("[o]nce, [s]ession, [p]roject, [d]eny (empty denies)> ")
        return _APPROVALS.get((line or "").strip().lower(), Approval.DENY)

    return approve


def show_progress(terminal: Terminal) -> Callable[[str, dict[str, Any]], None]:
    def progress(owner: str, item: dict[str, Any]) -> None:
        text = item.get("text")
        if isinstance(text, str) and text:
            for line in text.splitlines() or [""]:
                terminal.say(f"  … {line}")

    return progress


class EffectView:
    """Shows each status and widget as it changes: a value the line already shows (an
    extension setting the same status again) and the clearing of one never shown are not
    printed again; notifications always are."""

    def __init__(self) -> None:
        self.shown: dict[tuple[str, str | None], Any] = {}

    def show(self, effect: SessionEffect) -> None:
        if effect.kind in ("status", "widget"):
            key = (effect.kind, effect.key)
            before = self.shown.get(key)
            if (before or None) == (effect.value or None):
                return  # unchanged, or cleared when nothing was shown
            self.shown[key] = effect.value
        show_effect(effect)


def show_effect(effect: SessionEffect) -> None:
    """A status, widget or notification as a line of text: without the colour a package
    styled it with (``without_colour``; the stream escapes every other control)."""
    if effect.kind == "status":
        print(f"  [status {effect.key}] {without_colour(effect.value or '') or '(cleared)'}")
    elif effect.kind == "widget":
        print(f"  [widget {effect.key}]" + ("" if effect.value else " (cleared)"))
        for line in effect.value:
            print(f"    {without_colour(line)}")
    elif effect.kind == "notification":
        message = without_colour(effect.value.message)
        print(f"  [{effect.value.level} from {effect.extension}] {message}")


def show_diagnostic(diagnostic: Diagnostic) -> None:
    print(f"  ({diagnostic.severity.value}) {diagnostic.message} [{diagnostic.code}]")


class StartupDiagnostics:
    """The shell's diagnostics: held while the extensions start, then errors in full and
    one line for the warnings (``-v``: all of them), and live after that."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        self.held: list[Diagnostic] | None = []

    def add(self, diagnostic: Diagnostic) -> None:
        if self.held is None:
            show_diagnostic(diagnostic)
        else:
            self.held.append(diagnostic)

    def release(self) -> None:
        held, self.held = self.held or [], None
        shown = [d for d in held if self.verbose or d.severity is Severity.ERROR]
        for diagnostic in shown:
            show_diagnostic(diagnostic)
        rest = [d for d in held if d not in shown and d.severity is Severity.WARNING]
        if rest:
            packages = len({d.package for d in rest})
            print(
                f"  ({counted(len(rest), 'warning')} from {counted(packages, 'package')} at start: "
                "/diagnostics shows each, gateway status too; -v prints each here)"
            )
