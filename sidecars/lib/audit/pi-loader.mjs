// Pi's loader as the Pi host sees it in recording mode (record.mjs): the real
// `loadExtensions`, `loadExtensionsCached` and `createExtensionRuntime`, plus a record of every `pi.*` call (pi's API
// asks `runtime.assertActive()` first in every method, so the recording runtime sees each
// call and its caller) and of what each extension registered, attributed to its file.

import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { callerSource, recordCall, recordRegistration } from "./record.mjs";

const piDist = path.dirname(fileURLToPath(import.meta.resolve("@earendil-works/pi-coding-agent")));
const loaderFile = path.join(piDist, "core/extensions/loader.js");
const real = await import(pathToFileURL(loaderFile).href);

// The rest of the loader's exports, unchanged (the Pi host may use more of them).
export const { clearExtensionCache, loadExtensionFromFactory, discoverAndLoadExtensions } = real;

// Which package is loading now (the host loads its packages one after another).
let loading = null;

/** The name of the `pi` API method that called `assertActive` (a frame in pi's loader). */
function apiMethod() {
	const saved = Error.prepareStackTrace;
	let sites = [];
	try {
		Error.prepareStackTrace = (_error, frames) => frames;
		const holder = {};
		Error.captureStackTrace(holder, apiMethod);
		sites = holder.stack ?? [];
	} finally {
		Error.prepareStackTrace = saved;
	}
	for (const site of sites) {
		let file = site.getFileName?.() ?? "";
		if (file.startsWith("file://")) file = fileURLToPath(file);
		const name = site.getFunctionName?.() ?? site.getMethodName?.();
		if (file === loaderFile && name && name !== "assertActive") return name;
	}
	return null;
}

export function createExtensionRuntime() {
	const runtime = real.createExtensionRuntime();
	const assertActive = runtime.assertActive;
	runtime.assertActive = () => {
		const method = apiMethod();
		const source = method && loading ? callerSource(loading.root) : null;
		// No frame of the package: pi calling itself (its transactional commit), not an API call.
		if (source) recordCall(loading.id, method, source);
		return assertActive();
	};
	return runtime;
}

/** An event bus that renames the call just recorded: pi's `events.on` / `events.emit` are
 * methods named `on` / `emit` too. */
function recordingBus(bus) {
	const relabel = (method, channel) => {
		if (loading) recordCall(loading.id, `events.${method}`, callerSource(loading.root));
		return channel;
	};
	return {
		...bus,
		on: (channel, handler) => bus.on(relabel("on", channel), handler),
		emit: (channel, data) => bus.emit(relabel("emit", channel), data),
	};
}

const KINDS = [
	["tools", "tool", "registerTool"],
	["commands", "command", "registerCommand"],
	["handlers", "hook", "on"],
	["flags", "flag", "registerFlag"],
	["shortcuts", "shortcut", "registerShortcut"],
	["messageRenderers", "renderer", "registerMessageRenderer"],
	["entryRenderers", "renderer", "registerEntryRenderer"],
];

function recordExtension(pkg, ext) {
	const source = path.relative(pkg.root, ext.path) || ext.path;
	for (const [field, kind, api] of KINDS) {
		for (const name of ext[field]?.keys?.() ?? []) recordRegistration({ package: pkg.id, kind, name, api, source });
	}
	if (ext.toolRenderers?.length) recordRegistration({ package: pkg.id, kind: "renderer", name: "registerToolRenderer", api: "registerToolRenderer", source });
	if (ext.markdownTransformer) recordRegistration({ package: pkg.id, kind: "renderer", name: "registerMarkdownTransformer", api: "registerMarkdownTransformer", source });
}

function recordRuntime(pkg, runtime, seen) {
	const lists = [
		["pendingProviderRegistrations", "llm_provider", "registerProvider", (r) => r.name],
		["pendingNativeProviderRegistrations", "llm_provider", "registerProvider", (r) => r.provider?.id],
		["pendingVirtualModelRegistrations", "llm_provider", "registerVirtualModel", (r) => `${r.definition?.provider}/${r.definition?.id}`],
	];
	for (const [field, kind, api, name] of lists) {
		const items = runtime[field] ?? [];
		for (const item of items.slice(seen[field] ?? 0)) {
			const where = item.extensionPath ? path.relative(pkg.root, item.extensionPath) : null;
			recordRegistration({ package: pkg.id, kind, name: name(item), api, source: where });
		}
		seen[field] = items.length;
	}
	const servers = runtime.mcpServers?.list?.() ?? [];
	for (const server of servers.slice(seen.mcp ?? 0)) {
		recordRegistration({ package: pkg.id, kind: "mcp_server", name: server.name, api: "registerMcpServer", source: null });
	}
	seen.mcp = servers.length;
}

const seenByRuntime = new WeakMap();

export function loadExtensions(paths, cwd, eventBus, runtime) {
	return recorded(real.loadExtensions, paths, cwd, eventBus, runtime);
}

export function loadExtensionsCached(paths, cwd, eventBus, runtime) {
	return recorded(real.loadExtensionsCached, paths, cwd, eventBus, runtime);
}

async function recorded(load, paths, cwd, eventBus, runtime) {
	const root = commonRoot(paths);
	loading = { id: packageOf(paths), root };
	try {
		const result = await load(paths, cwd, recordingBus(eventBus), runtime);
		for (const ext of result.extensions) recordExtension(loading, ext);
		if (!seenByRuntime.has(runtime)) seenByRuntime.set(runtime, {});
		recordRuntime(loading, runtime, seenByRuntime.get(runtime));
		return result;
	} finally {
		loading = null;
	}
}

// The host passes only entry paths; the spec in the argument names each package's root and
// entries, so the package of a set of paths is looked up there.
let specPackages = null;
function packages() {
	if (specPackages) return specPackages;
	try {
		specPackages = JSON.parse(process.argv[2] ?? "{}").packages ?? [];
	} catch {
		specPackages = [];
	}
	return specPackages;
}

function packageOf(paths) {
	const found = packages().find((pkg) => Array.isArray(pkg.entries) && pkg.entries.length === paths.length && pkg.entries.every((e, i) => e === paths[i]));
	return found?.id ?? "(package)";
}

function commonRoot(paths) {
	const found = packages().find((pkg) => Array.isArray(pkg.entries) && pkg.entries.every((e, i) => e === paths[i]));
	return found?.root ?? path.dirname(paths[0] ?? ".");
}
