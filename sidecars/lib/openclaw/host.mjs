// The OpenClaw host: loads OpenClaw plugins as OpenClaw's loader does (config validated with
// defaults before `register`, the entry imported, its `register` found and called once,
// synchronously, with a fresh `api`), keeps what each plugin registered only when its
// `register` succeeded (a failure rolls back everything it registered), and serves their
// tools, commands and typed hooks. See docs/openclaw.md.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { diagnostic } from "../diagnostics.mjs";
import { sendRegistrationDelta } from "../registration.mjs";
import { log } from "../stdio.mjs";
import { createApi } from "./api.mjs";
import { addCommands, runCommand } from "./commands.mjs";
import { openclawConfig, readConfigFile, validateConfig } from "./config.mjs";
import { onEvent, subscribedEvents } from "./events.mjs";
import { ABSENT_IN } from "./hooks.mjs";
import { importEntry, LOADERS, resolveExport } from "./loader.mjs";
import { addHook, observe } from "./run.mjs";
import { createLogger } from "./runtime.mjs";
import { installSdkResolver, sdkFailure, takeResolved, withdrawSubpaths } from "./sdk.mjs";
import { callTool, rebuildTools } from "./tools.mjs";

function newHost() {
	const lifecycle = new AbortController();
	return {
		plugins: [], // loaded plugins, in load order
		staticTools: [], // {plugin, tool, optional}
		factories: [], // {plugin, factory, names, optional}
		tools: new Map(), // name -> {plugin, tool, spec}: what is exposed now
		commands: new Map(), // name -> {plugin, name, definition}
		hooks: new Map(), // hook name -> registrations in run order
		hookOrder: 0,
		lifecycle,
		disposers: [],
	};
}

/** The OpenClaw release whose hook names apply (the plan's, by the declared band), and the
 * declared floor; the pinned 2026.9.6's when the plan names none this host knows. */
function hookCatalog(planned) {
	const release = Object.hasOwn(ABSENT_IN, planned?.release) ? planned.release : "2026.9.6";
	return { release, declared: typeof planned?.declared === "string" ? planned.declared : null };
}

/** One plugin record per entry (several entries: one plugin each, `<id>/<entry name>`). */
function pluginFor(pkg, entry, config, settings) {
	const many = pkg.entries.length > 1;
	const pluginId = many ? `${pkg.pluginId}/${path.basename(entry, path.extname(entry))}` : pkg.pluginId;
	const plugin = {
		packageId: pkg.id,
		manifestId: pkg.pluginId,
		pluginId,
		name: pkg.name ?? pluginId,
		version: pkg.version,
		description: pkg.description,
		source: entry,
		rootDir: pkg.root,
		stateDir: pkg.stateDir ?? path.join(pkg.root, ".openclaw-state"),
		conversationAccess: pkg.conversationAccess === true,
		contractsTools: Array.isArray(pkg.contractsTools) ? pkg.contractsTools : null,
		hostRules: pkg.hostRules === "2026.10" ? "2026.10" : "2026.9",
		toolContract: pkg.toolContract === "warn" ? "warn" : "refuse",
		legacyHooks: pkg.legacyHooks === "alias" ? "alias" : "ignore",
		hookCatalog: hookCatalog(pkg.hookCatalog),
		loader: Object.hasOwn(LOADERS, pkg.loader) ? pkg.loader : "native",
		compileCache: typeof pkg.cache === "string" ? pkg.cache : undefined, // written at install
		optionalTools: pkg.optionalTools ?? [],
		gatewaySettings: settings,
		hookSettings: settings.hooks ?? {},
		pluginConfig: config,
		logger: createLogger(pluginId),
		staged: { tools: [], factories: [], commands: [], hooks: [] },
	};
	plugin.config = openclawConfig(plugin);
	return plugin;
}

async function loadPlugin(state, oc, plugin) {
	const where = `plugin ${plugin.pluginId} (${path.relative(plugin.rootDir, plugin.source) || plugin.source})`;
	takeResolved();
	let module;
	try {
		const loaded = await importEntry(plugin.source, plugin.loader, plugin.compileCache);
		module = loaded.module;
		if (loaded.nativeError) {
			const first = String(loaded.nativeError?.message ?? loaded.nativeError).split("\n")[0];
			const message = `${where}: native require failed (${first}); loaded through jiti's transform, as ${LOADERS[plugin.loader]} does; OpenClaw 2026.9 refuses it`;
			diagnostic(state, "openclaw.loaded_by_transform", message, plugin.pluginId);
		}
	} catch (error) {
		const needed = sdkFailure(error, takeResolved());
		if (needed) {
			const message = `${where} requires host SDK subpath ${needed}: ${String(error?.message ?? error).split("\n")[0]}; metadata only`;
			return diagnostic(state, "openclaw.sdk_unavailable", message, plugin.pluginId);
		}
		if (!pluginsOwnFailure(error)) return diagnostic(state, "openclaw.load_failed", `${where}: ${error?.stack ?? error}`, plugin.pluginId);
		// The plugin's own code failed under the loader of the OpenClaw it declares: OpenClaw
		// fails it the same way (the same error), so it is the plugin's failure, named as such.
		const message = `${where} fails under ${LOADERS[plugin.loader]}, the loader of the OpenClaw it declares, as it does there: ${error?.stack ?? error}`;
		return diagnostic(state, "openclaw.entry_failed_in_host", message, plugin.pluginId);
	}
	const found = resolveExport(module);
	if (!found) return diagnostic(state, "openclaw.load_failed", `${where}: plugin export missing register/activate`, plugin.pluginId);
	if (found.legacy) diagnostic(state, "openclaw.legacy_api", `${where}: exports activate (legacy alias of register)`, "activate");
	const declared = found.definition?.id;
	if (typeof declared === "string" && declared !== plugin.pluginId.split("/")[0]) {
		diagnostic(state, "openclaw.id_mismatch", `${where}: its entry says id "${declared}", the manifest "${plugin.pluginId}"; OpenClaw 2026.9 refuses it, the gateway loads it`, declared);
	}
	const { api, close } = createApi(state, oc, plugin);
	let returned;
	try {
		returned = found.register.call(found.definition, api);
	} catch (error) {
		close();
		// only an SDK import refused during register (a lazy import), not any throw of the SDK
		const needed = error?.code === "ERR_GATEWAY_SDK_SUBPATH" ? error.specifier : null;
		if (needed) {
			const message = `${where}: register failed, its registrations were rolled back: it requires host SDK subpath ${needed}: ${String(error?.message ?? error).split("\n")[0]}; metadata only`;
			return diagnostic(state, "openclaw.sdk_unavailable", message, plugin.pluginId);
		}
		return diagnostic(state, "openclaw.load_failed", `${where}: register failed, its registrations were rolled back: ${error?.stack ?? error}`, plugin.pluginId);
	} finally {
		close();
	}
	if (typeof returned?.then === "function") {
		returned.then(null, (error) => log(`${where}: async register rejected: ${error?.stack ?? error}`));
		return diagnostic(state, "openclaw.register_async", `${where}: register returned a Promise; plugin register must be synchronous, so the plugin is inactive`, plugin.pluginId);
	}
	commit(state, oc, plugin);
}

const CONFINEMENT = new Set(["EACCES", "EPERM", "EROFS"]);
const OWN_CODE = `${path.sep}sidecars${path.sep}lib${path.sep}`;

/** Whether a load error is the plugin's own (its code, under its host's module semantics),
 * not the sandbox's refusal nor a fault of the sidecar's code. */
function pluginsOwnFailure(error) {
	if (CONFINEMENT.has(error?.code)) return false;
	const frames = String(error?.stack ?? "").split("\n").filter((line) => line.trimStart().startsWith("at "));
	return !frames.some((line) => line.includes(OWN_CODE) && !line.includes("loader.mjs"));
}

function commit(state, oc, plugin) {
	oc.plugins.push(plugin);
	oc.staticTools.push(...plugin.staged.tools);
	oc.factories.push(...plugin.staged.factories);
	addCommands(state, oc, plugin);
	for (const reg of plugin.staged.hooks) addHook(oc, reg);
}

/** The private HOME and state dirs the planner chose (GATEWAY_HOME/openclaw/<id>/). */
function makeDirs(packages) {
	for (const dir of [os.homedir(), ...packages.map((pkg) => pkg.stateDir)]) {
		try {
			if (dir) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
		} catch (error) {
			log(`cannot create ${dir}: ${error.message}`);
		}
	}
}

export async function loadHost(state, packages) {
	installSdkResolver();
	makeDirs(packages);
	const oc = newHost();
	for (const pkg of packages) {
		const stored = readConfigFile(pkg.configFile);
		if (stored.error) {
			diagnostic(state, "openclaw.config_invalid", `plugin ${pkg.pluginId}: ${stored.error}; register is not called`, pkg.pluginId);
			continue;
		}
		const checked = await validateConfig(pkg.pluginId, pkg.configSchema, Object.keys(stored.own).length ? stored.own : undefined);
		if (!checked.ok) {
			const message = `plugin ${pkg.pluginId}: invalid config: ${checked.errors.join(", ")}; register is not called`;
			diagnostic(state, "openclaw.config_invalid", message, pkg.pluginId);
			continue;
		}
		withdrawSubpaths(pkg.root, pkg.removedSdk);
		for (const entry of pkg.entries) await loadPlugin(state, oc, pluginFor(pkg, entry, checked.value, stored.settings));
	}
	reportAliases(state, oc, packages);
	state.shutdownHooks.push(() => stop(state, oc));
	return openclawHost(state, oc);
}

function reportAliases(state, oc, packages) {
	for (const pkg of packages) {
		for (const alias of pkg.commandAliases ?? []) {
			if (oc.commands.has(alias.name)) continue;
			const cli = alias.cliCommand ? ` (the CLI command \`openclaw ${alias.cliCommand}\`)` : "";
			diagnostic(state, "openclaw.command_alias", `plugin ${pkg.pluginId}: commandAliases "${alias.name}"${cli} is an alias only, no command of that name runs here`, alias.name);
		}
	}
}

async function stop(state, oc) {
	oc.lifecycle.abort(new Error("sidecar shutting down"));
	await observe(oc, "gateway_stop", { reason: "shutdown" }, { workspaceDir: state.initialize?.workspace });
	for (const dispose of oc.disposers) {
		try {
			await dispose();
		} catch (error) {
			log(`lifecycle.onDispose callback failed: ${error?.message ?? error}`);
		}
	}
}

function openclawHost(state, oc) {
	let events = null; // computed once the host's features are known (at register)
	let built = false; // tool factories are called once the session is known (at register)
	return {
		ecosystem: "openclaw",
		tools: () => {
			if (!built) built = rebuildTools(state, oc) || true;
			return [...oc.tools.values()].map((entry) => entry.spec);
		},
		commands: () => [...oc.commands.values()].map(({ name, definition }) => ({ name, description: definition.description })),
		events: () => (events ??= subscribedEvents(state, oc)),
		// Which plugin package registered a tool or command (negotiated `register.owners`).
		owner: (kind, name) => (kind === "tool" ? oc.tools : oc.commands).get(name)?.plugin?.packageId,
		callTool: (name, message, signal) => callTool(state, oc, name, message, signal),
		runCommand: (name, message, _signal, current) => runCommand(state, oc, name, message, current),
		onEvent: (event, payload, signal, message) => onEvent(state, oc, event, payload, signal, message),
		registered: async () => {
			await observe(oc, "gateway_start", { port: undefined }, { workspaceDir: state.initialize?.workspace });
			// What a factory returns may depend on what gateway_start set up.
			if (oc.factories.length && rebuildTools(state, oc)) sendRegistrationDelta(state);
		},
	};
}
