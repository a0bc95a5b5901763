#!/usr/bin/env node
// Extension Gateway — bundles the tools of one Nu package at install (docs/nu.md, "Tools").
//
// Usage: node nu-bundle.mjs < {root, tools: [{name, entry}]}
// Prints {tools: {name: {ok: true, code, inputs: [relative paths]} |
//                       {ok: false, kind: "outside" | "failed", message, imports?: [...]}}}
//
// Each tool is bundled with everything it imports by esbuild (pinned in package.json; its
// platform binary comes as an optional npm dependency, so `npm ci --ignore-scripts` is
// enough). Nothing of the package runs: esbuild reads and transforms its files. Every import
// must resolve inside the package root (symlinks resolved); an import that leaves it fails
// that tool alone, naming the import. Node's built-in modules stay imports. Paths in the
// output are relative to the package root, so the same sources give the same bundle
// wherever the package was staged.

import fs from "node:fs";
import { isBuiltin } from "node:module";
import path from "node:path";
import * as esbuild from "esbuild";

const PLUGIN = "nu-inside-package";
// Types for tools come from @rebuno/nu-types (sidecars/nu-types/), which has no runtime
// values: a value import of it bundles as an empty module.
const TYPES = "@rebuno/nu-types";
// An ESM bundle of CommonJS code calls `require` for Node's built-ins; esbuild's shim
// throws unless a real `require` exists.
const BANNER = 'import { createRequire as __nuCreateRequire } from "node:module";\nconst require = __nuCreateRequire(import.meta.url);';

function readStdin() {
	return new Promise((resolve, reject) => {
		const chunks = [];
		process.stdin.on("data", (chunk) => chunks.push(chunk));
		process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
		process.stdin.on("error", reject);
	});
}

/** `file` with symlinks resolved, as far as it exists (the rest appended as written). */
function realish(file) {
	const rest = [];
	let current = path.resolve(file);
	for (;;) {
		try {
			return path.join(fs.realpathSync(current), ...rest.reverse());
		} catch {
			const parent = path.dirname(current);
			if (parent === current) return path.resolve(file);
			rest.push(path.basename(current));
			current = parent;
		}
	}
}

function insideOf(root) {
	const real = fs.realpathSync(root);
	return (file) => {
		const resolved = realish(file);
		return resolved === real || resolved.startsWith(real + path.sep);
	};
}

function insidePackage(root, outside) {
	const inside = insideOf(root);
	return {
		name: PLUGIN,
		setup(build) {
			build.onLoad({ filter: /.*/, namespace: "nu-types" }, () => ({ contents: "export {};", loader: "js" }));
			build.onResolve({ filter: /.*/ }, async (args) => {
				if (args.pluginData?.nuInner || args.kind === "entry-point") return undefined;
				if (args.path === TYPES) return { path: TYPES, namespace: "nu-types" };
				if (isBuiltin(args.path)) return { path: args.path, external: true };
				const found = await build.resolve(args.path, {
					kind: args.kind,
					resolveDir: args.resolveDir,
					importer: args.importer,
					pluginData: { nuInner: true },
					with: args.with,
				});
				const from = path.relative(root, args.importer) || args.importer;
				const leaves = () => {
					outside.push(args.path);
					return { errors: [{ text: `import "${args.path}" in ${from} leaves the package` }] };
				};
				// A path that points outside leaves the package whether or not a file is there
				// (the package is staged elsewhere at install, so usually none is).
				const pathLike = args.path.startsWith(".") || path.isAbsolute(args.path);
				if (pathLike && !inside(path.resolve(args.resolveDir, args.path))) return leaves();
				if (found.errors.length) return { errors: found.errors };
				if (found.external || found.namespace !== "file" || !inside(found.path)) return leaves();
				return { path: found.path, namespace: found.namespace, sideEffects: found.sideEffects, suffix: found.suffix };
			});
		},
	};
}

function message(error) {
	const first = error?.errors?.[0];
	if (!first) return String(error?.message ?? error);
	const where = first.location ? `${first.location.file}:${first.location.line}: ` : "";
	return `${where}${first.text}`;
}

async function bundle(root, tool) {
	const outside = [];
	try {
		const result = await esbuild.build({
			entryPoints: [path.resolve(root, tool.entry)],
			absWorkingDir: root,
			bundle: true,
			format: "esm",
			platform: "node",
			target: "node22",
			outfile: "bundle.mjs",
			write: false,
			metafile: true,
			logLevel: "silent",
			banner: { js: BANNER },
			plugins: [insidePackage(root, outside)],
		});
		const code = result.outputFiles.find((file) => file.path.endsWith(".mjs"))?.text ?? "";
		return { ok: true, code, inputs: Object.keys(result.metafile.inputs).sort() };
	} catch (error) {
		if (outside.length) return { ok: false, kind: "outside", message: message(error), imports: [...new Set(outside)] };
		return { ok: false, kind: "failed", message: message(error) };
	}
}

const request = JSON.parse(await readStdin());
const root = path.resolve(request.root);
const results = await Promise.all(request.tools.map((tool) => bundle(root, tool)));
const tools = Object.fromEntries(request.tools.map((tool, index) => [tool.name, results[index]]));
process.stdout.write(`${JSON.stringify({ tools })}\n`);
await esbuild.stop?.();
