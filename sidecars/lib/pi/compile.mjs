// Compile only (`sidecar.mjs --compile`, run when a package is installed): compile, into the
// package's jiti cache, every module jiti would compile when pi's loader imports the
// package's extensions (each with `jiti.import`) — and run none of them (../jiti-compile.mjs
// walks jiti's rules). Pi's host packages are the sidecar's and are not compiled.

import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { compileModules, freshCache } from "../jiti-compile.mjs";
import { createJiti } from "./jiti.mjs";

const HOST_PACKAGES = /^(@earendil-works\/pi-|@mariozechner\/pi-|typebox(\/|$)|@sinclair\/typebox(\/|$))/;

/** Compile one package's modules into `cache`; returns {compiled, failed}. */
export function compilePackage(pkg, cache) {
	const root = fs.realpathSync(pkg.root);
	const jiti = createJiti(pathToFileURL(path.join(root, "_index.js")).href, { moduleCache: false, fsCache: cache });
	return compileModules(jiti, root, pkg.entries.map((entry) => [entry, true]), { skip: HOST_PACKAGES });
}

/** Compile every Pi package of the spec that names a cache: {id: {compiled, failed}}. */
export function compileAll(spec) {
	const packages = {};
	for (const pkg of spec.packages ?? []) {
		if (!pkg.cache || (pkg.host ?? "pi") !== "pi") continue;
		freshCache(pkg.cache);
		packages[pkg.id] = compilePackage(pkg, pkg.cache);
	}
	return packages;
}
