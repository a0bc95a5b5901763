// Compile only (`sidecar.mjs --compile`, run when a plugin is installed): compile, into the
// plugin's jiti cache, what ./loader.mjs would have jiti compile when it loads the plugin's
// entries under the plugin's loader — and run none of it (../jiti-compile.mjs walks jiti's
// rules, with the loader's own jiti options):
//   "jiti"        every entry, required synchronously through jiti's transform;
//   "native"      a TypeScript entry only (imported through jiti); built JS loads natively;
//   "native-jiti" nothing: jiti runs only when a native require fails, which only running
//                 the plugin tells; such a plugin's first failing start fills the cache.
// `openclaw` (the pinned SDK) is one of jiti's nativeModules there and is not compiled; the
// root barrel, which ./sdk.mjs's module hook sends to ./sdk-root.mjs, is (jiti transforms that
// module of the host's when a plugin's compiled code requires it, into the plugin's cache).

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { compileModules, freshCache } from "../jiti-compile.mjs";
import { compiledEntries, jitiOptions } from "./loader.mjs";
import { ROOT_SHIM_FILE, sdkSubpath } from "./sdk.mjs";

const HOST_PACKAGES = /^(openclaw|@openclaw\/plugin-sdk)(\/|$)/; // ./sdk.mjs serves them

/** Compile every OpenClaw plugin of the spec that names a cache: {id: {compiled, failed}}. */
export async function compileAll(spec) {
	const packages = {};
	for (const pkg of spec.packages ?? []) {
		if (!pkg.cache || pkg.host !== "openclaw") continue;
		freshCache(pkg.cache);
		const root = fs.realpathSync(pkg.root);
		const { createJiti } = await import("jiti");
		const jiti = createJiti(pathToFileURL(path.join(root, "_index.js")).href, { ...jitiOptions(false, pkg.cache), moduleCache: false });
		packages[pkg.id] = compileModules(jiti, root, compiledEntries(pkg.entries, pkg.loader), {
			skip: HOST_PACKAGES,
			redirect: (specifier) => (sdkSubpath(specifier) === "" ? ROOT_SHIM_FILE : null),
		});
	}
	return packages;
}
