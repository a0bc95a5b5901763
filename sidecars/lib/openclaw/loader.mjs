// Loading an OpenClaw plugin entry and finding its `register`: built JS natively (ESM, or a
// CJS bundle), TypeScript sources with jiti (interopDefault), as OpenClaw does; then
// OpenClaw's `resolvePluginModuleExport` (src/plugins/module-export.ts): nested `default`s
// unwrapped, a function is `register`, an object with `register` is a definition, else its
// `default` / `module` (up to 12 candidates) — plus the legacy `activate` alias.

import path from "node:path";
import { pathToFileURL } from "node:url";

const NATIVE = new Set([".js", ".mjs", ".cjs"]);
let jiti = null;

export async function importEntry(file) {
	if (NATIVE.has(path.extname(file))) return import(pathToFileURL(file).href);
	if (!jiti) {
		const { createJiti } = await import("jiti");
		jiti = createJiti(import.meta.url, { interopDefault: true });
	}
	return jiti.import(file);
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
