// The Pi host: loads Pi extension modules with pi's own loader (`loadExtensions` from the
// real @earendil-works/pi-coding-agent, so pi's alias map for both scopes and both TypeBox
// names, jiti, the transactional load and pi's error texts all come from upstream) and serves
// their tools, commands and events. See docs/pi.md.

import path from "node:path";
import { errorReply, toolReply, contentText } from "../content.mjs";
import { diagnostic } from "../diagnostics.mjs";
import { currentRequest } from "../state.mjs";
import { hostExec, progress } from "../wire.mjs";
import { eventBusUrl, loaderUrl, piTheme, themeLoaded } from "./modules.mjs";
import { makeContext, refreshEntries } from "./context.mjs";
import { eventOwners } from "./dispatch.mjs";
import { onEvent } from "./events.mjs";
import { useCache } from "./jiti.mjs";
import { activeToolSpecs, collectCommands, collectTools, isActive, reportRuntimeUnsupported, reportUnsupported } from "./registry.mjs";
import { bindRuntime } from "./runtime.mjs";

function newPi() {
	return {
		extensions: [], // {ext, packageId, root}, in load order
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
	const [{ loadExtensions, createExtensionRuntime }, { createEventBus }] = await Promise.all([import(loaderUrl), import(eventBusUrl)]);
	const pi = newPi();
	const eventBus = createEventBus();
	const runtime = createExtensionRuntime();
	for (const pkg of packages) {
		if (typeof pkg.hostVersion === "string") pi.hostVersions.set(pkg.id, pkg.hostVersion);
		useCache(pkg.cache); // where this package's compiled modules are (compile.mjs)
		const result = await loadExtensions(pkg.entries, process.cwd(), eventBus, runtime);
		for (const error of result.errors) {
			const where = path.relative(pkg.root, error.path) || error.path;
			diagnostic(state, "pi.load_failed", `${where}: ${error.error}`, path.relative(pkg.root, error.path), pkg.id);
		}
		for (const ext of result.extensions) pi.extensions.push({ ext, packageId: pkg.id, root: pkg.root });
	}
	useCache(undefined);
	// Every pi mode initialises the theme at start; it is loaded only when something uses
	// it (an extension importing pi's theme, or ctx.ui.theme): most packages never do.
	if (themeLoaded()) piTheme();
	bindRuntime(state, pi, runtime);
	collectTools(state, pi, false);
	collectCommands(state, pi);
	reportUnsupported(state, pi);
	reportRuntimeUnsupported(state, pi, runtime);
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
		callTool: (name, message, signal) => callTool(state, pi, name, message, signal),
		runCommand: (name, message, signal, current) => runCommand(state, pi, name, message, signal, current),
		onEvent: (event, payload, signal, message) => onEvent(state, pi, event, payload, signal, message),
	};
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
	const ctx = makeContext(state, pi, signal, false);
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
	const ctx = makeContext(state, pi, signal, true);
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
