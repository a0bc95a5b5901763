// Recording mode, for `gateway audit --load` (docs/audit.md): the sidecar loads its packages
// exactly as it always does, and records every registration and every API call they make,
// with the file and line that made it. It is switched on by the environment variable
// GATEWAY_SIDECAR_RECORD=1 — set only by the audit, which starts the sidecar in a throwaway
// sandbox and never sends a tool call — and the record travels in `register.gateway.record`.
//
// The hosts are not edited for it: a module hook hands the Pi host a recording view of pi's
// loader (./pi-loader.mjs) and the OpenClaw host a recording `createApi` (./openclaw-api.mjs).
// Everything else is the hosts' own code, so what registers is what registers in the gateway.

import { registerHooks } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const PI_HOST = new URL("../pi/host.mjs", import.meta.url).href;
const OPENCLAW_HOST = new URL("../openclaw/host.mjs", import.meta.url).href;
const RECORDING_PI_LOADER = new URL("./pi-loader.mjs", import.meta.url).href;
const RECORDING_OPENCLAW_API = new URL("./openclaw-api.mjs", import.meta.url).href;
const MAX_ENTRIES = 5000; // a package that calls an API in a loop must not flood the record

let current = null;

export function recording() {
	return process.env.GATEWAY_SIDECAR_RECORD === "1";
}

/** Install the module hook and the record; call before the hosts are loaded. */
export function startRecording(state) {
	current = { calls: new Map(), registrations: [], probes: new Map(), dropped: 0 };
	state.record = current;
	let piLoader = null;
	try {
		const piDist = path.dirname(fileURLToPath(import.meta.resolve("@earendil-works/pi-coding-agent")));
		piLoader = pathToFileURL(path.join(piDist, "core/extensions/loader.js")).href;
	} catch {
		// No Pi host installed: only OpenClaw plugins can load, and they are recorded.
	}
	registerHooks({
		resolve(specifier, context, nextResolve) {
			if (context.parentURL === PI_HOST && specifier === piLoader) return { url: RECORDING_PI_LOADER, shortCircuit: true };
			if (context.parentURL === OPENCLAW_HOST && specifier === "./api.mjs") return { url: RECORDING_OPENCLAW_API, shortCircuit: true };
			return nextResolve(specifier, context);
		},
	});
}

/** The record of the loaded packages, for `register.gateway.record`. */
export function recordReport(state) {
	const record = state.record;
	return {
		calls: [...record.calls.values()],
		registrations: record.registrations,
		probes: [...record.probes.values()],
		dropped: record.dropped,
	};
}

/** One API call by a package (`api` its full name); repeated calls from one place count. */
export function recordCall(packageId, api, source) {
	if (!current) return;
	const key = `${packageId}\0${api}\0${source ?? ""}`;
	const found = current.calls.get(key);
	if (found) {
		found.count += 1;
		return;
	}
	if (current.calls.size >= MAX_ENTRIES) {
		current.dropped += 1;
		return;
	}
	current.calls.set(key, { package: packageId, api, source: source ?? null, count: 1 });
}

/** Something a package registered: {package, kind, name, api, source}. */
export function recordRegistration(item) {
	if (!current) return;
	if (current.registrations.length >= MAX_ENTRIES) {
		current.dropped += 1;
		return;
	}
	current.registrations.push({ source: null, ...item, name: String(item.name ?? "").slice(0, 200) });
}

/** A package looked for an API the host does not offer (`typeof api.x === "function"`). */
export function recordProbe(packageId, api, source) {
	if (!current) return;
	const key = `${packageId}\0${api}`;
	if (!current.probes.has(key) && current.probes.size < MAX_ENTRIES) {
		current.probes.set(key, { package: packageId, api, source: source ?? null });
	}
}

/** `file:line` of the first stack frame outside the sidecar (the package's own code), made
 * relative to `root` when it is inside it. */
export function callerSource(root, skip = 0) {
	const saved = Error.prepareStackTrace;
	let sites = [];
	try {
		Error.prepareStackTrace = (_error, frames) => frames;
		const holder = {};
		Error.captureStackTrace(holder, callerSource);
		sites = holder.stack ?? [];
	} finally {
		Error.prepareStackTrace = saved;
	}
	const sidecar = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
	let skipped = 0;
	for (const site of sites) {
		let file = site.getFileName?.();
		if (!file) continue;
		if (file.startsWith("file://")) file = fileURLToPath(file);
		if (file.startsWith(sidecar) || file.startsWith("node:")) continue;
		if (skipped++ < skip) continue;
		const where = root && file.startsWith(root + path.sep) ? path.relative(root, file) : file;
		return `${where}:${site.getLineNumber?.() ?? 0}`;
	}
	return null;
}
