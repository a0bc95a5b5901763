// The Pi host: loads Pi extension modules with pi's own loader (`loadExtensionsCached` from
// the real @earendil-works/pi-coding-agent, so pi's alias map for both scopes and both
// TypeBox names, jiti, the transactional load and pi's error texts all come from upstream)
// and serves their tools, commands and events. Each package has a runtime of its own, so a
// session_end tears down only the packages it reached, and the next request makes their
// extensions again (renew.mjs). See docs/pi.md.

import { errorReply, toolReply, contentText } from "../content.mjs";
import { currentRequest } from "../state.mjs";
import { hostExec, progress } from "../wire.mjs";
import { eventBusUrl, loaderUrl, piTheme, themeLoaded } from "./modules.mjs";
import { contextFor, makeContext, refreshEntries } from "./context.mjs";
import { eventOwners } from "./dispatch.mjs";
import { onEvent } from "./events.mjs";
import { loadPackage, renewEnded, sessionEnded } from "./renew.mjs";
import { activeToolSpecs, collectCommands, collectTools, isActive, reportRuntimeUnsupported, reportUnsupported } from "./registry.mjs";
import { bindRuntime } from "./runtime.mjs";

function newPi() {
	return {
		extensions: [], // {ext, packageId, root, runtime}, in load order
		packages: new Map(), // package id -> {pkg, runtime, items, ended} (renew.mjs), spec order
		renewing: Promise.resolve(), // renewals, one at a time (renew.mjs)
		loader: null, // pi's loadExtensionsCached, createExtensionRuntime, and the event bus
		tools: new Map(), // name -> {definition, ext, packageId, extPath}
		commands: new Map(), // invocation name -> {command, packageId, source?: "prompt"}
		activeTools: null, // Set of names (setActiveTools), or null (= all but `inactive`)
		inactive: new Set(), // tools registered inactive (defaultActive: false, exposure; registry.mjs)
		hostVersions: new Map(), // package id -> the older Pi it targets (versions.mjs)
		conflicts: new Set(), // tool conflicts already reported
		reportedEvents: new Set(), // unmapped or translated Pi events already reported
		reportedErrors: new Set(), // handler failures already reported (dispatch.mjs)
		skills: [], // {name, description, path, package} from resources_discover (resources.mjs)
		loops: new Map(), // package id ("" = all) -> {started, turnIndex, turnOpen} (dispatch.mjs)
		session: { entries: [], hostEntries: null, name: undefined },
	};
}

export async function loadHost(state, packages) {
	const { setHostExec } = await import("./exec.mjs");
	setHostExec((command, args, cwd, options) => hostExec(state, command, args, cwd, options?.timeout));
	const [{ loadExtensionsCached, createExtensionRuntime }, { createEventBus }] = await Promise.all([import(loaderUrl), import(eventBusUrl)]);
	const pi = newPi();
	pi.loader = { loadExtensionsCached, createExtensionRuntime, eventBus: createEventBus() };
	for (const pkg of packages) {
		if (typeof pkg.hostVersion === "string") pi.hostVersions.set(pkg.id, pkg.hostVersion);
		const record = { pkg, runtime: undefined, items: [], ended: false };
		pi.packages.set(pkg.id, record);
		await loadPackage(state, pi, record);
	}
	// Every pi mode initialises the theme at start; it is loaded only when something uses
	// it (an extension importing pi's theme, or ctx.ui.theme): most packages never do.
	if (themeLoaded()) piTheme();
	for (const { runtime } of pi.packages.values()) bindRuntime(state, pi, runtime);
	collectTools(state, pi, false);
	collectCommands(state, pi);
	reportUnsupported(state, pi);
	for (const { runtime } of pi.packages.values()) reportRuntimeUnsupported(state, pi, runtime);
	return piHost(state, pi);
}

function piHost(state, pi) {
	let owners = null; // computed once the host's features are known (at register)
	const events = () => (owners ??= eventOwners(state, pi));
	return {
		ecosystem: "pi",
		tools: () => activeToolSpecs(state, pi),
		commands: () => [...pi.commands.entries()].map(([name, c]) => ({ name, description: c.command.description ?? "" })),
		events: () => Object.keys(events()),
		eventOwners: events,
		owner: (kind, name) => (kind === "tool" ? pi.tools : pi.commands).get(name)?.packageId,
		skills: () => pi.skills,
		flags: () => piFlags(pi),
		callTool: async (name, message, signal) => {
			await renewEnded(state, pi, owning(pi.tools, name));
			return callTool(state, pi, name, message, signal);
		},
		runCommand: async (name, message, signal, current) => {
			await renewEnded(state, pi, owning(pi.commands, name));
			return runCommand(state, pi, name, message, signal, current);
		},
		onEvent: async (event, payload, signal, message) => {
			const target = typeof message.gateway?.package === "string" ? [message.gateway.package] : undefined;
			await renewEnded(state, pi, target);
			const reply = await onEvent(state, pi, event, payload, signal, message);
			if (event === "session_end") sessionEnded(pi, target);
			return reply;
		},
	};
}

// The package a tool or command belongs to, as a list for renewEnded (none: no renewal).
function owning(table, name) {
	const owner = table.get(name)?.packageId;
	return owner === undefined ? [] : [owner];
}

// Pi's ExtensionRunner.getFlags: the first extension registering a flag name keeps it.
function piFlags(pi) {
	const flags = new Map();
	for (const { ext, packageId } of pi.extensions) {
		for (const [name, flag] of ext.flags ?? []) {
			if (flags.has(name)) continue;
			const item = { name, description: String(flag.description ?? ""), type: String(flag.type ?? "boolean"), package: packageId };
			if (flag.default !== undefined) item.default = flag.default;
			flags.set(name, item);
		}
	}
	return [...flags.values()];
}

async function callTool(state, pi, name, message, signal) {
	const entry = pi.tools.get(name);
	if (!entry || !isActive(pi, name)) return { content: `Tool ${name} not found`, is_error: true };
	const ctx = contextFor(makeContext(state, pi, signal, false), pi.packages.get(entry.packageId)?.runtime);
	const current = currentRequest(state);
	if (current) current.piPackage = entry.packageId;
	const onUpdate = (partial) => progress(state, message.id, partial?.content ?? [], partial?.details ?? null, contentText(partial?.content));
	try {
		const result = await entry.definition.execute(`call_${message.id}`, message.arguments ?? {}, signal, onUpdate, ctx);
		return toolReply(state, result);
	} catch (error) {
		return errorReply(error);
	}
}

async function runCommand(state, pi, name, message, signal, current) {
	const entry = pi.commands.get(name);
	if (!entry) return { message: `Unknown command /${name}` };
	await refreshEntries(state, pi);
	const ctx = contextFor(makeContext(state, pi, signal, true), pi.packages.get(entry.packageId)?.runtime);
	try {
		await entry.command.handler(message.arguments ?? "", ctx);
	} catch (error) {
		current.messages.push(`/${name} failed: ${error?.message ?? error}`);
	}
	const reply = {};
	if (current.messages.length) reply.message = current.messages.join("\n");
	if (current.prompt !== undefined) reply.prompt = current.prompt;
	return reply;
}
