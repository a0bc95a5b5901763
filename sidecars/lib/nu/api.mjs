// The `nu` object an extension's default export receives (docs/nu.md, "Extensions"):
// `on(event, handler)` for Nu's four hooks, `config` (the package's settings), `secret(name)`
// (only the names its package lists in `secrets`), `registerWatcher` (a watcher that starts a
// turn), `trace()` (a gateway addition: the W3C trace context of the hook being served, read
// from the request's own store — two hooks served at once each get theirs), and the registrations a headless host cannot honour — `registerChannel`,
// `registerMemoryStore`, `registerBrowserProvider`, `registerSandbox` — recorded as
// `nu.unsupported_api` naming the API, never faked.
//
// What a module registers is staged and kept only when its default export returned (or
// resolved) without throwing; calls after that are dropped with a log line.

import { diagnostic } from "../diagnostics.mjs";
import { currentRequest } from "../state.mjs";
import { log } from "../stdio.mjs";
import { HOOKS } from "./events.mjs";

const UNSUPPORTED = {
	registerChannel: "a channel to a chat app needs Nu's chat front end; the gateway has no channels",
	registerMemoryStore: "the gateway keeps no memory of its own for a store to replace",
	registerBrowserProvider: "the gateway has no browser tools for a provider to serve",
	registerSandbox: "the gateway confines processes itself (gateway.sandbox); it does not hand that to an extension",
};

const named = (value) => {
	const name = value?.id ?? value?.name;
	return typeof name === "string" && name ? ` "${name}"` : "";
};

/** A fresh `nu` for one extension module; `ext` = {pkg, path, config, staged, open}. */
export function createApi(state, ext) {
	const where = `${ext.pkg.id} (${ext.relative})`;
	const staging = (method) => {
		if (ext.open) return true;
		log(`${where}: nu.${method} called after the extension loaded; dropped`);
		return false;
	};
	const api = {
		config: structuredClone(ext.config),
		secret(name) {
			const listed = ext.pkg.secrets ?? [];
			if (!listed.includes(name)) {
				throw new Error(
					`nu.secret(${JSON.stringify(name)}): ${name} is not in the package's nu.secrets (${listed.join(", ") || "none"}); an extension reads only the secrets its package lists`,
				);
			}
			return process.env[name];
		},
		/** {traceparent, tracestate?} of the request being served (negotiated `trace.context`,
		 * the gateway tracing); {} outside one. A fresh object: the caller may keep or extend it. */
		trace() {
			const trace = currentRequest(state)?.trace;
			return trace ? { ...trace } : {};
		},
		on(event, handler) {
			if (!staging("on")) return;
			if (typeof handler !== "function") throw new TypeError(`nu.on("${event}"): the handler must be a function`);
			if (!HOOKS.includes(event)) {
				const key = `nu-event:${ext.path}:${event}`;
				if (state.reported.has(key)) return;
				state.reported.add(key);
				const message = `${where}: nu.on("${event}"): Nu has no such hook (${HOOKS.join(", ")}); the handler never runs`;
				diagnostic(state, "nu.event_unknown", message, String(event));
				return;
			}
			ext.staged.handlers.push({ event, handler });
		},
		registerWatcher(watcher) {
			if (!staging("registerWatcher")) return;
			if (!watcher || typeof watcher.start !== "function") {
				const message = `registerWatcher${named(watcher)} (${where}): a watcher needs start(trigger); it is not run`;
				diagnostic(state, "nu.unsupported_api", message, "registerWatcher");
				return;
			}
			ext.staged.watchers.push({ watcher, name: watcher.name ?? watcher.id ?? "watcher" });
		},
	};
	for (const [method, why] of Object.entries(UNSUPPORTED)) {
		api[method] = (value) => {
			if (!staging(method)) return;
			diagnostic(state, "nu.unsupported_api", `${method}${named(value)} (${where}) is not supported: ${why}`, method);
		};
	}
	return api;
}
