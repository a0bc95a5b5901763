// The wire: the nimlet protocol on stdin/stdout. Reads request lines into a table of message
// handlers, runs each request as its own task with an AbortSignal that `cancel` aborts, and
// offers the parts of the protocol code inside a request uses: side-effect updates, progress,
// questions to the user, host requests (negotiated `host.request`) and host actions.

import readline from "node:readline";
import { FEATURE, negotiate, offered } from "./features.mjs";
import { currentRequest } from "./state.mjs";
import { log, protocolInput } from "./stdio.mjs";

/** An unsolicited side effect (status, widget, notification, entry, gateway additions). */
export function update(state, fields) {
	state.send({ type: "update", ...fields });
}

/** Partial result of the in-flight tool request `id` (negotiated `tool.progress`). */
export function progress(state, id, content, details, text) {
	if (!offered(state, FEATURE.progress)) return;
	update(state, { gateway: { progress: { id, content, details, text } } });
}

/** Ask the host (negotiated `host.request`); undefined when not offered or refused. */
export async function hostRequest(state, method, params = {}) {
	if (!offered(state, FEATURE.hostRequest)) return undefined;
	const id = `sidecar-host-${++state.counters.host}`;
	const reply = new Promise((resolve) => state.hostWaiters.set(id, resolve));
	state.send({ type: "host_request", id, method, params });
	const answer = await reply;
	if (answer.error) {
		log(`host_request ${method} failed: ${answer.error}`);
		return undefined;
	}
	return answer.result;
}

/** Run a command on the host (`host.request` `exec`: no shell, the host's environment
 * allow-list and exec policy). undefined when the host did not offer `host.request`. */
export async function hostExec(state, command, args, cwd, timeout) {
	if (!offered(state, FEATURE.hostRequest)) return undefined;
	const params = { command: String(command), args: (args ?? []).map(String), cwd: cwd ?? null, timeout: timeout ?? null };
	// The trace of the request this command runs for (negotiated `trace.context`): the host
	// passes it to the command as TRACEPARENT / TRACESTATE, so a traced program continues it.
	const trace = currentRequest(state)?.trace;
	if (trace) params.trace = trace;
	const result = await hostRequest(state, "exec", params);
	if (result === undefined) throw new Error(`exec ${command}: refused or failed on the host (see its log)`);
	return { stdout: "", stderr: "", code: 1, killed: false, truncated: false, ...result };
}

/** A multiple-choice question (nimlet v1 `ui_request`); resolves {answer, cancelled}. */
export function askQuestion(state, prompt, options) {
	const id = `sidecar-ui-${++state.counters.ui}`;
	const answer = new Promise((resolve) => state.uiWaiters.set(id, resolve));
	state.send({ type: "ui_request", id, method: "question", prompt, options });
	return answer;
}

/** A session-level action the host performs (new_session, shutdown, reload, compact). Inside
 * a request it rides on the reply (`host.actions`) with a transcript line any v1 host shows;
 * outside one it is a notification. `label` names the ecosystem, e.g. "[pi]". */
export function hostAction(state, action, label) {
	const text = `${label} ${action.replace("_", " ")} requested`;
	const current = currentRequest(state);
	if (current) {
		current.actions.push(action);
		current.messages.push(text);
	} else {
		update(state, { notification: { level: "info", message: text } });
	}
}

async function serveRequest(state, message, serve, controller) {
	const current = { kind: message.type, messages: [], actions: [], prompt: undefined, trace: traceOf(state, message) };
	let reply;
	try {
		reply = await state.requests.run(current, () => serve(message, controller.signal, current));
	} catch (error) {
		reply = message.type === "tool" ? { content: String(error?.message ?? error), is_error: true } : {};
		log(`request ${message.id} failed: ${error?.stack ?? error}`);
	} finally {
		state.pending.delete(message.id);
	}
	if (controller.cancelled) return; // the host gave up on it; no reply expected
	if (current.actions.length && offered(state, FEATURE.actions)) {
		reply.gateway = { ...(reply.gateway ?? {}), actions: current.actions };
	}
	state.send({ type: "response", id: message.id, ...reply });
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The W3C trace context a request carries (negotiated `trace.context`), checked; else undefined. */
function traceOf(state, message) {
	if (!offered(state, FEATURE.trace)) return undefined;
	const { traceparent, tracestate } = message.gateway ?? {};
	if (typeof traceparent !== "string" || !TRACEPARENT.test(traceparent)) return undefined;
	return typeof tracestate === "string" && tracestate.length <= 512 ? { traceparent, tracestate } : { traceparent };
}

function settle(waiters, id, value) {
	const resolve = waiters.get(id);
	waiters.delete(id);
	resolve?.(value);
}

// One handler per message type. `app` = {loaded, register(), serve(message, signal, current)}.
const MESSAGES = {
	initialize(state, message, app) {
		if (state.initialize) return;
		state.initialize = message;
		negotiate(state, message);
		app.loaded.then(() => app.register());
	},
	tool: request,
	command: request,
	event: request,
	cancel(state, message) {
		const controller = state.pending.get(message.id);
		if (!controller) return;
		controller.cancelled = true;
		controller.abort(new Error("cancelled by the host"));
	},
	host_response(state, message) {
		settle(state.hostWaiters, message.id, { result: message.result, error: message.error });
	},
	ui_response(state, message) {
		settle(state.uiWaiters, message.id, { answer: message.answer ?? "", cancelled: Boolean(message.cancelled) });
	},
	shutdown(state) {
		shutdown(state);
	},
};

// The request is in `pending` from the moment its line is read, so a `cancel` read in the
// same chunk finds it; a request cancelled before loading finished never runs.
function request(state, message, app) {
	const controller = new AbortController();
	state.pending.set(message.id, controller);
	app.loaded.then(() => {
		if (controller.cancelled) state.pending.delete(message.id);
		else serveRequest(state, message, app.serve, controller);
	});
}

/** Serve stdin until it closes or the host says `shutdown`. */
export function listen(state, app) {
	const input = readline.createInterface({ input: protocolInput(), crlfDelay: Infinity });
	input.on("line", (line) => {
		if (!line.trim()) return;
		let message;
		try {
			message = JSON.parse(line);
		} catch {
			log("ignored a non-JSON line");
			return;
		}
		const type = message?.type;
		if (typeof type === "string" && Object.hasOwn(MESSAGES, type)) MESSAGES[type](state, message, app);
	});
	input.on("close", () => shutdown(state));
}

const STOP_HOOKS_MS = 300;

function shutdown(state) {
	if (state.stopping) return;
	state.stopping = true;
	for (const controller of state.pending.values()) controller.abort(new Error("sidecar shutting down"));
	for (const resolve of state.uiWaiters.values()) resolve({ answer: "", cancelled: true });
	for (const resolve of state.hostWaiters.values()) resolve({ error: "sidecar shutting down" });
	// Hosts' stop hooks (OpenClaw's gateway_stop) get a bounded moment; then handlers settle
	// briefly, and the process exits even if plugin timers keep the loop alive.
	const stopped = Promise.allSettled(state.shutdownHooks.map((hook) => Promise.resolve().then(hook)));
	const bound = new Promise((resolve) => setTimeout(resolve, STOP_HOOKS_MS).unref?.());
	Promise.race([stopped, bound]).then(() => setTimeout(() => process.exit(0), 50).unref?.());
	setTimeout(() => process.exit(0), STOP_HOOKS_MS + 200);
}
