#!/usr/bin/env node
// Extension Gateway — Node sidecar for Pi packages.
//
// A nimlet-protocol extension (JSON lines on stdin/stdout) that hosts Pi extension modules
// with pi's own loader (`loadExtensions` from the real @earendil-works/pi-coding-agent, so
// pi's alias map for both scopes and both TypeBox names, jiti, the transactional load and
// pi's error texts all come from upstream). See docs/pi.md.
//
// Usage: node pi-sidecar.mjs '<json spec>'
//   spec = {packages: [{id, root, entries: [absolute paths]}], agentDir?}
//
// stdout belongs to the protocol. Plugin writes to stdout (console.log, console.info,
// process.stdout.write) are captured at startup and sent to stderr (the gateway's log);
// only this file writes protocol lines, through the original write function.

import { AsyncLocalStorage } from "node:async_hooks";
import { registerHooks } from "node:module";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

// ------------------------------------------------------------------ stdout capture
const protocolWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, encoding, callback) => process.stderr.write(chunk, encoding, callback);
for (const method of ["log", "info", "debug"]) {
	console[method] = (...args) => console.error(...args);
}
const send = (message) => protocolWrite(`${JSON.stringify(message, jsonSafe)}\n`);
function jsonSafe(_key, value) {
	if (typeof value === "bigint") return value.toString();
	if (typeof value === "function" || typeof value === "symbol") return undefined;
	return value;
}
const log = (...args) => process.stderr.write(`[pi-sidecar] ${args.join(" ")}\n`);

// ------------------------------------------------------------------ spec and pi modules
const spec = JSON.parse(process.argv[2] ?? "{}");
const piIndex = fileURLToPath(import.meta.resolve("@earendil-works/pi-coding-agent"));
// The package's exports map only exposes its index; the loader module is imported by file
// URL so `loadExtensions` (explicit paths, no auto-discovery of .pi/extensions) is reachable.
const piDist = path.dirname(piIndex);
const loaderUrl = pathToFileURL(path.join(piDist, "core/extensions/loader.js")).href;
const eventBusUrl = pathToFileURL(path.join(piDist, "core/event-bus.js")).href;
// pi's loader imports `../exec.js` for `pi.exec()`; that one import is redirected to
// ./pi-exec.mjs, which asks the host (host.request `exec`) when it was offered.
const execShim = pathToFileURL(path.join(path.dirname(fileURLToPath(import.meta.url)), "pi-exec.mjs")).href;
registerHooks({
	resolve(specifier, context, nextResolve) {
		if (specifier === "../exec.js" && context.parentURL === loaderUrl) {
			return { url: execShim, shortCircuit: true };
		}
		return nextResolve(specifier, context);
	},
});
globalThis.__gatewayExec = async (command, args, cwd, options) => {
	if (!gatewayEnabled("host.request")) return undefined;
	const result = await hostRequest("exec", {
		command: String(command),
		args: (args ?? []).map(String),
		cwd: cwd ?? null,
		timeout: options?.timeout ?? null,
	});
	if (result === undefined) throw new Error(`exec ${command}: refused or failed on the host (see its log)`);
	return { stdout: "", stderr: "", code: 1, killed: false, truncated: false, ...result };
};

// ------------------------------------------------------------------ state
const state = {
	initialize: null,
	features: new Set(),
	extensions: [], // {ext, packageId}
	tools: new Map(), // name -> {definition, packageId, extPath}
	commands: new Map(), // invocation name -> {command, packageId}
	activeTools: null, // Set of names or null (= all)
	diagnostics: [],
	pending: new Map(), // request id -> AbortController
	uiWaiters: new Map(), // ui_request id -> resolve
	sessionStarted: false,
	turnIndex: 0,
	entries: [], // session entries seen by this process (appendEntry), for sessionManager
	sessionName: undefined,
	registered: false,
};
const requestContext = new AsyncLocalStorage();
let uiCounter = 0;

function diagnostic(code, message, contribution) {
	const item = { code, message };
	if (contribution) item.contribution = contribution;
	state.diagnostics.push(item);
	log(`${code}: ${message}`);
}

function unsupported(api, where) {
	diagnostic("pi.unsupported_api", `${api} is not supported by a headless host${where ? ` (${where})` : ""}`, api);
}

// ------------------------------------------------------------------ host side effects
function update(fields) {
	send({ type: "update", ...fields });
}

function gatewayEnabled(feature) {
	return state.features.has(feature);
}

// host.request (negotiated): ask the host for something during a call.
const hostWaiters = new Map();
let hostCounter = 0;
async function hostRequest(method, params = {}) {
	if (!gatewayEnabled("host.request")) return undefined;
	const id = `pi-host-${++hostCounter}`;
	const reply = new Promise((resolve) => hostWaiters.set(id, resolve));
	send({ type: "host_request", id, method, params });
	const answer = await reply;
	if (answer.error) {
		log(`host_request ${method} failed: ${answer.error}`);
		return undefined;
	}
	return answer.result;
}

// The host transcript as Pi session entries (sessionManager is synchronous in Pi, so the
// transcript is fetched before commands and session events, and kept).
function toPiEntry(entry, index) {
	const base = { id: `h${index + 1}`, parentId: index ? `h${index}` : null, timestamp: entry.timestamp ?? "" };
	if (entry.type === "extension" && entry.data && typeof entry.data === "object" && "customType" in entry.data) {
		return { ...base, type: "custom", customType: entry.data.customType, data: entry.data.data };
	}
	if (entry.type === "user" || entry.type === "assistant") {
		return { ...base, type: "message", message: { role: entry.role ?? entry.type, content: entry.content } };
	}
	if (entry.type === "tool_result") {
		return { ...base, type: "message", message: { role: "toolResult", content: [{ type: "text", text: entry.output ?? "" }], isError: Boolean(entry.is_error) } };
	}
	return { ...base, ...entry };
}

async function refreshEntries() {
	const entries = await hostRequest("session.entries");
	if (Array.isArray(entries)) state.hostEntries = entries.map(toPiEntry);
}

async function askQuestion(prompt, options) {
	const id = `pi-ui-${++uiCounter}`;
	const answer = new Promise((resolve) => state.uiWaiters.set(id, resolve));
	send({ type: "ui_request", id, method: "question", prompt, options });
	return answer;
}

function makeUi(signal) {
	const ui = {
		async select(title, options, opts) {
			const labels = (options ?? []).map((o) => (typeof o === "string" ? o : String(o?.label ?? o?.value ?? o)));
			const reply = await askQuestion(String(title), labels);
			if (reply.cancelled || !reply.answer) return undefined;
			const index = labels.indexOf(reply.answer);
			return index >= 0 ? options[index] : reply.answer;
		},
		async confirm(title, message) {
			const prompt = message ? `${title}\n${message}` : String(title);
			const reply = await askQuestion(prompt, ["Yes", "No"]);
			return !reply.cancelled && reply.answer === "Yes";
		},
		async input(title, placeholder) {
			// Free text needs host.request (nimlet v1 only asks multiple-choice questions).
			const reply = await hostRequest("ui.input", { prompt: String(title), placeholder: placeholder ?? "" });
			return reply && !reply.cancelled && typeof reply.value === "string" ? reply.value : undefined;
		},
		async editor(title, prefill) {
			const reply = await hostRequest("ui.editor", { prompt: String(title), prefill: prefill ?? "" });
			return reply && !reply.cancelled && typeof reply.value === "string" ? reply.value : undefined;
		},
		notify(message, level = "info") {
			update({ notification: { level: String(level), message: String(message) } });
		},
		setStatus(key, text) {
			update({ status: { key: String(key), text: text == null ? "" : String(text) } });
		},
		setWidget(key, content, options) {
			if (content === undefined || Array.isArray(content)) {
				update({
					widget: {
						key: String(key),
						lines: (content ?? []).map(String),
						placement: String(options?.placement ?? ""),
					},
				});
			} else {
				log(`ui.setWidget(${key}) with a component factory: TUI only, ignored`);
			}
		},
		setTitle() {},
		setEditorText() {},
		getEditorText: () => "",
		pasteToEditor() {},
		custom: async () => undefined,
		onTerminalInput: () => () => {},
		setWorkingMessage() {},
		setWorkingVisible() {},
		setWorkingIndicator() {},
		setHiddenThinkingLabel() {},
		setFooter() {},
		setHeader() {},
		addAutocompleteProvider() {},
		setEditorComponent() {},
		getEditorComponent: () => undefined,
		getAllThemes: () => [],
		getTheme: () => undefined,
		setTheme: () => ({ success: false, error: "UI not available" }),
		getToolsExpanded: () => false,
		setToolsExpanded() {},
		theme: undefined,
	};
	return ui;
}

function sessionManager() {
	const cwd = state.initialize?.workspace ?? process.cwd();
	const sessionId = state.initialize?.session_id ?? "";
	const entries = () => (state.hostEntries ? state.hostEntries.slice() : state.entries.slice());
	return {
		getCwd: () => cwd,
		getSessionDir: () => undefined,
		getSessionId: () => sessionId,
		getSessionFile: () => undefined,
		getLeafId: () => entries().at(-1)?.id ?? null,
		getLeafEntry: () => entries().at(-1),
		getEntry: (id) => entries().find((e) => e.id === id),
		getLabel: () => undefined,
		getBranch: () => entries(),
		getEntries: () => entries(),
		getTree: () => [],
		getHeader: () => ({ type: "session", id: sessionId, cwd }),
		getSessionName: () => state.sessionName,
		buildContextEntries: () => entries(),
	};
}

function makeContext(signal, forCommand) {
	const cwd = state.initialize?.workspace ?? process.cwd();
	const ctx = {
		ui: makeUi(signal),
		hasUI: true,
		mode: "rpc",
		cwd,
		sessionManager: sessionManager(),
		modelRegistry: { getAll: () => [], getAvailable: () => [], find: () => undefined },
		model: undefined,
		scopedModels: [],
		thinkingLevel: "off",
		signal,
		isIdle: () => true,
		abort: () => {},
		hasPendingMessages: () => false,
		shutdown: () => hostAction("shutdown"),
		getContextUsage: () => ({ tokens: null, contextWindow: 0, percent: null }),
		compact: () => hostAction("compact"),
		getSystemPrompt: () => "",
		isProjectTrusted: () => true,
	};
	if (forCommand) {
		Object.assign(ctx, {
			waitForIdle: async () => {},
			newSession: async () => {
				hostAction("new_session");
				return { cancelled: false };
			},
			fork: async () => {
				unsupported("ctx.fork", "command context");
				return { cancelled: true };
			},
			navigateTree: async () => {
				unsupported("ctx.navigateTree", "command context");
				return { cancelled: true };
			},
			switchSession: async () => {
				unsupported("ctx.switchSession", "command context");
				return { cancelled: true };
			},
			reload: async () => hostAction("reload"),
			getSystemPromptOptions: () => ({}),
		});
	}
	return ctx;
}

// Actions the host performs (new session, shutdown, reload, compact). Inside a request they
// ride on its response (`gateway.actions`, feature `host.actions`); the transcript line is
// plain v1 so any host shows it.
function hostAction(action) {
	const current = requestContext.getStore();
	if (current) {
		current.actions.push(action);
		current.messages.push(`[pi] ${action.replace("_", " ")} requested`);
	} else {
		update({ notification: { level: "info", message: `[pi] ${action.replace("_", " ")} requested` } });
	}
}

// ------------------------------------------------------------------ runtime binding
function contentText(content) {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return content == null ? "" : JSON.stringify(content);
	return content
		.map((part) => (part?.type === "text" ? part.text : part?.type === "image" ? `[image ${part.mimeType ?? ""}]` : ""))
		.filter(Boolean)
		.join("\n");
}

function bindRuntime(runtime) {
	runtime.sendMessage = (message, options) => {
		const text = contentText(message?.content);
		const current = requestContext.getStore();
		if (current?.kind === "command") current.messages.push(text);
		else update({ notification: { level: "info", message: text } });
	};
	runtime.sendUserMessage = (content) => {
		const text = contentText(content);
		const current = requestContext.getStore();
		if (current?.kind === "command") current.prompt = text;
		else update({ notification: { level: "info", message: `[pi] user message requested: ${text}` } });
	};
	runtime.appendEntry = (customType, data) => {
		const entry = { type: "custom", customType, data, id: `e${state.entries.length + 1}`, timestamp: new Date().toISOString() };
		state.entries.push(entry);
		state.hostEntries?.push({ ...entry, id: `h${state.hostEntries.length + 1}` });
		update({ entry: { customType, data: data ?? null } });
	};
	runtime.setSessionName = (name) => {
		state.sessionName = name;
	};
	runtime.getSessionName = () => state.sessionName;
	runtime.setLabel = () => {};
	runtime.getActiveTools = () => [...state.tools.keys()].filter((name) => isActive(name));
	runtime.getAllTools = () =>
		[...state.tools.entries()].map(([name, t]) => ({
			name,
			description: t.definition.description ?? "",
			parameters: t.definition.parameters,
			sourceInfo: t.sourceInfo,
		}));
	runtime.getSettings = () => ({});
	runtime.setActiveTools = (names) => {
		state.activeTools = new Set(names);
		sendRegistrationDelta();
	};
	runtime.refreshTools = () => {
		if (state.registered) collectTools(true);
	};
	runtime.getCommands = () =>
		[...state.commands.entries()].map(([name, c]) => ({
			name,
			description: c.command.description,
			source: "extension",
			sourceInfo: c.command.sourceInfo,
		}));
	runtime.setModel = async () => {
		log("setModel: model control is not available headless");
		return false;
	};
	runtime.getThinkingLevel = () => "off";
	runtime.setThinkingLevel = () => log("setThinkingLevel: thinking control is not available headless");
	runtime.createContext = () => makeContext(undefined, false);
	runtime.reportError = (error) => log(`extension error ${JSON.stringify(error)}`);
}

function isActive(name) {
	return state.activeTools === null || state.activeTools.has(name);
}

// ------------------------------------------------------------------ registration
function collectTools(late) {
	const added = [];
	for (const { ext, packageId } of state.extensions) {
		for (const [name, tool] of ext.tools) {
			const owner = state.tools.get(name);
			if (owner && owner.ext !== ext) {
				if (!owner.conflictReported?.has(ext.path)) {
					owner.conflictReported = owner.conflictReported ?? new Set();
					owner.conflictReported.add(ext.path);
					diagnostic("pi.tool_conflict", `Tool "${name}" conflicts with ${owner.extPath}; the first registration wins`, name);
				}
				continue;
			}
			const isNew = !owner;
			state.tools.set(name, { ...tool, ext, packageId, extPath: owner?.extPath ?? ext.path });
			if (isNew) added.push(name);
			if (tool.definition.renderCall || tool.definition.renderResult) {
				if (!late) unsupported("tool renderCall/renderResult", `tool ${name}`);
			}
		}
	}
	if (late && added.length) sendRegistrationDelta();
	return added;
}

function collectCommands() {
	const all = [];
	const counts = new Map();
	for (const { ext, packageId } of state.extensions) {
		for (const command of ext.commands.values()) {
			all.push({ command, packageId });
			counts.set(command.name, (counts.get(command.name) ?? 0) + 1);
		}
	}
	const seen = new Map();
	const taken = new Set();
	for (const item of all) {
		const name = item.command.name;
		const occurrence = (seen.get(name) ?? 0) + 1;
		seen.set(name, occurrence);
		let invocation = counts.get(name) > 1 ? `${name}:${occurrence}` : name;
		let suffix = occurrence;
		while (taken.has(invocation)) invocation = `${name}:${++suffix}`;
		taken.add(invocation);
		if (invocation !== name) {
			diagnostic("pi.command_renamed", `command /${name} is registered more than once; this one is /${invocation}`, invocation);
		}
		state.commands.set(invocation, item);
	}
}

function toolSpec(name, tool) {
	const def = tool.definition;
	let schema = def.parameters ?? { type: "object", properties: {} };
	schema = JSON.parse(JSON.stringify(schema));
	const description = [def.description ?? def.label ?? name, def.promptSnippet].filter(Boolean).join("\n\n");
	return { name, description, input_schema: schema };
}

function registrationDelta() {
	return {
		tools: [...state.tools.entries()].filter(([name]) => isActive(name)).map(([name, t]) => toolSpec(name, t)),
		active: [...state.tools.keys()].filter((name) => isActive(name)),
	};
}

function sendRegistrationDelta() {
	if (!state.registered) return;
	if (gatewayEnabled("registration.update")) {
		update({ gateway: { registration: registrationDelta() } });
	} else {
		log("tools changed after register; the host did not negotiate registration.update");
	}
}

const NIMLET_EVENTS = {
	// nimlet (canonical) event -> pi events it drives, in pi's order
	tool_call: ["tool_execution_start", "tool_call"],
	tool_result: ["tool_result", "tool_execution_end"],
	turn_start: ["agent_start", "turn_start"],
	turn_end: ["turn_end", "agent_end"],
	session_start: ["session_start", "resources_discover"],
	session_end: ["session_shutdown"],
	session_before_compact: ["session_before_compact"],
	session_compact: ["session_compact"],
};
// Canonical events beyond nimlet's eight (negotiated `events.extended`, docs/protocol.md):
// used only when the host announced the feature; otherwise their Pi handlers stay unmapped.
const EXTENDED_EVENTS = {
	input: ["input"],
	before_agent_start: ["before_agent_start"],
	context: ["context"],
};
const PI_TO_NIMLET = new Map();
for (const [canonical, piEvents] of Object.entries(NIMLET_EVENTS)) {
	for (const piEvent of piEvents) PI_TO_NIMLET.set(piEvent, canonical);
}
const PI_TO_EXTENDED = new Map();
for (const [canonical, piEvents] of Object.entries(EXTENDED_EVENTS)) {
	for (const piEvent of piEvents) PI_TO_EXTENDED.set(piEvent, canonical);
}
function canonicalFor(piEvent) {
	const canonical = PI_TO_NIMLET.get(piEvent);
	if (canonical) return canonical;
	return gatewayEnabled("events.extended") ? PI_TO_EXTENDED.get(piEvent) : undefined;
}
const HEADLESS_EVENTS = new Set([
	"before_provider_headers",
	"before_provider_request",
	"after_provider_response",
	"provider_stream_event",
	"cache_warming_decision",
	"model_select",
	"thinking_level_select",
	"message_start",
	"message_update",
	"message_end",
	"ui_prompt_start",
	"ui_prompt_end",
	"user_bash",
	"mcp_servers_change",
	"project_trust",
	"session_before_tree",
	"session_tree",
	"session_before_switch",
	"session_before_fork",
	"session_compact_failed",
	"session_info_changed",
	"context_with_system",
	"agent_before_settle",
	"agent_settled",
]);

function subscribedEvents() {
	const events = new Set();
	for (const { ext, root } of state.extensions) {
		for (const piEvent of ext.handlers.keys()) {
			const canonical = canonicalFor(piEvent);
			if (canonical) events.add(canonical);
			else if (!state.reportedEvents?.has(piEvent)) {
				state.reportedEvents = state.reportedEvents ?? new Set();
				state.reportedEvents.add(piEvent);
				diagnostic(
					"pi.event_unmapped",
					`event "${piEvent}" (${path.relative(root, ext.path) || ext.path}) has no canonical mapping in this host; its handlers never run`,
					piEvent,
				);
			}
		}
	}
	// Subscribe to every canonical event any handler may need later (on() after load).
	return [...events];
}

function reportUnsupported() {
	for (const { ext, root } of state.extensions) {
		const where = path.relative(root, ext.path) || ext.path;
		for (const key of ext.shortcuts.keys()) unsupported("registerShortcut", `${where}: ${key}`);
		for (const key of ext.messageRenderers.keys()) unsupported("registerMessageRenderer", `${where}: ${key}`);
		for (const key of ext.entryRenderers?.keys?.() ?? []) unsupported("registerEntryRenderer", `${where}: ${key}`);
		if (ext.toolRenderers?.length) unsupported("registerToolRenderer", where);
		if (ext.markdownTransformer) unsupported("registerMarkdownTransformer", where);
	}
}

function reportRuntimeUnsupported(runtime) {
	for (const r of runtime.pendingProviderRegistrations ?? []) unsupported("registerProvider", `provider ${r.name}`);
	for (const r of runtime.pendingNativeProviderRegistrations ?? []) unsupported("registerProvider", `provider ${r.provider?.id}`);
	for (const r of runtime.pendingVirtualModelRegistrations ?? []) unsupported("registerVirtualModel", `${r.definition?.provider}/${r.definition?.id}`);
	for (const server of runtime.mcpServers?.list?.() ?? []) unsupported("registerMcpServer", `server ${server.name}`);
	// Later provider registrations are reported to stderr (register has been sent).
	runtime.registerProvider = (name) => log(`registerProvider(${name}) ignored: providers are not supported headless`);
	runtime.registerNativeProvider = (p) => log(`registerProvider(${p?.id}) ignored: providers are not supported headless`);
}

// ------------------------------------------------------------------ loading
async function load() {
	const { loadExtensions, createExtensionRuntime } = await import(loaderUrl);
	const { createEventBus } = await import(eventBusUrl);
	const cwd = process.cwd();
	const eventBus = createEventBus();
	const runtime = createExtensionRuntime();
	for (const pkg of spec.packages ?? []) {
		const result = await loadExtensions(pkg.entries, cwd, eventBus, runtime);
		for (const error of result.errors) {
			diagnostic("pi.load_failed", `${path.relative(pkg.root, error.path) || error.path}: ${error.error}`, path.relative(pkg.root, error.path));
		}
		for (const ext of result.extensions) state.extensions.push({ ext, packageId: pkg.id, root: pkg.root });
	}
	bindRuntime(runtime);
	collectTools(false);
	collectCommands();
	reportUnsupported();
	reportRuntimeUnsupported(runtime);
	return runtime;
}

// ------------------------------------------------------------------ dispatch
// `event` is the event object, or a function that builds a fresh one for each handler (for
// the events whose payload chains from handler to handler).
async function runHandlers(piEvent, event, ctx, each) {
	for (const { ext } of state.extensions) {
		for (const handler of [...(ext.handlers.get(piEvent) ?? [])]) {
			let result;
			try {
				result = await handler(typeof event === "function" ? event() : event, ctx);
			} catch (error) {
				if (piEvent === "tool_call") throw error; // pi: tool_call errors block the tool
				log(`handler for ${piEvent} in ${ext.path} failed: ${error?.stack ?? error}`);
				continue;
			}
			if (each && (await each(result)) === "stop") return;
		}
	}
}

async function handleEvent(message, signal) {
	const ctx = makeContext(signal, false);
	const payload = message.payload ?? {};
	const reply = {};
	switch (message.event) {
		case "tool_call": {
			const toolCallId = `call_${message.id}`;
			const input = structuredClone(payload.arguments ?? {});
			const before = JSON.stringify(input);
			await runHandlers("tool_execution_start", { type: "tool_execution_start", toolCallId, toolName: payload.tool, args: input }, ctx);
			const event = { type: "tool_call", toolCallId, toolName: payload.tool, input };
			try {
				await runHandlers("tool_call", event, ctx, (result) => {
					if (result?.block) {
						reply.allow = false;
						reply.reason = result.reason || "Tool execution was blocked";
						return "stop";
					}
				});
			} catch (error) {
				reply.allow = false;
				reply.reason = error?.message ?? String(error);
			}
			if (JSON.stringify(event.input) !== before) reply.arguments = event.input;
			break;
		}
		case "tool_result": {
			const toolCallId = `call_${message.id}`;
			const event = {
				type: "tool_result",
				toolCallId,
				toolName: payload.tool,
				input: payload.arguments ?? {},
				content: [{ type: "text", text: String(payload.output ?? "") }],
				details: undefined,
				isError: Boolean(payload.is_error),
			};
			const original = { text: contentText(event.content), isError: event.isError };
			await runHandlers("tool_result", event, ctx, (patch) => {
				if (!patch || typeof patch !== "object") return;
				for (const key of ["content", "details", "isError", "structuredContent", "usage"]) {
					if (patch[key] !== undefined) event[key] = patch[key];
				}
			});
			const text = contentText(event.content);
			if (text !== original.text) reply.output = text;
			if (event.isError !== original.isError) reply.is_error = event.isError;
			await runHandlers(
				"tool_execution_end",
				{ type: "tool_execution_end", toolCallId, toolName: payload.tool, args: event.input, result: { content: event.content, details: event.details }, isError: event.isError },
				ctx,
			);
			break;
		}
		case "turn_start":
			if (state.turnIndex === 0 || !state.inAgent) await runHandlers("agent_start", { type: "agent_start" }, ctx);
			state.inAgent = true;
			await runHandlers("turn_start", { type: "turn_start", turnIndex: state.turnIndex, timestamp: Date.now() }, ctx);
			break;
		case "turn_end":
			await runHandlers("turn_end", { type: "turn_end", turnIndex: state.turnIndex++, message: undefined, toolResults: [], interrupted: Boolean(payload.interrupted) }, ctx);
			await runHandlers("agent_end", { type: "agent_end", messages: [] }, ctx);
			state.inAgent = false;
			break;
		case "session_start": {
			await refreshEntries();
			const reason = payload.reason ?? (state.sessionStarted ? "new" : "startup");
			state.sessionStarted = true;
			await runHandlers("session_start", { type: "session_start", reason }, ctx);
			await runHandlers("resources_discover", { type: "resources_discover", cwd: ctx.cwd, reason: "startup" }, ctx);
			break;
		}
		case "session_end":
			// nimlet's session_end fires on exit and before a switch; without a reason from the
			// host, "quit" (the cleanup case) is assumed.
			await runHandlers("session_shutdown", { type: "session_shutdown", reason: payload.reason ?? "quit" }, ctx);
			break;
		case "session_before_compact": {
			const event = {
				type: "session_before_compact",
				preparation: { tokensBefore: payload.tokens_before ?? 0 },
				branchEntries: payload.entries ?? [],
				customInstructions: payload.instruction || undefined,
				signal,
				reason: "manual",
				willRetry: false,
			};
			await runHandlers("session_before_compact", event, ctx, (result) => {
				if (result?.cancel) {
					reply.allow = false;
					reply.reason = result.reason ?? "Compaction cancelled by extension";
					return "stop";
				}
				if (result?.compaction) {
					const c = result.compaction;
					const index = Number.isInteger(Number(c.firstKeptEntryId)) ? Number(c.firstKeptEntryId) : 0;
					reply.compaction = { summary: String(c.summary ?? ""), first_kept_index: index, details: c.details ?? null };
				}
			});
			break;
		}
		case "session_compact":
			await runHandlers(
				"session_compact",
				{
					type: "session_compact",
					compactionEntry: { type: "compaction", summary: payload.summary, firstKeptEntryId: String(payload.first_kept_index ?? 0), tokensBefore: payload.tokens_before },
					fromExtension: false,
					reason: "manual",
					willRetry: false,
				},
				ctx,
			);
			break;
		case "input": {
			// Pi's emitInput: "transform" chains the text, "handled" stops (later handlers are
			// not asked). The reply: action continue | transform (+ text) | handled.
			const original = String(payload.text ?? "");
			let text = original;
			let handled = false;
			await runHandlers("input", () => ({ type: "input", text, source: payload.source ?? "interactive" }), ctx, (result) => {
				if (result?.action === "handled") {
					handled = true;
					return "stop";
				}
				if (result?.action === "transform" && typeof result.text === "string") text = result.text;
			});
			if (handled) reply.action = "handled";
			else if (text !== original) Object.assign(reply, { action: "transform", text });
			else reply.action = "continue";
			break;
		}
		case "before_agent_start": {
			// Pi's emitBeforeAgentStart: every returned message is injected; a returned
			// systemPrompt replaces the prompt for this run, and the next handler sees it.
			let systemPrompt = String(payload.system_prompt ?? "");
			let replaced = false;
			const messages = [];
			ctx.getSystemPrompt = () => systemPrompt;
			const event = () => ({ type: "before_agent_start", prompt: String(payload.prompt ?? ""), systemPrompt, messageType: "user", systemPromptOptions: {} });
			await runHandlers("before_agent_start", event, ctx, (result) => {
				if (!result || typeof result !== "object") return;
				if (result.message) messages.push(canonicalMessage(result.message));
				if (typeof result.systemPrompt === "string") {
					systemPrompt = result.systemPrompt;
					replaced = true;
				}
			});
			if (replaced) reply.system_prompt = systemPrompt;
			if (messages.length) reply.messages = messages;
			break;
		}
		case "context": {
			// Pi's emitContext: a returned {messages} (or an in-place edit) replaces the
			// messages for this model call; the next handler sees the result.
			const original = JSON.stringify(payload.messages ?? []);
			let messages = structuredClone(payload.messages ?? []);
			let current;
			await runHandlers(
				"context",
				() => {
					current = { type: "context", messages: structuredClone(messages) };
					return current;
				},
				ctx,
				(result) => {
					if (Array.isArray(result?.messages)) messages = result.messages;
					else messages = current.messages; // in-place edits count, as in Pi
				},
			);
			if (JSON.stringify(messages) !== original) reply.messages = messages;
			break;
		}
		default:
			break;
	}
	return reply;
}

// A Pi custom message ({customType, content, display, details}) as a canonical message.
function canonicalMessage(message) {
	const out = { role: "custom", custom_type: String(message.customType ?? ""), content: message.content ?? "", display: message.display !== false };
	if (message.details !== undefined) out.details = message.details;
	return out;
}

async function handleTool(message, signal) {
	const entry = state.tools.get(message.name);
	if (!entry || !isActive(message.name)) {
		return { content: `Tool ${message.name} not found`, is_error: true };
	}
	const ctx = makeContext(signal, false);
	const requestId = message.id;
	const onUpdate = (partial) => {
		if (gatewayEnabled("tool.progress")) {
			update({ gateway: { progress: { id: requestId, content: partial?.content ?? [], details: partial?.details ?? null, text: contentText(partial?.content) } } });
		}
	};
	let result;
	try {
		result = await entry.definition.execute(`call_${requestId}`, message.arguments ?? {}, signal, onUpdate, ctx);
	} catch (error) {
		return { content: error?.message ?? String(error), is_error: true };
	}
	const content = Array.isArray(result?.content) ? result.content : typeof result === "string" ? [{ type: "text", text: result }] : [];
	const reply = { content: contentText(content), is_error: result?.isError === true };
	if (gatewayEnabled("tool.parts")) {
		reply.gateway = {
			parts: content.map((p) => (p?.type === "image" ? { type: "image", data: p.data, mime_type: p.mimeType } : { type: "text", text: String(p?.text ?? "") })),
			details: result?.details ?? null,
		};
	}
	return reply;
}

async function handleCommand(message, signal, current) {
	const entry = state.commands.get(message.name);
	if (!entry) return { message: `Unknown command /${message.name}` };
	await refreshEntries();
	const ctx = makeContext(signal, true);
	try {
		await entry.command.handler(message.arguments ?? "", ctx);
	} catch (error) {
		current.messages.push(`/${message.name} failed: ${error?.message ?? error}`);
	}
	const reply = {};
	if (current.messages.length) reply.message = current.messages.join("\n");
	if (current.prompt !== undefined) reply.prompt = current.prompt;
	return reply;
}

async function handleRequest(message) {
	const controller = new AbortController();
	state.pending.set(message.id, controller);
	const current = { kind: message.type, messages: [], actions: [], prompt: undefined };
	let reply;
	try {
		reply = await requestContext.run(current, async () => {
			if (message.type === "tool") return handleTool(message, controller.signal);
			if (message.type === "command") return handleCommand(message, controller.signal, current);
			return handleEvent(message, controller.signal);
		});
	} catch (error) {
		reply = message.type === "tool" ? { content: String(error?.message ?? error), is_error: true } : {};
		log(`request ${message.id} failed: ${error?.stack ?? error}`);
	} finally {
		state.pending.delete(message.id);
	}
	if (controller.signal.aborted) return; // the host gave up on it; no reply expected
	if (current.actions.length && gatewayEnabled("host.actions")) {
		reply.gateway = { ...(reply.gateway ?? {}), actions: current.actions };
	}
	send({ type: "response", id: message.id, ...reply });
}

// ------------------------------------------------------------------ main loop
const loaded = load().catch((error) => {
	diagnostic("pi.load_failed", `sidecar failed to load packages: ${error?.stack ?? error}`);
	return null;
});

let registerSent = false;
async function sendRegister() {
	await loaded;
	const tools = [...state.tools.entries()].filter(([name]) => isActive(name)).map(([name, t]) => toolSpec(name, t));
	const commands = [...state.commands.entries()].map(([name, c]) => ({ name, description: c.command.description ?? "" }));
	const register = { type: "register", commands, tools, events: subscribedEvents() };
	if (gatewayEnabled("register.diagnostics") && state.diagnostics.length) {
		register.gateway = { diagnostics: state.diagnostics };
	}
	send(register);
	state.registered = true;
}

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
input.on("line", (line) => {
	if (!line.trim()) return;
	let message;
	try {
		message = JSON.parse(line);
	} catch {
		log(`ignored a non-JSON line`);
		return;
	}
	switch (message.type) {
		case "initialize":
			state.initialize = message;
			state.features = new Set(message.gateway?.features ?? []);
			if (!registerSent) {
				registerSent = true;
				sendRegister();
			}
			break;
		case "tool":
		case "command":
		case "event":
			loaded.then(() => handleRequest(message));
			break;
		case "cancel":
			state.pending.get(message.id)?.abort(new Error("cancelled by the host"));
			break;
		case "host_response": {
			const resolve = hostWaiters.get(message.id);
			hostWaiters.delete(message.id);
			resolve?.({ result: message.result, error: message.error });
			break;
		}
		case "ui_response": {
			const resolve = state.uiWaiters.get(message.id);
			state.uiWaiters.delete(message.id);
			resolve?.({ answer: message.answer ?? "", cancelled: Boolean(message.cancelled) });
			break;
		}
		case "shutdown":
			shutdown();
			break;
		default:
			break;
	}
});
input.on("close", () => shutdown());

let stopping = false;
function shutdown() {
	if (stopping) return;
	stopping = true;
	for (const controller of state.pending.values()) controller.abort(new Error("sidecar shutting down"));
	for (const resolve of state.uiWaiters.values()) resolve({ answer: "", cancelled: true });
	for (const resolve of hostWaiters.values()) resolve({ error: "sidecar shutting down" });
	// Leave a moment for handlers to settle, then exit even if plugin timers keep the loop alive.
	setTimeout(() => process.exit(0), 50).unref?.();
	setTimeout(() => process.exit(0), 200);
}
