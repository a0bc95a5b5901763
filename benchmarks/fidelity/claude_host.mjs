// OpenClaw as the reference host for Claude Code plugins, outside the gateway: the pinned
// `openclaw` package's own reader of Claude bundles — `loadBundleManifest`
// (src/plugins/bundle-manifest.ts: id, name, version, component paths, capabilities) and its
// bundle command loader (src/plugins/bundle-commands.ts: `resolveClaudeCommandRootDirs`,
// `loadBundleCommandsFromRoot`: names, descriptions, `user-invocable`), both found in the
// package's dist chunks. The command loader is not exported: its chunk is copied into a
// scratch folder with its relative imports pointed back at the package and one export line
// added; nothing else of it is touched. A plugin's skills are its SKILL.md folders under the
// manifest's skill roots (OpenClaw's skill loader is not called, as for native plugins).
// Claude Code itself has no library to load a plugin with.
//
//   node claude_host.mjs --openclaw DIR --out FILE JOB.json
//
// JOB.json is a list of {key, path}; prints what each plugin offers as JSON.

import fs from "node:fs";
import os from "node:os";
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

function chunkDefining(fn) {
	for (const file of fs.readdirSync(dist).sort()) {
		if (!file.endsWith(".mjs")) continue;
		const text = fs.readFileSync(path.join(dist, file), "utf8");
		if (text.includes(`function ${fn}(`)) return { file, text };
	}
	throw new Error(`no ${fn} in ${dist}`);
}

async function exported(fn) {
	const { file, text } = chunkDefining(fn);
	const names = /export \{([^}]*)\}/.exec(text)?.[1] ?? "";
	const alias = new RegExp(`\\b${fn} as (\\w+)`).exec(names)?.[1];
	const mod = await import(pathToFileURL(path.join(dist, file)).href);
	if (!alias || typeof mod[alias] !== "function") throw new Error(`${fn} is not exported by ${file}`);
	return mod[alias];
}

/** Functions a chunk defines but does not export: the chunk, copied, with an export added. */
async function internal(...fns) {
	const { file, text } = chunkDefining(fns[0]);
	const base = pathToFileURL(dist + path.sep).href;
	const pointed = text.replace(/(from\s*|import\s*)"\.\/([^"]+)"/g, (_, head, rel) => `${head}"${base}${rel}"`);
	const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "claude-host-"));
	const copy = path.join(scratch, file);
	fs.writeFileSync(copy, `${pointed}\nexport { ${fns.map((f, i) => `${f} as __f${i}`).join(", ")} };\n`);
	const mod = await import(pathToFileURL(copy).href);
	fs.rmSync(scratch, { recursive: true, force: true });
	return fns.map((_, i) => mod[`__f${i}`]);
}

const loadBundleManifest = await exported("loadBundleManifest");
const [resolveClaudeCommandRootDirs, loadBundleCommandsFromRoot] = await internal(
	"resolveClaudeCommandRootDirs",
	"loadBundleCommandsFromRoot",
);

function skillsUnder(root, rels) {
	const found = [];
	for (const rel of rels) {
		const dir = path.resolve(root, String(rel));
		if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) continue;
		const candidates = fs.existsSync(path.join(dir, "SKILL.md"))
			? [dir]
			: fs.readdirSync(dir).sort().map((d) => path.join(dir, d)).filter((d) => fs.existsSync(path.join(d, "SKILL.md")));
		for (const skillDir of candidates) {
			const text = fs.readFileSync(path.join(skillDir, "SKILL.md"), "utf8");
			const name = /^---[\s\S]*?^name:\s*["']?([^"'\n]+)["']?\s*$/m.exec(text)?.[1]?.trim();
			found.push(name || path.basename(skillDir));
		}
	}
	return found;
}

function loadOne(job) {
	const loaded = loadBundleManifest({ rootDir: job.path, bundleFormat: "claude" });
	if (!loaded.ok) return { key: job.key, ok: false, error: String(loaded.error) };
	const manifest = loaded.manifest;
	const commands = [];
	for (const rel of resolveClaudeCommandRootDirs(job.path)) {
		const commandRoot = path.resolve(job.path, rel);
		if (!fs.existsSync(commandRoot)) continue;
		for (const c of loadBundleCommandsFromRoot({ pluginId: manifest.id, commandRoot })) {
			commands.push({ name: c.rawName, description: c.description });
		}
	}
	const skillRoots = Array.isArray(manifest.skills) ? manifest.skills : [];
	return {
		key: job.key,
		ok: true,
		id: manifest.id,
		name: manifest.name,
		version: manifest.version,
		capabilities: manifest.capabilities,
		hooks: manifest.hooks,
		commands,
		skills: skillsUnder(job.path, skillRoots),
	};
}

const jobs = JSON.parse(fs.readFileSync(jobFile, "utf8"));
const results = [];
for (const job of jobs) {
	const started = Date.now();
	try {
		results.push({ ...loadOne(job), seconds: (Date.now() - started) / 1000 });
	} catch (error) {
		results.push({ key: job.key, crashed: String(error?.stack ?? error).slice(0, 2000), seconds: (Date.now() - started) / 1000 });
	}
	fs.writeFileSync(out, JSON.stringify(results));
}
process.exit(0);
