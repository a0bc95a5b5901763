// The sidecar's state: one explicit object, created by the entry and passed to every part
// that needs it. Each host (Pi, OpenClaw) keeps its own state in its host object, held here
// in `hosts`.

import { AsyncLocalStorage } from "node:async_hooks";

export function createState(spec, send) {
	return {
		spec, // {packages: [{id, root, entries, host, ...}]}
		send, // writes one protocol message
		initialize: null, // the host's initialize message
		features: new Set(), // negotiated features (features.mjs)
		diagnostics: [], // {code, message, contribution?}
		hosts: [], // loaded hosts, in the order their first package appears in the spec
		registered: false, // `register` was sent
		routes: { tools: new Map(), commands: new Map() }, // name -> the host serving it (hosts.mjs)
		pending: new Map(), // request id -> AbortController
		uiWaiters: new Map(), // ui_request id -> resolve
		hostWaiters: new Map(), // host_request id -> resolve
		counters: { ui: 0, host: 0 },
		// The request being served, for code running inside it: {kind, messages, actions, prompt,
		// trace} (trace: its W3C trace context, negotiated `trace.context`).
		requests: new AsyncLocalStorage(),
		reported: new Set(), // keys of diagnostics reported once (e.g. cross-host conflicts)
		shutdownHooks: [], // () => Promise, run (bounded) before the process exits
		stopping: false,
	};
}

/** The request being served (undefined outside one). */
export function currentRequest(state) {
	return state.requests.getStore();
}

/** The workspace the host announced (the process's cwd until then). */
export function workspace(state) {
	return state.initialize?.workspace ?? process.cwd();
}
