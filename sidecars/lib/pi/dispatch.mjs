// Which Pi events each canonical event drives, which packages subscribe to each canonical
// event, and running the handlers of one dispatch: every extension in load order, or only
// one package's when the host addressed the event to it (negotiated `register.owners`: the
// host keeps one hook per package and sends `event.gateway.package`).

import { diagnostic } from "../diagnostics.mjs";
import { FEATURE, offered } from "../features.mjs";
import { log } from "../stdio.mjs";
import { enterPiEvent } from "./busy.mjs";
import { contextFor } from "./context.mjs";
import { LEGACY_EVENTS } from "./legacy.mjs";
import { extensionPath } from "./registry.mjs";

// Canonical (nimlet) event -> the Pi events it drives, in Pi's order.
const NIMLET_EVENTS = {
	tool_call: ["tool_execution_start", "tool_call"],
	tool_result: ["tool_result", "tool_execution_end"],
	turn_start: ["agent_start", "turn_start"],
	turn_end: ["turn_end", "agent_end", "agent_settled"],
	session_start: ["session_start", "resources_discover"],
	// Pi emits these before /new, /resume (switch) and /fork; the host's session_end says which
	// (its `reason`); on quit they do not run.
	session_end: ["session_before_switch", "session_before_fork", "session_shutdown"],
	session_before_compact: ["session_before_compact"],
	session_compact: ["session_compact"],
};
// Canonical events beyond nimlet's eight (negotiated `events.extended`): mapped only when the
// host announced the feature; otherwise their Pi handlers stay unmapped.
// Pi's message_start / message_end run for the user message (message_received) and for the
// assistant reply (message_sending, where message_end may replace it).
const EXTENDED_EVENTS = {
	input: ["input"],
	before_agent_start: ["before_agent_start"],
	context: ["context"],
	message_received: ["message_start", "message_end"],
	message_sending: ["message_start", "message_end"],
};
// Pi events the sidecar's Pi host emits itself, from a Pi API call and not from a canonical
// event: session_info_changed on pi.setSessionName (runtime.mjs).
const SIDECAR_EVENTS = new Set(["session_info_changed"]);
// Why an unmapped Pi event cannot run here, where the general reason says too little.
const UNMAPPED_BECAUSE = {
	project_trust:
		"Pi asks global extensions to decide project trust before project resources load; in the gateway workspace trust is the user's decision (gateway trust), never a package's",
};

function canonicalsFor(state, piEvent) {
	if (Object.hasOwn(LEGACY_EVENTS, piEvent)) return [LEGACY_EVENTS[piEvent].canonical];
	const tables = offered(state, FEATURE.extendedEvents) ? [NIMLET_EVENTS, EXTENDED_EVENTS] : [NIMLET_EVENTS];
	return tables.flatMap((table) => Object.keys(table).filter((canonical) => table[canonical].includes(piEvent)));
}

function report(state, pi, piEvent, code, message, packageId) {
	if (pi.reportedEvents.has(piEvent)) return;
	pi.reportedEvents.add(piEvent);
	diagnostic(state, code, message, piEvent, packageId);
}

/** Canonical event -> the ids of the packages subscribing to it (exactly the canonical events
 * their Pi events map to), in load order. An event with no mapping, and a legacy event
 * translated, are reported once. */
export function eventOwners(state, pi) {
	const owners = {};
	const add = (canonical, packageId) => {
		owners[canonical] ??= [];
		if (!owners[canonical].includes(packageId)) owners[canonical].push(packageId);
	};
	for (const { ext, root, packageId } of pi.extensions) {
		for (const piEvent of ext.handlers.keys()) {
			const canonicals = canonicalsFor(state, piEvent);
			for (const canonical of canonicals) add(canonical, packageId);
			const where = extensionPath(root, ext);
			const legacy = Object.hasOwn(LEGACY_EVENTS, piEvent) ? LEGACY_EVENTS[piEvent] : undefined;
			if (legacy) {
				const message = `event "${piEvent}" (${where}) is Pi's legacy API (removed in pi 0.65); translated to ${legacy.replacement}: its handlers run at the canonical ${legacy.canonical}`;
				report(state, pi, piEvent, "pi.legacy_event_translated", message, packageId);
			} else if (!canonicals.length && !SIDECAR_EVENTS.has(piEvent)) {
				const because = UNMAPPED_BECAUSE[piEvent] ? `: ${UNMAPPED_BECAUSE[piEvent]}` : "";
				const message = `event "${piEvent}" (${where}) has no canonical mapping in this host${because}; its handlers never run`;
				report(state, pi, piEvent, "pi.event_unmapped", message, packageId);
			}
		}
	}
	return owners;
}

/** The canonical events the extensions `items` subscribe to (nothing reported). */
export function packageEvents(state, items) {
	const found = new Set();
	for (const { ext } of items) for (const piEvent of ext.handlers.keys()) for (const canonical of canonicalsFor(state, piEvent)) found.add(canonical);
	return found;
}

/** A package's own view of the agent loop (turn counter, agent running, session started);
 * `null`: every package at once (the event was not addressed to one). */
export function loopState(pi, packageId) {
	const key = packageId ?? "";
	if (!pi.loops.has(key)) pi.loops.set(key, { started: false, turnIndex: 0, turnOpen: false });
	return pi.loops.get(key);
}

// A handler that throws is reported once per extension, event and message (Pi's runner
// reports every one to its error listeners; a headless host shows it as a diagnostic).
function handlerFailed(state, pi, item, piEvent, error) {
	const text = error?.message ?? String(error);
	const key = `${item.ext.path}\0${piEvent}\0${text}`;
	if (pi.reportedErrors.has(key)) return;
	pi.reportedErrors.add(key);
	const where = extensionPath(item.root, item.ext);
	diagnostic(state, "pi.handler_failed", `${where}: ${piEvent} handler failed: ${text}`, piEvent, item.packageId);
	if (error?.stack) log(error.stack);
}

/** Run one Pi event's handlers. `event` is the event object, or a function that builds a fresh
 * one for each handler (for payloads that chain, or that differ by the Pi a package targets:
 * it gets the handler's package id). `each(result)` may return "stop". */
export async function runHandlers(state, pi, target, piEvent, event, ctx, each) {
	for (const item of pi.extensions) {
		if (target !== undefined && item.packageId !== target) continue;
		if (pi.packages.get(item.packageId)?.ended) continue; // torn down, not made again yet (renew.mjs)
		const own = contextFor(ctx, item.runtime);
		for (const handler of [...(item.ext.handlers.get(piEvent) ?? [])]) {
			let result;
			try {
				enterPiEvent(state, pi, piEvent, item.packageId);
				result = await handler(typeof event === "function" ? event(item.packageId) : event, own);
			} catch (error) {
				if (piEvent === "tool_call") throw error; // pi: tool_call errors block the tool
				handlerFailed(state, pi, item, piEvent, error);
				continue;
			}
			if (each && (await each(result, item)) === "stop") return;
		}
	}
}
