// The `api` a plugin's `register(api)` receives: a plain object with own enumerable methods,
// since real plugins spread it (`{...api, registerHook: wrapped}`). What this host runs:
// registerTool, registerCommand, on (a hook of an event a headless gateway never has is kept
// and never called, `openclaw.hook_never_emitted`). What it cannot, but plugins call unconditionally, records
// `openclaw.unsupported_api` naming the API and the id: CLI, services, gateway methods, HTTP
// routes, channels, providers, internal hooks, the capability and memory registrars. Every
// other OpenClaw method stays undefined, so feature detection works (a context-engine plugin
// falls back to hooks when `registerContextEngine` is absent). After `register` returns, every
// call is dropped with `openclaw.late_registration`.

import { diagnostic } from "../diagnostics.mjs";
import { stageCommand } from "./commands.mjs";
import { ABSENT_IN, firstWith, HOOKS, LEGACY } from "./hooks.mjs";
import { createRuntime, resolvePath } from "./runtime.mjs";
import { stageTool } from "./tools.mjs";

const named = (value) => value?.id ?? value?.name ?? value?.plugin?.id;

// Registrar -> how to name what was registered.
const RECORDED = {
	registerCli: (_registrar, opts) =>
		[...(opts?.descriptors ?? []).map((d) => d?.name), ...(opts?.commands ?? [])].filter(Boolean).join(", ") || "(cli)",
	registerService: named,
	registerGatewayMethod: (method) => method,
	registerHttpRoute: (route) => route?.path,
	registerHttpHandler: () => "(http handler)",
	registerChannel: (registration) => named(registration?.plugin ?? registration),
	registerProvider: named,
	registerMemoryCapability: () => "memory",
	registerMemoryPromptSupplement: () => "memory",
	registerMemoryPromptPreparation: () => "memory",
	registerMemoryCorpusSupplement: () => "memory",
};
for (const name of [
	"WorkerProvider", "ModelCatalogProvider", "EmbeddingProvider", "SpeechProvider", "RealtimeTranscriptionProvider",
	"RealtimeVoiceProvider", "MediaUnderstandingProvider", "TranscriptSourceProvider", "ImageGenerationProvider",
	"VideoGenerationProvider", "MusicGenerationProvider", "WebFetchProvider", "WebSearchProvider", "DecisionProvider",
	"CompactionProvider", "CliBackend", "MigrationProvider",
]) {
	RECORDED[`register${name}`] = named;
}
export const RECORDED_REGISTRARS = Object.freeze(Object.keys(RECORDED));

function recordHook(state, plugin, events, _handler, opts) {
	const list = (Array.isArray(events) ? events : [events]).map(String);
	const typed = list.filter((event) => Object.hasOwn(HOOKS, event) || Object.hasOwn(LEGACY, event));
	const note = typed.length ? `; typed hook ${typed.join(", ")} passed to registerHook is never invoked (as in OpenClaw), use api.on` : "";
	const what = `registerHook(${list.join(", ")})${opts?.name ? ` "${opts.name}"` : ""}`;
	diagnostic(state, "openclaw.unsupported_api", `${what} (plugin ${plugin.pluginId}): internal hook events do not run in a headless gateway${note}`, "registerHook");
}

export function stageHook(state, oc, plugin, name, handler, opts) {
	if (Object.hasOwn(LEGACY, name) && plugin.legacyHooks === "ignore") {
		// OpenClaw >= 2026.8 has no such typed hook and ignores it as unknown.
		const message = `plugin ${plugin.pluginId}: hook "${name}" was removed in OpenClaw 2026.8 and the plugin is loaded as a later OpenClaw, which ignores it; not registered (use "${LEGACY[name]}", or declare the OpenClaw the plugin was built for in package.json peerDependencies.openclaw)`;
		return diagnostic(state, "openclaw.legacy_hook_removed", message, String(name));
	}
	const { release, declared } = plugin.hookCatalog;
	if (ABSENT_IN[release].includes(name)) {
		// The OpenClaw the plugin is loaded as has no such typed hook and ignores it as unknown.
		const since = firstWith(name);
		const loadedAs = declared ? `it declares OpenClaw ${declared} and is loaded as ${release}, that band's release` : `it is loaded as ${release}`;
		const message = `plugin ${plugin.pluginId}: hook "${name}" is not a typed hook of OpenClaw ${release} (${loadedAs}), which ignores it as an unknown hook; not registered (OpenClaw ${since} has it: declare that version in package.json peerDependencies.openclaw if the plugin needs it)`;
		return diagnostic(state, "openclaw.hook_not_in_version", message, String(name));
	}
	const hookName = Object.hasOwn(LEGACY, name) ? LEGACY[name] : name;
	if (!Object.hasOwn(HOOKS, hookName)) {
		return diagnostic(state, "openclaw.hook_unknown", `plugin ${plugin.pluginId}: unknown typed hook "${name}" ignored (as in OpenClaw)`, String(name));
	}
	if (typeof handler !== "function") {
		return diagnostic(state, "openclaw.registration_invalid", `plugin ${plugin.pluginId}: on("${name}") without a handler function; skipped`, name);
	}
	if (hookName !== name) {
		diagnostic(state, "openclaw.legacy_api", `plugin ${plugin.pluginId}: legacy hook "${name}" (removed in OpenClaw 2026.8) runs as ${hookName}`, name);
	}
	const spec = HOOKS[hookName];
	if (spec.unmapped) {
		return diagnostic(state, "openclaw.hook_unmapped", `plugin ${plugin.pluginId}: hook "${name}" never runs: ${spec.unmapped}`, name);
	}
	if (spec.never) {
		// Accepted and kept as OpenClaw keeps it; no canonical event ever calls it.
		const message = `plugin ${plugin.pluginId}: hook "${name}" registered, as OpenClaw registers it, but a headless gateway never emits it: ${spec.never}`;
		diagnostic(state, "openclaw.hook_never_emitted", message, name);
	}
	if (spec.conv && !plugin.conversationAccess) {
		const grant = plugin.packageId.includes(":") ? "install the plugin to grant it" : `gateway permissions ${plugin.packageId} conversation_access`;
		const message = `plugin ${plugin.pluginId}: conversation hook "${name}" needs the conversation_access permission; not registered (${grant})`;
		return diagnostic(state, "openclaw.conversation_access", message, name);
	}
	plugin.staged.hooks.push({
		plugin,
		hookName,
		declaredName: name,
		handler,
		priority: Number.isFinite(opts?.priority) ? opts.priority : 0,
		timeoutMs: opts?.timeoutMs,
		matcher: Array.isArray(opts?.matcher) ? opts.matcher.map(String) : undefined,
		eligibleTriggers: Array.isArray(opts?.eligibleTriggers) ? opts.eligibleTriggers : undefined,
		order: oc.hookOrder++,
	});
}

/** The api for one plugin and a `close()` that ends its registration window. */
export function createApi(state, oc, plugin) {
	let open = true;
	const guard = (method, run) => (...args) => {
		if (open) return run(...args);
		const key = `late:${plugin.pluginId}:${method}`;
		if (!state.reported.has(key)) {
			state.reported.add(key);
			diagnostic(state, "openclaw.late_registration", `plugin ${plugin.pluginId}: api.${method} called after register returned; dropped`, method);
		}
		return undefined;
	};
	const api = {
		id: plugin.pluginId,
		name: plugin.name,
		version: plugin.version,
		description: plugin.description,
		source: plugin.source,
		rootDir: plugin.rootDir,
		registrationMode: "full",
		config: plugin.config,
		pluginConfig: plugin.pluginConfig,
		logger: plugin.logger,
		runtime: createRuntime(state, plugin),
		resolvePath: (input) => resolvePath(plugin, input),
		lifecycle: { signal: oc.lifecycle.signal, onDispose: (callback) => oc.disposers.push(callback) },
		registerTool: guard("registerTool", (tool, opts) => stageTool(state, plugin, tool, opts)),
		registerCommand: guard("registerCommand", (definition) => stageCommand(state, plugin, definition)),
		on: guard("on", (name, handler, opts) => stageHook(state, oc, plugin, name, handler, opts)),
		registerHook: guard("registerHook", (events, handler, opts) => recordHook(state, plugin, events, handler, opts)),
	};
	for (const [method, name] of Object.entries(RECORDED)) {
		if (method === "registerHook") continue;
		api[method] = guard(method, (...args) => {
			const what = name(...args);
			const message = `${method}${what ? `(${what})` : ""} (plugin ${plugin.pluginId}): not supported by a headless gateway; recorded, nothing runs`;
			diagnostic(state, "openclaw.unsupported_api", message, method);
		});
	}
	return {
		api,
		close() {
			open = false;
		},
	};
}
