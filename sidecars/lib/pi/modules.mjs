// How the Pi host's modules resolve: one Node module hook, registered before pi's loader is
// imported, that
// - redirects the loader's `../exec.js` to ./exec.mjs (pi.exec() runs on the host),
// - redirects the loader's `./jiti-loader.js` to ./jiti.mjs (jiti's compile cache per
//   package, where the install-time compile put it),
// - loads TypeBox from the one-module bundle `gateway setup` builds
//   (node_modules/.gateway/typebox, see sidecars/bundle.mjs) instead of its ~690 files,
//   for every importer — pi's own modules, extensions through pi's jiti aliases — so one
//   copy is loaded (when the bundle is missing or stale, TypeBox loads as installed),
// - notes whether pi's theme module was loaded (host.mjs then initialises it, as every
//   pi mode does at start).

import fs from "node:fs";
import { createRequire, registerHooks } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { log } from "../stdio.mjs";

const require = createRequire(import.meta.url);
const piDist = path.dirname(fileURLToPath(import.meta.resolve("@earendil-works/pi-coding-agent")));
const piUrl = (relative) => pathToFileURL(path.join(piDist, relative)).href;

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

/** TypeBox entry file URL -> its bundled module URL; empty without a current bundle (or with
 * GATEWAY_SIDECAR_UNBUNDLED=1, which benchmarks/bench_pi.py uses to measure the difference). */
function typeboxBundle() {
	if (process.env.GATEWAY_SIDECAR_UNBUNDLED === "1") return new Map();
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

const bundled = typeboxBundle();
let themeSeen = false;

registerHooks({
	resolve(specifier, context, nextResolve) {
		if (context.parentURL === loaderUrl && Object.hasOwn(SHIMS, specifier)) {
			return { url: SHIMS[specifier], shortCircuit: true };
		}
		const resolved = nextResolve(specifier, context);
		const swapped = bundled.get(resolved.url);
		if (swapped) return { ...resolved, url: swapped, shortCircuit: true };
		if (resolved.url === themeUrl) themeSeen = true;
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
