// Whether Pi's session counts as busy (an agent run is active) for code running inside the
// current request: `ctx.isIdle()`, and `pi.sendUserMessage`, which needs `deliverAs` while
// busy (docs/pi.md, "sendUserMessage"). A tool call runs inside a run; an event handler is
// busy when Pi emits its event during a run. Since Pi 1.2 the session is also busy while a
// run starts, during `before_agent_start` handlers; a package targeting an older Pi sees it
// idle there. While compaction runs the session is not idle either, though no run is active.

import { currentRequest } from "../state.mjs";
import { since } from "./versions.mjs";

// Pi events emitted while an agent run is active (agent_settled: after it ended; session_*,
// resources_discover and input: outside a run).
const DURING_RUN = new Set([
	"agent_start",
	"turn_start",
	"turn_end",
	"agent_end",
	"tool_execution_start",
	"tool_call",
	"tool_result",
	"tool_execution_end",
	"context",
	"message_start",
	"message_end",
]);

// Pi events emitted while compaction runs: the session is not idle (AgentSession.isIdle), though
// no run is active.
const COMPACTING = new Set(["session_before_compact", "session_compact"]);

/** Mark the current event request busy or idle for the Pi event about to run. */
export function enterPiEvent(state, pi, piEvent, packageId) {
	const current = currentRequest(state);
	if (!current) return;
	current.piBusy = DURING_RUN.has(piEvent) || (piEvent === "before_agent_start" && since(pi, packageId, "busyRunStart"));
	current.piCompacting = COMPACTING.has(piEvent);
	current.piPackage = packageId;
}

/** The package whose code runs in the current request (a tool's owner, a handler's package). */
export function currentPackage(state) {
	return currentRequest(state)?.piPackage;
}

/** Pi's `ctx.isIdle()`: no run active and no compaction running. */
export function isIdle(state) {
	return !isBusy(state) && currentRequest(state)?.piCompacting !== true;
}

/** Whether an agent run is active (Pi's isStreaming). */
export function isBusy(state) {
	const current = currentRequest(state);
	if (!current) return false;
	return current.kind === "tool" || current.piBusy === true;
}
