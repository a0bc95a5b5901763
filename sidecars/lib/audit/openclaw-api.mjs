// The OpenClaw host's `createApi` in recording mode (record.mjs): the real api, each of its
// methods wrapped to record the call (with the plugin's caller and what it names), `runtime`
// namespaces too; reading a method the host leaves undefined (`typeof api.registerX`) is
// recorded as a probe. The object stays a plain object with own enumerable methods (plugins
// spread it), behind a proxy that only observes reads.

import { createApi as realCreateApi } from "../openclaw/api.mjs";
import { callerSource, recordCall, recordProbe, recordRegistration } from "./record.mjs";

export * from "../openclaw/api.mjs";

const named = (value) => value?.id ?? value?.name ?? value?.plugin?.id;
const KINDS = {
	registerTool: ["tool", (tool, opts) => opts?.names ?? opts?.name ?? (typeof tool === "function" ? null : tool?.name)],
	registerCommand: ["command", (definition) => definition?.name],
	on: ["hook", (name) => name],
	registerHook: ["api", (events) => (Array.isArray(events) ? events.join(", ") : events)],
	registerCli: ["cli_command", (_registrar, opts) => (opts?.descriptors ?? []).map((d) => d?.name).concat(opts?.commands ?? []).filter(Boolean).join(", ") || null],
	registerService: ["service", named],
	registerGatewayMethod: ["gateway_method", (method) => method],
	registerHttpRoute: ["http_route", (route) => route?.path],
	registerHttpHandler: ["http_route", () => null],
	registerChannel: ["channel", (registration) => named(registration?.plugin ?? registration)],
	registerProvider: ["llm_provider", named],
	registerMemoryCapability: ["memory", () => "registerMemoryCapability"],
	registerMemoryPromptSupplement: ["memory", () => "registerMemoryPromptSupplement"],
	registerMemoryPromptPreparation: ["memory", () => "registerMemoryPromptPreparation"],
	registerMemoryCorpusSupplement: ["memory", () => "registerMemoryCorpusSupplement"],
};
const NOT_PROBES = new Set(["then", "toJSON", "constructor", "inspect", "asymmetricMatch", "nodeType", "$$typeof"]);

function recordUse(plugin, method, args) {
	const source = callerSource(plugin.rootDir);
	recordCall(plugin.packageId, method, source);
	const [kind, name] = KINDS[method] ?? (/^register[A-Z]/.test(method) ? ["llm_provider", named] : [null, null]);
	if (!kind) return;
	let names = null;
	try {
		names = name(...args);
	} catch {
		names = null;
	}
	for (const one of Array.isArray(names) ? names : [names]) {
		const unnamed = one === null || one === undefined || one === "";
		recordRegistration({
			package: plugin.packageId,
			kind: unnamed ? "api" : kind,
			name: unnamed ? method : String(one),
			api: method,
			source,
		});
	}
}

function wrapNamespace(plugin, object, prefix, depth) {
	if (!object || typeof object !== "object" || depth > 2) return object;
	const copy = {};
	for (const [key, value] of Object.entries(object)) {
		const api = `${prefix}.${key}`;
		if (typeof value === "function") {
			copy[key] = function (...args) {
				recordCall(plugin.packageId, api, callerSource(plugin.rootDir));
				return value.apply(this === copy ? object : this, args);
			};
		} else {
			copy[key] = wrapNamespace(plugin, value, api, depth + 1);
		}
	}
	return copy;
}

export function createApi(state, oc, plugin) {
	const { api, close } = realCreateApi(state, oc, plugin);
	const recording = {};
	for (const [key, value] of Object.entries(api)) {
		if (typeof value === "function") {
			recording[key] = (...args) => {
				recordUse(plugin, key, args);
				return value(...args);
			};
		} else if (key === "runtime") {
			recording[key] = wrapNamespace(plugin, value, "runtime", 0);
		} else {
			recording[key] = value;
		}
	}
	const observed = new Proxy(recording, {
		get(target, key, receiver) {
			if (typeof key === "string" && !(key in target) && /^[a-z][A-Za-z]+$/.test(key) && !NOT_PROBES.has(key)) {
				recordProbe(plugin.packageId, key, callerSource(plugin.rootDir));
			}
			return Reflect.get(target, key, receiver);
		},
	});
	return { api: observed, close };
}
