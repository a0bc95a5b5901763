// Stands in for pi's `core/extensions/jiti-loader.js` (modules.mjs redirects the loader's
// import here): pi's own jiti, with its compile cache in the folder of the package being
// loaded. jiti keys its cache by file path and checks each entry against the source's hash,
// so a package compiled at install (compile.mjs, the same options) starts from the cache
// the first time it runs.

import { createJiti as upstream } from "jiti";

let cacheDir;

/** Where the next extensions' compiled modules are cached (undefined: jiti's default). */
export function useCache(dir) {
	cacheDir = dir;
}

export function createJiti(id, options = {}) {
	return upstream(id, cacheDir ? { ...options, fsCache: cacheDir } : options);
}
