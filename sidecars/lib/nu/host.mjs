// The Nu host: loads a Nu package's extension modules ("export default (nu) => …") and serves
// their hooks and watchers (docs/nu.md, "Extensions"). Nu extensions register no tools or
// commands: a Nu package's tools run per call in their own sandboxed process (nu-tool.mjs),
// and its slash commands are declarative (client.commands), both run by the gateway.
//
// Package spec fields: {id, root, entries, namespace, configFile, configKeys, secrets}.
// Secrets arrive in this process's environment (never in argv); `nu.secret(name)` reads the
// listed ones.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { diagnostic } from "../diagnostics.mjs";
import { log } from "../stdio.mjs";
import { createApi } from "./api.mjs";
import { onEvent, subscribedEvents } from "./events.mjs";
import { startWatchers, stopWatchers } from "./watchers.mjs";

const NATIVE = new Set([".js", ".mjs", ".cjs"]);
// Types for tools and extensions come from @rebuno/nu-types (sidecars/nu-types/); it has no
// runtime values, so a value import of it gets this empty module.
const TYPES_MODULE = new URL("./types.mjs", import.meta.url).pathname;
let jiti = null;

async function importModule(file) {
	if (NATIVE.has(path.extname(file))) return import(pathToFileURL(file).href);
	if (!jiti) {
		const { createJiti } = await import("jiti");
		jiti = createJiti(import.meta.url, { interopDefault: true, alias: { "@rebuno/nu-types": TYPES_MODULE } });
	}
	return jiti.import(file);
}

/** The package's settings: the keys it lists, from its config file (the gateway's own
 * `$gateway` settings are never handed to it). */
function readConfig(state, pkg) {
	let data = {};
	try {
		data = JSON.parse(fs.readFileSync(pkg.configFile, "utf8"));
	} catch (error) {
		if (error?.code !== "ENOENT") log(`${pkg.id}: settings ${pkg.configFile} unreadable: ${error.message}`);
	}
	const keys = new Set(pkg.configKeys ?? []);
	const own = data && typeof data === "object" && !Array.isArray(data) ? data : {};
	return Object.fromEntries(Object.entries(own).filter(([key]) => keys.has(key)));
}

async function loadExtension(state, nu, pkg, file, config) {
	const relative = path.relative(pkg.root, file) || file;
	const where = `${pkg.id} (${relative})`;
	const ext = { pkg, path: file, relative, config, staged: { handlers: [], watchers: [] }, open: true };
	let module;
	try {
		module = await importModule(file);
	} catch (error) {
		return diagnostic(state, "nu.load_failed", `${where}: cannot be imported: ${error?.stack ?? error}`, relative);
	}
	let factory = module?.default;
	while (factory && typeof factory === "object" && "default" in factory) factory = factory.default;
	if (typeof factory !== "function") {
		return diagnostic(state, "nu.load_failed", `${where}: its default export is not a function (export default (nu) => …)`, relative);
	}
	try {
		await factory(createApi(state, ext));
	} catch (error) {
		return diagnostic(state, "nu.load_failed", `${where}: its default export threw; nothing of it runs: ${error?.stack ?? error}`, relative);
	} finally {
		ext.open = false;
	}
	for (const handler of ext.staged.handlers) nu.handlers.push({ ...handler, where });
	for (const watcher of ext.staged.watchers) nu.watchers.push({ ...watcher, where });
	nu.extensions.push(ext);
}

export async function loadHost(state, packages) {
	const nu = { extensions: [], handlers: [], watchers: [], turns: 0 };
	for (const pkg of packages) {
		const config = readConfig(state, pkg);
		for (const entry of pkg.entries ?? []) await loadExtension(state, nu, pkg, entry, config);
	}
	state.shutdownHooks.push(() => stopWatchers(nu));
	let events = null; // computed once the host's features are known (at register)
	return {
		ecosystem: "nu",
		tools: () => [],
		commands: () => [],
		events: () => (events ??= subscribedEvents(state, nu)),
		callTool: (name) => ({ content: `Tool ${name} not found`, is_error: true }),
		runCommand: (name) => ({ message: `Unknown command /${name}` }),
		onEvent: (event, payload, _signal, message) => onEvent(nu, event, payload, message),
		registered: () => startWatchers(state, nu),
	};
}
