// Pi's own host, outside the gateway: load packages the way `pi -e PATH` does, with the pinned
// @earendil-works/pi-coding-agent's DefaultResourceLoader (its package manager resolves the
// `pi` manifest, the convention folders, skills and prompt templates; its loader imports the
// extensions with jiti and pi's alias map), and print what each registers as JSON.
//
//   node pi_host.mjs --pi DIR --out FILE JOB.json
//
// DIR is the installed @earendil-works/pi-coding-agent; JOB.json is a list of
// {key, path, cwd, agentDir, discover?} (discover: copied into the agent dir's extensions
// folder and found by pi's own discovery): each package is loaded on its own (a fresh loader, a private
// agent dir and workspace), one after the other. Nothing is called: no event, tool or command.
// Package code's stdout is kept away from the result (which goes to --out).

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

function option(name) {
	const at = process.argv.indexOf(name);
	return at > 0 ? process.argv[at + 1] : undefined;
}

const piDir = option("--pi");
const out = option("--out");
const jobFile = process.argv[process.argv.length - 1];
const pi = await import(pathToFileURL(path.join(piDir, "dist/index.js")).href);
const { DefaultResourceLoader, SettingsManager, ExtensionRunner } = pi;

function names(map) {
	return [...(map?.keys?.() ?? [])];
}

async function loadOne(job) {
	fs.mkdirSync(job.cwd, { recursive: true });
	fs.mkdirSync(job.agentDir, { recursive: true });
	if (job.discover) {
		const folder = path.join(job.agentDir, "extensions");
		fs.mkdirSync(folder, { recursive: true });
		fs.cpSync(job.path, path.join(folder, path.basename(job.path)), { recursive: true, verbatimSymlinks: true });
	}
	const loader = new DefaultResourceLoader({
		cwd: job.cwd,
		agentDir: job.agentDir,
		settingsManager: SettingsManager.inMemory({}),
		// an installed package as `pi -e PATH` takes it; a single extension placed in pi's
		// global extensions folder, as the gateway's side places it in its discovery folder
		additionalExtensionPaths: job.discover ? [] : [job.path],
		noContextFiles: true,
		noThemes: true,
	});
	await loader.reload();
	const result = loader.getExtensions();
	const extensions = result.extensions.map((ext) => ({
		path: ext.path,
		tools: [...ext.tools.values()].map((t) => t.definition.name),
		commands: [...ext.commands.values()].map((c) => c.name),
		flags: names(ext.flags),
		events: names(ext.handlers),
		shortcuts: names(ext.shortcuts),
		renderers: names(ext.messageRenderers),
	}));
	// Pi's own cross-extension rules: first tool wins, duplicate commands get `:N`.
	let tools;
	let inactiveTools = [];
	let commands;
	let flags;
	try {
		const runner = new ExtensionRunner(result.extensions, result.runtime, job.cwd, undefined, undefined);
		const registered = runner.getAllRegisteredTools();
		tools = registered.map((t) => t.definition.name);
		// AgentSession._isActivatedOnRegistration: not activated on registration.
		const activates = (d) => ["direct", "model-only"].includes(d.exposure ?? "direct") && d.defaultActive !== false;
		inactiveTools = registered.filter((t) => !activates(t.definition)).map((t) => t.definition.name);
		commands = runner.resolveRegisteredCommands().map((c) => c.invocationName);
		flags = [...runner.getFlags().keys()];
	} catch (error) {
		tools = [...new Set(extensions.flatMap((e) => e.tools))];
		commands = extensions.flatMap((e) => e.commands);
		flags = [...new Set(extensions.flatMap((e) => e.flags))];
	}
	const skills = loader.getSkills();
	const prompts = loader.getPrompts();
	return {
		key: job.key,
		extensions,
		errors: result.errors.map((e) => ({ path: e.path, error: String(e.error).slice(0, 2000) })),
		warnings: (result.warnings ?? []).map((w) => (typeof w === "string" ? w : JSON.stringify(w)).slice(0, 500)),
		tools,
		inactiveTools,
		commands,
		flags,
		events: [...new Set(extensions.flatMap((e) => e.events))],
		skills: skills.skills.map((s) => s.name),
		prompts: prompts.prompts.map((p) => p.name),
		resourceDiagnostics: [...skills.diagnostics, ...prompts.diagnostics]
			.filter((d) => d.type === "error")
			.map((d) => `${d.message}: ${d.path ?? ""}`),
	};
}

const jobs = JSON.parse(fs.readFileSync(jobFile, "utf8"));
const results = [];
for (const job of jobs) {
	const started = Date.now();
	try {
		results.push({ ...(await loadOne(job)), seconds: (Date.now() - started) / 1000 });
	} catch (error) {
		results.push({ key: job.key, crashed: String(error?.stack ?? error).slice(0, 2000), seconds: (Date.now() - started) / 1000 });
	}
	fs.writeFileSync(out, JSON.stringify(results));
}
process.exit(0);
