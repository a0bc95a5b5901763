// Compile only, for a host that loads packages through jiti (lib/pi/compile.mjs,
// lib/openclaw/compile.mjs; `sidecar.mjs --compile`, run when a package is installed):
// compile into a package's jiti cache every module jiti would compile when the host loads the
// package's entries — and run none of them. jiti keys its cache by file path (a fresh install
// is a new path: every first start would miss it) and checks each entry against the source's
// hash, so what is compiled here is what the first start reads.
//
// The walk follows jiti's own rules (jiti 2.7, dist/jiti.cjs: jitiRequire, eval_evalModule):
// a file is compiled when it is not `.cjs`, is not native ESM imported asynchronously, and is
// TypeScript, ESM, or has ESM syntax; its compiled code names its imports as
// `jitiImport("…")` (asynchronous) and `require("…")` (synchronous), which are followed.
// Only files inside the package are read; builtins, the host's own packages (`skip`) and what
// the package imports natively are not compiled by jiti and are skipped. Over-approximating
// (a dynamic import never taken) only compiles a module early.

import fs from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const MAX_FILES = 5000;
const MAX_BYTES = 8 * 1024 * 1024;
// jiti's hasESMSyntax.
const ESM_SYNTAX = /(?:[\s;]|^)(?:import[\s\w*,{}]*from|import\s*["'*{]|export\b\s*(?:[*{]|default|class|type|function|const|var|let|async function)|import\.meta\b)/m;
const IMPORTS = /\b(jitiImport|require)\(\s*(["'])([^"'\n]+)\2\s*\)/g;
const EXTENSIONS = new Set([".js", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".mtsx", ".ctsx"]);

function packageType(file) {
	let folder = path.dirname(file);
	for (;;) {
		try {
			const text = fs.readFileSync(path.join(folder, "package.json"), "utf8");
			try {
				return JSON.parse(text)?.type;
			} catch {
				return undefined; // as jiti: an unreadable package.json ends the search
			}
		} catch {
			// no package.json here
		}
		const parent = path.dirname(folder);
		if (parent === folder) return undefined;
		folder = parent;
	}
}

function transpiled(file, source, async) {
	const ext = path.extname(file);
	const ts = /\.[cm]?tsx?$/.test(ext);
	const esm = ext === ".mjs" || (ext === ".js" && packageType(file) === "module");
	return ext !== ".cjs" && !(esm && async) && (ts || esm || ESM_SYNTAX.test(source));
}

/** Compile, with `jiti` (made with the host's options and `fsCache`), the modules reached
 * from `queue` ([file, async] pairs: how the host loads each entry) inside `root`, skipping
 * specifiers `skip` matches; `redirect(specifier)`: the host's own module a specifier loads
 * instead (its module hook's), compiled too though outside `root`. Returns
 * {compiled, failed}. */
export function compileModules(jiti, root, queue, { skip, redirect = () => null }) {
	const seen = new Set();
	const found = { compiled: 0, failed: [] };
	while (queue.length && seen.size < MAX_FILES) {
		const [file, async, host = false] = queue.shift();
		const key = `${async}\0${file}`;
		if (seen.has(key)) continue;
		seen.add(key);
		let real;
		try {
			real = fs.realpathSync(file);
		} catch {
			continue;
		}
		if ((!host && !real.startsWith(root + path.sep)) || !EXTENSIONS.has(path.extname(real)) || /node_modules\/(typescript|jiti)\//.test(real)) continue;
		const stat = fs.statSync(real);
		if (!stat.isFile() || stat.size > MAX_BYTES) continue;
		const source = fs.readFileSync(real, "utf8");
		if (!transpiled(real, source, async)) continue;
		let code;
		try {
			code = jiti.transform({ filename: real, source, ts: /\.[cm]?tsx?$/.test(path.extname(real)), async, jsx: jiti.options.jsx });
		} catch {
			code = "__JITI_ERROR__";
		}
		if (code.includes("__JITI_ERROR__")) {
			found.failed.push(path.relative(root, real));
			continue;
		}
		found.compiled += 1;
		for (const [, how, , specifier] of code.matchAll(IMPORTS)) {
			const own = redirect(specifier);
			if (own) queue.push([own, how === "jitiImport", true]);
			if (own || specifier.startsWith("node:") || builtinModules.includes(specifier) || skip.test(specifier)) continue;
			const url = jiti.esmResolve(specifier, { parentURL: pathToFileURL(real).href, try: true, async: how === "jitiImport" });
			if (url?.startsWith("file:")) queue.push([fileURLToPath(url), how === "jitiImport"]);
		}
	}
	return found;
}

/** Empty the package's cache folder (what an older version compiled) and make it again. */
export function freshCache(cache) {
	fs.rmSync(cache, { recursive: true, force: true });
	fs.mkdirSync(cache, { recursive: true, mode: 0o700 });
}
