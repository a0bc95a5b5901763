// Loading an OpenClaw plugin entry the way the OpenClaw the plugin declares loads it (the plan's
// `loader`, chosen by adapters/openclaw/_lines.py from the plugin's declared host version):
//   "native"      OpenClaw >= 2026.8 (the pinned 2026.9.6), or nothing declared: built JS with a
//                 plain `createRequire(entry)(entry)` (require(esm) for ESM), no fallback;
//                 TypeScript through jiti (2026.9 compiles it with tsc: the same module shape).
//   "native-jiti" OpenClaw 2026.5 - 2026.7: native require first; on any error, jiti with
//                 `tryNative` (which tries native once more, then transforms).
//   "jiti"        OpenClaw < 2026.5: jiti's transform for every entry (`tryNative: false`).
// jiti resolves through Node (mlly, then require.resolve), so the one SDK module hook of
// ./sdk.mjs serves `openclaw/plugin-sdk/*` in every mode. Then OpenClaw's
// `resolvePluginModuleExport` (src/plugins/module-export.ts): nested `default`s unwrapped, a
// function is `register`, an object with `register` is a definition, else its `default` /
// `module` (up to 12 candidates) — plus the legacy `activate` alias.

import { createRequire } from "node:module";
import path from "node:path";

export const LOADERS = Object.freeze({
	native: "OpenClaw 2026.9's loader (native require, no fallback)",
	"native-jiti": "OpenClaw 2026.5-2026.7's loader (native require, then jiti on any error)",
	jiti: "OpenClaw 2026.3-2026.4's loader (jiti's transform)",
});

const NATIVE = new Set([".js", ".mjs", ".cjs"]);
// OpenClaw's plugin loader extensions (buildPluginLoaderJitiOptions).
const EXTENSIONS = [".ts", ".tsx", ".mts", ".cts", ".mtsx", ".ctsx", ".js", ".mjs", ".cjs", ".json"];
const jitis = new Map();

/** The options of OpenClaw's plugin jiti; `cache`: the plugin's compile cache folder (written
 * at install, ./compile.mjs; undefined: jiti's default, under TMPDIR). */
export function jitiOptions(tryNative, cache) {
	// `openclaw` stays native: the pinned SDK is one module graph for host and plugins.
	return { interopDefault: true, tryNative, extensions: EXTENSIONS, nativeModules: ["openclaw"], ...(cache ? { fsCache: cache } : {}) };
}

async function jitiFor(tryNative, cache) {
	const key = `${tryNative ? "native" : "transform"}\0${cache ?? ""}`;
	if (!jitis.has(key)) {
		const { createJiti } = await import("jiti");
		jitis.set(key, createJiti(import.meta.url, jitiOptions(tryNative, cache)));
	}
	return jitis.get(key);
}

/** The entries jiti compiles under `loader`, as [file, async] (how importEntry loads each):
 * what ./compile.mjs compiles at install. None for "native-jiti": its jiti runs only after a
 * native require fails. */
export function compiledEntries(entries, loader = "native") {
	if (loader === "jiti") return entries.map((file) => [file, false]);
	if (loader === "native-jiti") return [];
	return entries.filter((file) => !NATIVE.has(path.extname(file))).map((file) => [file, true]);
}

/** The entry's module under `loader`: {module, nativeError?} — nativeError when the native
 * attempt failed and jiti's fallback loaded it (native-jiti). `cache`: the plugin's jiti
 * compile cache. Throws what the loader throws. */
export async function importEntry(file, loader = "native", cache = undefined) {
	if (loader === "jiti") return { module: (await jitiFor(false, cache))(file) };
	if (loader === "native-jiti") {
		try {
			return { module: createRequire(file)(file) };
		} catch (nativeError) {
			return { module: (await jitiFor(true, cache))(file), nativeError };
		}
	}
	if (NATIVE.has(path.extname(file))) return { module: createRequire(file)(file) };
	return { module: await (await jitiFor(false, cache)).import(file) };
}

function unwrapDefault(value) {
	const seen = new Set();
	while (value && typeof value === "object" && "default" in value && !seen.has(value)) {
		seen.add(value);
		value = value.default;
	}
	return value;
}

/** {register, definition?, legacy?} or null when the module exports no register/activate. */
export function resolveExport(moduleExport) {
	const seen = new Set();
	const candidates = [unwrapDefault(moduleExport), moduleExport];
	for (let index = 0; index < candidates.length && index < 12; index += 1) {
		const value = candidates[index];
		if (seen.has(value)) continue;
		seen.add(value);
		if (typeof value === "function") return { register: value };
		if (!value || typeof value !== "object") continue;
		if (typeof value.register === "function") return { register: value.register, definition: value };
		if (typeof value.activate === "function") return { register: value.activate, definition: value, legacy: true };
		for (const key of ["default", "module"]) if (key in value) candidates.push(Reflect.get(value, key));
	}
	return null;
}
