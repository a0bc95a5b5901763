// OpenClaw's SDK imports, resolved as OpenClaw resolves them: `openclaw/plugin-sdk/<subpath>`
// and `@openclaw/plugin-sdk/<subpath>` go to the host's own copy — the real `openclaw` package
// pinned in sidecars/package.json — whatever the plugin's location; the root barrel (gone from
// OpenClaw's exports since 2026.8, still imported by older plugins) goes to ./sdk-root.mjs.
// One module hook covers native ESM, require() and jiti (which resolves through Node).
// A subpath the pinned SDK does not export fails the import with "requires host SDK subpath";
// so does one that the OpenClaw a plugin declares (2026.8 and later) removed.

import fs from "node:fs";
import { registerHooks } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOTS = ["openclaw/plugin-sdk", "@openclaw/plugin-sdk"];
const ROOT_SHIM = new URL("./sdk-root.mjs", import.meta.url).href;
/** The module the root barrel loads (./sdk-root.mjs), as a path. */
export const ROOT_SHIM_FILE = fileURLToPath(ROOT_SHIM);

/** The pinned SDK: its version and subpaths (name -> file URL); none when not installed. */
function readSdk() {
	const subpaths = new Map();
	let packageDir;
	try {
		packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.resolve("openclaw/plugin-sdk/plugin-entry"))), "../..");
	} catch {
		return { version: undefined, subpaths };
	}
	const manifest = JSON.parse(fs.readFileSync(path.join(packageDir, "package.json"), "utf8"));
	for (const [key, value] of Object.entries(manifest.exports ?? {})) {
		if (!key.startsWith("./plugin-sdk/")) continue;
		const target = typeof value === "string" ? value : (value?.import ?? value?.default);
		if (typeof target === "string") subpaths.set(key.slice("./plugin-sdk/".length), pathToFileURL(path.join(packageDir, target)).href);
	}
	return { version: manifest.version, subpaths };
}

const SDK = readSdk();
export const SUBPATHS = SDK.subpaths;
export const SDK_VERSION = SDK.version;

/** The SDK subpath a specifier names ("" for the root barrel), or null for anything else. */
export function sdkSubpath(specifier) {
	for (const root of ROOTS) {
		if (specifier === root) return "";
		if (specifier.startsWith(`${root}/`)) return specifier.slice(root.length + 1);
	}
	return null;
}

export class SdkSubpathMissing extends Error {
	constructor(specifier, why = "not in the pinned openclaw") {
		super(`requires host SDK subpath ${specifier} (${why})`);
		this.code = "ERR_GATEWAY_SDK_SUBPATH";
		this.specifier = specifier;
	}
}

/** Subpaths resolved since the last call (which plugin needed what, for diagnostics). */
const resolved = new Set();
export function takeResolved() {
	const taken = [...resolved];
	resolved.clear();
	return taken;
}

/** Plugins built for a newer OpenClaw, which no longer has some subpaths the pinned one still
 * serves: their roots, each with subpath -> the OpenClaw line that removed it. An import of
 * one of those from inside such a root fails as it would on that host. */
const withdrawn = [];
export function withdrawSubpaths(rootDir, removed) {
	if (!Array.isArray(removed) || !removed.length) return;
	const root = rootDir.endsWith(path.sep) ? rootDir : rootDir + path.sep;
	withdrawn.push({ root, removed: new Map(removed.filter((r) => Array.isArray(r) && r.length === 2)) });
}

function withdrawnLine(parentURL, subpath) {
	if (!withdrawn.length || typeof parentURL !== "string" || !parentURL.startsWith("file:")) return null;
	let file;
	try {
		file = fileURLToPath(parentURL);
	} catch {
		return null;
	}
	for (const entry of withdrawn) {
		if (file.startsWith(entry.root) && entry.removed.has(subpath)) return entry.removed.get(subpath);
	}
	return null;
}

let installed = false;
export function installSdkResolver() {
	if (installed) return;
	installed = true;
	registerHooks({
		resolve(specifier, context, nextResolve) {
			const subpath = sdkSubpath(specifier);
			if (subpath === null) return nextResolve(specifier, context);
			const line = withdrawnLine(context?.parentURL, subpath);
			if (line) throw new SdkSubpathMissing(specifier, `OpenClaw ${line} removed it, and the plugin declares that OpenClaw or a later one`);
			if (subpath === "") return { url: ROOT_SHIM, shortCircuit: true };
			const url = SUBPATHS.get(subpath);
			if (!url) throw new SdkSubpathMissing(specifier);
			resolved.add(specifier);
			return { url, shortCircuit: true };
		},
	});
}

/** Why a plugin failed to load, when the SDK is the reason: the subpath it needs. */
export function sdkFailure(error, subpathsUsed) {
	if (error?.code === "ERR_GATEWAY_SDK_SUBPATH") return error.specifier;
	const stack = String(error?.stack ?? "");
	if (stack.includes(`${path.sep}node_modules${path.sep}openclaw${path.sep}dist${path.sep}`) && subpathsUsed.length) {
		return subpathsUsed.join(", ");
	}
	return null;
}
