#!/usr/bin/env node
// Builds the sidecar's bundled modules after `npm ci` (`gateway setup` runs it): TypeBox,
// which loads as ~690 files (84–138 ms, most of a Pi package's start), becomes one module per
// entry point of its `exports` map, sharing chunks, so one copy of its state exists whichever
// subpath is imported. The Pi host loads it in TypeBox's place (lib/pi/modules.mjs) when
// its manifest names the installed TypeBox version.
//
// The Pi SDK (pi-coding-agent and the pi-ai, pi-agent-core, pi-tui, pi-mcp … it imports,
// with their third-party dependencies) becomes one module per file an importer reaches —
// the entries of pi's alias map that extensions import, and the files the Pi host loads (pi's
// loader, its event bus, its theme) — sharing chunks, so again one copy of each module
// exists whoever imports it. An extension importing `@earendil-works/pi-coding-agent` loaded
// ~1,100 modules one by one (1 s of CPU per package); it loads ~30 files now. Each module
// keeps its own `import.meta.url` (and `__dirname`), so pi finds its package.json, themes
// and assets where they are; pi's loader's `../exec.js` and `./jiti-loader.js` stay the Pi
// host's own modules (lib/pi/exec.mjs, lib/pi/jiti.mjs), as the module hook makes them when
// unbundled; TypeBox stays outside (its own bundle).
//
// One of pi's modules keeps a dependency it uses only in functions the Pi host never calls
// (`LAZY`: pi's HTTP dispatcher and undici, ~110 modules and Node's http2/tls) unevaluated
// until first used.
//
// OpenClaw's config validator (`openclaw/plugin-sdk/json-schema-runtime`, which the OpenClaw
// host runs for every plugin that declares a config schema: lib/openclaw/config.mjs), when
// the OpenClaw SDK is installed, becomes one module instead of its ~245 (its own TypeBox).
//
// Usage: node bundle.mjs   (writes node_modules/.gateway/typebox/, node_modules/.gateway/pi/
// and node_modules/.gateway/openclaw/, replacing what was there)

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

/** The folder of the package.json above `file` (TypeBox does not export its package.json). */
function packageRoot(file) {
	let folder = path.dirname(file);
	while (!fs.existsSync(path.join(folder, "package.json")) && path.dirname(folder) !== folder) folder = path.dirname(folder);
	return folder;
}

async function bundleTypebox(esbuild) {
	const root = packageRoot(fileURLToPath(import.meta.resolve("typebox")));
	const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
	const entries = {};
	for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
		const file = typeof target === "string" ? target : (target.import ?? target.default);
		if (typeof file !== "string" || subpath.includes("*")) continue;
		entries[subpath === "." ? "index" : subpath.slice(2).replaceAll("/", "-")] = path.join(root, file);
	}
	const out = path.join(here, "node_modules", ".gateway", "typebox");
	fs.rmSync(out, { recursive: true, force: true });
	await esbuild.build({
		entryPoints: entries,
		outdir: out,
		bundle: true,
		splitting: true,
		format: "esm",
		platform: "node",
		outExtension: { ".js": ".mjs" },
		legalComments: "inline",
		logLevel: "warning",
	});
	const files = Object.fromEntries(Object.entries(entries).map(([name, file]) => [path.relative(root, file), `${name}.mjs`]));
	const written = { version: manifest.version, entries: files };
	fs.writeFileSync(path.join(out, "manifest.json"), `${JSON.stringify(written, null, 2)}\n`);
	return `TypeBox ${manifest.version}: ${Object.keys(files).length} entry points in ${fs.readdirSync(out).length - 1} files`;
}

/** What the Pi SDK's and the OpenClaw SDK's bundles are built with: ES modules for Node 22,
 * split into shared chunks, a metafile relative to this folder. */
const SDK_BUNDLE = {
	bundle: true,
	splitting: true,
	format: "esm",
	platform: "node",
	target: "node22",
	outExtension: { ".js": ".mjs" },
	// CommonJS dependencies call require() for Node's own modules.
	banner: { js: 'import { createRequire as __gatewayRequire } from "node:module"; const require = __gatewayRequire(import.meta.url);' },
	legalComments: "inline",
	logLevel: "error",
	metafile: true,
	absWorkingDir: here, // the metafile's paths are relative to it
};

const PI = "@earendil-works/pi-coding-agent";
const PI_THEME = "modes/interactive/theme/theme.js";
/** Files of pi-coding-agent's dist the Pi host imports itself (lib/pi/modules.mjs, exec.mjs,
 * resources.mjs). */
const PI_HOST_FILES = ["core/extensions/loader.js", "core/event-bus.js", PI_THEME, "core/exec.js", "core/skills.js", "core/prompt-templates.js", "config.js"];
/** The loader's imports that stay the Pi host's own modules (lib/pi/modules.mjs, SHIMS). */
const PI_SHIMS = { "../exec.js": "lib/pi/exec.mjs", "./jiti-loader.js": "lib/pi/jiti.mjs" };
/** The loader's lazy imports for single-file builds of pi (Bun, Node SEA), never taken here. */
const PI_UNUSED = /^\.\/(virtual-modules|jiti-static-loader)\.js$/;

/** Every file pi's alias map hands an extension, except TypeBox (loader.js, getAliases). */
function piAliasTargets(piDist) {
	const resolve = (specifier) => fileURLToPath(import.meta.resolve(specifier));
	const dir = (name) => path.dirname(resolve(`@earendil-works/${name}`));
	return [
		path.join(piDist, "index.js"),
		resolve("@earendil-works/pi-agent-core"),
		resolve("@earendil-works/pi-tui"),
		path.join(piDist, "core/extensions/pi-ai-extension-view.js"),
		path.join(dir("pi-ai"), "models.js"),
		path.join(dir("pi-ai"), "oauth.js"),
		path.join(dir("pi-ai"), "providers/all.js"),
	];
}

/** Namespace imports of CommonJS packages that pi's modules use only inside functions the
 * Pi host never calls (pi's HTTP dispatcher is configured by pi's own main, not by its
 * extension loader): loaded on first use instead of when the SDK is imported. */
const LAZY = [{ file: "core/http-dispatcher.js", names: ["undici"] }];

function lazyImports(file, text) {
	const rule = LAZY.find((r) => file.endsWith(`${path.sep}${r.file}`) && file.includes(`${path.sep}pi-coding-agent${path.sep}`));
	if (!rule) return text;
	for (const name of rule.names) {
		const statement = new RegExp(`^import \\* as (\\w+) from "${name}";$`, "m");
		const found = statement.exec(text);
		if (!found) throw new Error(`${rule.file}: no \`import * as … from "${name}"\` to make lazy (pi changed: update LAZY in bundle.mjs)`);
		const id = found[1];
		text = text.replace(statement, `let __lazy_${id};\nconst ${id} = new Proxy({}, { get: (_, key) => (__lazy_${id} ??= require("${name}"))[key], has: (_, key) => key in (__lazy_${id} ??= require("${name}")) });`);
	}
	return text;
}

/** Each module keeps its own location: `import.meta.url`, `__dirname` and `__filename` of the
 * file it came from (pi reads its package.json, themes and assets beside its modules). */
function keepLocations(loaderFile, root) {
	return {
		name: "keep-locations",
		setup(build) {
			build.onResolve({ filter: PI_UNUSED }, (args) => ({ path: pathToFileURL(path.join(args.resolveDir, args.path)).href, external: true }));
			build.onResolve({ filter: /^\.\.?\/(exec|jiti-loader)\.js$/ }, (args) => {
				if (args.importer !== loaderFile || !Object.hasOwn(PI_SHIMS, args.path)) return undefined;
				return { path: pathToFileURL(path.join(root, PI_SHIMS[args.path])).href, external: true };
			});
			build.onLoad({ filter: /\.(m?js|cjs)$/ }, (args) => {
				const source = located(args.path);
				return { ...source, contents: lazyImports(args.path, source.contents) };
			});
		},
	};
}

/** A module's source with its own `import.meta.url`, `__dirname` and `__filename`. */
function located(file) {
	let text = fs.readFileSync(file, "utf8");
	if (text.includes("import.meta.url")) text = text.replaceAll("import.meta.url", JSON.stringify(pathToFileURL(file).href));
	// CommonJS modules get them from Node; an ES module declaring its own keeps that.
	if (/\b__(dirname|filename)\b/.test(text) && !/\b(const|let|var)\s+__(dirname|filename)\b/.test(text)) {
		text = `var __filename = ${JSON.stringify(file)}, __dirname = ${JSON.stringify(path.dirname(file))};\n${text}`;
	}
	return { contents: text, loader: "js", resolveDir: path.dirname(file) };
}

async function bundlePi(esbuild) {
	const piDist = path.dirname(fileURLToPath(import.meta.resolve(PI)));
	const piRoot = path.dirname(piDist);
	const { version } = JSON.parse(fs.readFileSync(path.join(piRoot, "package.json"), "utf8"));
	const files = [...PI_HOST_FILES.map((file) => path.join(piDist, file)), ...piAliasTargets(piDist)];
	const entries = Object.fromEntries(files.map((file, index) => [`entry-${index}`, file]));
	const out = path.join(here, "node_modules", ".gateway", "pi");
	fs.rmSync(out, { recursive: true, force: true });
	const result = await esbuild.build({
		...SDK_BUNDLE,
		entryPoints: entries,
		outdir: out,
		external: ["typebox", "typebox/*", "@sinclair/typebox", "@sinclair/typebox/*"],
		plugins: [keepLocations(path.join(piDist, "core/extensions/loader.js"), here)],
	});
	// Which entries load pi's theme module (lib/pi/modules.mjs initialises it when one does).
	const themeFile = path.relative(here, path.join(piDist, PI_THEME));
	const outputs = result.metafile.outputs;
	const loadsTheme = (output, seen = new Set()) => {
		if (seen.has(output)) return false;
		seen.add(output);
		const info = outputs[output];
		if (Object.keys(info.inputs).some((input) => path.resolve(here, input) === path.resolve(here, themeFile))) return true;
		return info.imports.some((edge) => edge.kind === "import-statement" && outputs[edge.path] && loadsTheme(edge.path, seen));
	};
	const written = { version, entries: {}, theme: [] };
	const wanted = new Set(files);
	for (const [output, info] of Object.entries(outputs)) {
		if (!info.entryPoint || !wanted.has(path.resolve(here, info.entryPoint))) continue; // not a lazy chunk
		const name = path.basename(output);
		written.entries[path.relative(piRoot, path.resolve(here, info.entryPoint))] = name;
		if (loadsTheme(output)) written.theme.push(name);
	}
	fs.writeFileSync(path.join(out, "manifest.json"), `${JSON.stringify(written, null, 2)}\n`);
	const inputs = Object.keys(result.metafile.inputs).length;
	return `Pi SDK ${version}: ${files.length} entry points, ${inputs} modules in ${fs.readdirSync(out).length - 1} files`;
}

/** The OpenClaw SDK's subpaths the OpenClaw host itself imports, bundled (each keeps its
 * own state: a plugin importing the same subpath gets the SDK's copy). */
const OPENCLAW_HOST_SUBPATHS = ["json-schema-runtime"];

async function bundleOpenclaw(esbuild) {
	const out = path.join(here, "node_modules", ".gateway", "openclaw");
	fs.rmSync(out, { recursive: true, force: true });
	let root;
	try {
		root = packageRoot(fileURLToPath(import.meta.resolve(`openclaw/plugin-sdk/${OPENCLAW_HOST_SUBPATHS[0]}`)));
	} catch {
		return "OpenClaw SDK: not installed, nothing to bundle";
	}
	const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
	const entries = Object.fromEntries(OPENCLAW_HOST_SUBPATHS.map((name) => [name, fileURLToPath(import.meta.resolve(`openclaw/plugin-sdk/${name}`))]));
	const result = await esbuild.build({
		...SDK_BUNDLE,
		entryPoints: entries,
		outdir: out,
		plugins: [{ name: "keep-locations", setup: (build) => build.onLoad({ filter: /\.(m?js|cjs)$/ }, (args) => located(args.path)) }],
	});
	const written = { version, entries: Object.fromEntries(OPENCLAW_HOST_SUBPATHS.map((name) => [name, `${name}.mjs`])) };
	fs.writeFileSync(path.join(out, "manifest.json"), `${JSON.stringify(written, null, 2)}\n`);
	const inputs = Object.keys(result.metafile.inputs).length;
	return `OpenClaw SDK ${version}: the host's ${OPENCLAW_HOST_SUBPATHS.join(", ")}, ${inputs} modules in ${fs.readdirSync(out).length - 1} files`;
}

let esbuild;
try {
	esbuild = await import("esbuild");
} catch (error) {
	process.stderr.write(`cannot bundle: esbuild is not installed (${error.code ?? error.message}); run npm ci\n`);
	process.exit(1);
}
process.stdout.write(`${await bundleTypebox(esbuild)}\n`);
process.stdout.write(`${await bundlePi(esbuild)}\n`);
// Not fatal: without it the OpenClaw host loads the validator as installed (config.mjs).
process.stdout.write(`${await bundleOpenclaw(esbuild).catch((error) => `OpenClaw SDK: config validator not bundled (${error.message})`)}\n`);
