// How the Pi host's modules resolve: one Node module hook, registered before pi's loader is
// imported, that
// - redirects the loader's `../exec.js` to ./exec.mjs (pi.exec() runs on the host),
// - redirects the loader's `./jiti-loader.js` to ./jiti.mjs (jiti's compile cache per
//   package, where the install-time compile put it),
// - loads TypeBox from the one-module bundle `gateway setup` builds
//   (node_modules/.gateway/typebox, see sidecars/bundle.mjs) instead of its ~690 files,
//   for every importer — pi's own modules, extensions through pi's jiti aliases — so one
//   copy is loaded (when the bundle is missing or stale, TypeBox loads as installed),
// - loads the Pi SDK the same way from its bundle (node_modules/.gateway/pi): pi's loader,
//   event bus and theme for the host, and every file pi's alias map hands an extension
//   (`@earendil-works/pi-coding-agent`, pi-ai, pi-tui, pi-agent-core, old names too) — ~30
//   files instead of ~1,100 modules; not in `gateway audit --load`'s recording mode, which
//   watches pi's loader as installed,
// - notes whether pi's theme module was loaded (host.mjs then initialises it, as every
//   pi mode does at start).

import fs from "node:fs";
import { createRequire, registerHooks } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { recording } from "../audit/record.mjs";
import { log } from "../stdio.mjs";

const require = createRequire(import.meta.url);
/** pi-coding-agent's dist folder as installed (resolved before the hook swaps in the bundle). */
export const piDist = path.dirname(fileURLToPath(import.meta.resolve("@earendil-works/pi-coding-agent")));
/** The URL of a file of pi's dist as installed (the hook loads its bundled copy when there is one). */
export const piUrl = (relative) => pathToFileURL(path.join(piDist, relative)).href;

export const loaderUrl = piUrl("core/extensions/loader.js");
export const eventBusUrl = piUrl("core/event-bus.js");
export const themeUrl = piUrl("modes/interactive/theme/theme.js");
const execShimUrl = new URL("./exec.mjs", import.meta.url).href;
const jitiShimUrl = new URL("./jiti.mjs", import.meta.url).href;

const SHIMS = { "../exec.js": execShimUrl, "./jiti-loader.js": jitiShimUrl };

/** The folder of the package.json above `file` (TypeBox does not export its package.json). */
function packageRoot(file) {
	let folder = path.dirname(file);
	while (!fs.existsSync(path.join(folder, "package.json")) && path.dirname(folder) !== folder) folder = path.dirname(folder);
	return folder;
}

/** Whether the bundle `name` ("typebox", "pi") is switched off: GATEWAY_SIDECAR_UNBUNDLED=1
 * (all) or a list of names, which benchmarks/bench_pi.py and bench_isolation.py use to measure
 * the difference. */
function unbundled(name) {
	const value = process.env.GATEWAY_SIDECAR_UNBUNDLED ?? "";
	return value === "1" || value.split(",").includes(name);
}

/** TypeBox entry file URL -> its bundled module URL; empty without a current bundle. */
function typeboxBundle() {
	if (unbundled("typebox")) return new Map();
	try {
		const root = packageRoot(fileURLToPath(import.meta.resolve("typebox")));
		const bundle = path.join(root, "..", ".gateway", "typebox");
		const manifest = JSON.parse(fs.readFileSync(path.join(bundle, "manifest.json"), "utf8"));
		const { version } = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
		if (manifest.version !== version) {
			log(`the TypeBox bundle is for ${manifest.version}, TypeBox is ${version}: loading it unbundled (run gateway setup)`);
			return new Map();
		}
		return new Map(Object.entries(manifest.entries).map(([entry, out]) => [pathToFileURL(path.join(root, entry)).href, pathToFileURL(path.join(bundle, out)).href]));
	} catch {
		return new Map(); // not built (modules installed by hand): TypeBox loads as installed
	}
}

const piRoot = path.dirname(piDist);

/** The Pi SDK's bundle: {entries: file URL -> bundled module URL, theme: the bundled modules
 * that load pi's theme}; empty without a bundle for the installed pi. */
function piBundle() {
	const none = { entries: new Map(), theme: new Set() };
	if (unbundled("pi") || recording()) return none;
	try {
		const bundle = path.join(piRoot, "..", "..", ".gateway", "pi");
		const manifest = JSON.parse(fs.readFileSync(path.join(bundle, "manifest.json"), "utf8"));
		const { version } = JSON.parse(fs.readFileSync(path.join(piRoot, "package.json"), "utf8"));
		if (manifest.version !== version) {
			log(`the Pi SDK bundle is for ${manifest.version}, pi is ${version}: loading it unbundled (run gateway setup)`);
			return none;
		}
		const url = (file) => pathToFileURL(path.join(bundle, file)).href;
		const entries = new Map(Object.entries(manifest.entries).map(([entry, out]) => [pathToFileURL(path.join(piRoot, entry)).href, url(out)]));
		return { entries, theme: new Set(manifest.theme.map(url)) };
	} catch {
		return none; // not built (modules installed by hand): pi loads as installed
	}
}

const bundled = typeboxBundle();
const pi = piBundle();
let themeSeen = false;

registerHooks({
	resolve(specifier, context, nextResolve) {
		if (context.parentURL === loaderUrl && Object.hasOwn(SHIMS, specifier)) {
			return { url: SHIMS[specifier], shortCircuit: true };
		}
		const resolved = nextResolve(specifier, context);
		const swapped = bundled.get(resolved.url) ?? pi.entries.get(resolved.url);
		if (resolved.url === themeUrl || pi.theme.has(swapped)) themeSeen = true;
		if (swapped) return { ...resolved, url: swapped, shortCircuit: true };
		return resolved;
	},
});

/** Whether anything imported pi's theme module so far. */
export function themeLoaded() {
	return themeSeen;
}

let theme;

/** pi's theme, initialised as pi's print and RPC modes do (the default "system" theme, no
 * watcher); loaded on first use (synchronously: it is reached from a getter). */
export function piTheme() {
	if (!theme) {
		const module = require(fileURLToPath(themeUrl));
		module.initTheme(undefined, false);
		theme = module.theme;
	}
	return theme;
}
