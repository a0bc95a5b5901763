// OpenClaw's own host, outside the gateway: the pinned `openclaw` package's real plugin loader
// (`loadOpenClawPlugins`, src/plugins/loader.ts, found in the package's dist chunks) run
// headless on one plugin folder given as `plugins.load.paths`, with the plugin enabled,
// allowed, selected for its slot (`kind`) and granted `allowConversationAccess` (what the
// gateway's `conversation_access` grant stands for). Prints what it registered as JSON.
//
//   node openclaw_host.mjs --openclaw DIR --out FILE JOB.json
//
// JOB.json is a list of {key, path, cwd, config?}; each plugin is loaded on its own
// (`cache: false`, `activate: false`, `onlyPluginIds`, `runtimeSideEffects` as its server). Nothing is called, except tool
// factories registered without names (OpenClaw calls them per session; here once, with a
// tool context like the gateway's) to learn the names they make.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

function option(name) {
	const at = process.argv.indexOf(name);
	return at > 0 ? process.argv[at + 1] : undefined;
}

const ocDir = option("--openclaw");
const out = option("--out");
const jobFile = process.argv[process.argv.length - 1];
const dist = path.join(ocDir, "dist");

/** The chunk defining `loadOpenClawPlugins`, and the name it is exported under. */
async function findLoader() {
	// 2026.9: loader-runtime-load-*.mjs; 2026.7 and before: loader-*.js
	for (const file of fs.readdirSync(dist).sort()) {
		if (!/\.m?js$/.test(file) || !file.startsWith("loader-")) continue;
		const text = fs.readFileSync(path.join(dist, file), "utf8");
		if (!text.includes("function loadOpenClawPlugins(")) continue;
		const exported = /export \{([^}]*)\}/.exec(text)?.[1] ?? "";
		const alias = /loadOpenClawPlugins as (\w+)/.exec(exported)?.[1];
		const mod = await import(pathToFileURL(path.join(dist, file)).href);
		if (alias && typeof mod[alias] === "function") return mod[alias];
	}
	throw new Error(`no loadOpenClawPlugins in ${dist}`);
}

const JSON5 = (await import(pathToFileURL(path.join(ocDir, "..", "json5", "lib", "index.js")).href)).default;
const loadOpenClawPlugins = await findLoader();

function readManifest(root) {
	return JSON5.parse(fs.readFileSync(path.join(root, "openclaw.plugin.json"), "utf8"));
}

/** The skills a manifest's `skills` folders hold: a folder with SKILL.md, or its children. */
function manifestSkills(root, manifest) {
	const found = [];
	for (const rel of Array.isArray(manifest.skills) ? manifest.skills : []) {
		const dir = path.resolve(root, String(rel));
		const candidates = fs.existsSync(path.join(dir, "SKILL.md"))
			? [dir]
			: fs.existsSync(dir) && fs.statSync(dir).isDirectory()
				? fs.readdirSync(dir).map((d) => path.join(dir, d)).filter((d) => fs.existsSync(path.join(d, "SKILL.md")))
				: [];
		for (const skillDir of candidates) {
			const text = fs.readFileSync(path.join(skillDir, "SKILL.md"), "utf8");
			const name = /^---[\s\S]*?^name:\s*["']?([^"'\n]+)["']?\s*$/m.exec(text)?.[1]?.trim();
			found.push(name || path.basename(skillDir));
		}
	}
	return found;
}

/** The tools a registration makes for a session: OpenClaw calls each tool factory per
 * session with a tool context (a factory may return null, one tool or several, whatever
 * names it declared); here once, with a context like the gateway's. */
function toolNames(entry, job, config, notes) {
	if (typeof entry.factory !== "function") return entry.names ?? [];
	try {
		const made = entry.factory({
			sessionId: "fidelity",
			sessionKey: "fidelity",
			workspaceDir: job.cwd,
			agentDir: job.cwd,
			config,
			senderIsOwner: true,
		});
		const list = Array.isArray(made) ? made : made ? [made] : [];
		return list.map((t) => t?.name).filter(Boolean);
	} catch (error) {
		notes.push(`tool factory (${(entry.names ?? []).join(", ")}) threw: ${String(error).slice(0, 200)}`);
		return [];
	}
}

function loadOne(job) {
	if (!fs.existsSync(path.join(job.path, "openclaw.plugin.json"))) {
		// OpenClaw's discovery needs the manifest: its loader, given this folder as a load
		// path, registers no plugin from it (checked once by hand; it then loads only its
		// bundled plugins, which take 20 s).
		return { key: job.key, pluginId: null, plugins: [], missingManifest: true,
			tools: [], commands: [], hooks: [], skills: [], diagnostics: [] };
	}
	const manifest = readManifest(job.path);
	const id = manifest.id;
	const kinds = [manifest.kind].flat().filter(Boolean);
	const slots = {};
	if (kinds.includes("memory")) slots.memory = id;
	if (kinds.includes("context-engine")) slots.contextEngine = id;
	const config = {
		plugins: {
			enabled: true,
			allow: [id],
			slots,
			load: { paths: [job.path] },
			entries: { [id]: { enabled: true, config: job.config ?? {}, hooks: { allowConversationAccess: true } } },
		},
	};
	const registry = loadOpenClawPlugins({
		config,
		workspaceDir: job.cwd,
		onlyPluginIds: [id],
		activate: false,
		cache: false,
		// as OpenClaw's gateway server loads its plugins (server-plugins): the "full"
		// registration mode, not the side-effect-free "discovery" one
		runtimeSideEffects: true,
	});
	const notes = [];
	const mine = (item) => item.pluginId === id || String(item.pluginId).startsWith(`${id}/`);
	const plugins = registry.plugins.filter((p) => p.id === id || String(p.id).startsWith(`${id}/`));
	const unsupported = {};
	for (const [field, label] of [
		["cliRegistrars", "registerCli"],
		["services", "registerService"],
		["channels", "registerChannel"],
		["providers", "registerProvider"],
		["httpRoutes", "registerHttpRoute"],
		["legacyInternalHooks", "registerHook"],
		["hooks", "registerHook"],
		["memoryCapabilities", "registerMemoryCapability"],
	]) {
		const n = (registry[field] ?? []).filter(mine).length;
		if (n) unsupported[label] = (unsupported[label] ?? 0) + n;
	}
	return {
		key: job.key,
		pluginId: id,
		plugins: plugins.map((p) => ({ id: p.id, status: p.status, error: p.error ? String(p.error).slice(0, 1000) : undefined })),
		contextEngines: plugins.flatMap((p) => p.contextEngineIds ?? []),
		tools: registry.tools.filter(mine).flatMap((t) => toolNames(t, job, config, notes)),
		declaredTools: registry.tools.filter(mine).flatMap((t) => t.names ?? []),
		factoryNotes: notes,
		commands: registry.commands.filter(mine).map((c) => c.command?.name ?? c.name),
		hooks: registry.typedHooks.filter(mine).map((h) => h.hookName),
		skills: manifestSkills(job.path, manifest),
		unsupported,
		gatewayMethods: Object.keys(registry.gatewayHandlers ?? {}).length,
		diagnostics: registry.diagnostics
			.filter(mine)
			.map((d) => ({ level: d.level, message: String(d.message).slice(0, 500) })),
	};
}

const version = JSON.parse(fs.readFileSync(path.join(ocDir, "package.json"), "utf8")).version;
const jobs = JSON.parse(fs.readFileSync(jobFile, "utf8"));
const results = [];
for (const job of jobs) {
	const started = Date.now();
	try {
		results.push({ ...loadOne(job), openclaw: version, seconds: (Date.now() - started) / 1000 });
	} catch (error) {
		results.push({ key: job.key, openclaw: version, crashed: String(error?.stack ?? error).slice(0, 2000), seconds: (Date.now() - started) / 1000 });
	}
	fs.writeFileSync(out, JSON.stringify(results));
}
process.exit(0);
