#!/usr/bin/env node
// Builds the sidecar's bundled modules after `npm ci` (`gateway setup` runs it): TypeBox,
// which loads as ~690 files (84–138 ms, most of a Pi package's start), becomes one module per
// entry point of its `exports` map, sharing chunks, so one copy of its state exists whichever
// subpath is imported. The Pi host loads it in TypeBox's place (lib/pi/modules.mjs) when
// its manifest names the installed TypeBox version.
//
// Usage: node bundle.mjs   (writes node_modules/.gateway/typebox/, replacing what was there)

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

/** The folder of the package.json above `file` (TypeBox does not export its package.json). */
function packageRoot(file) {
	let folder = path.dirname(file);
	while (!fs.existsSync(path.join(folder, "package.json")) && path.dirname(folder) !== folder) folder = path.dirname(folder);
	return folder;
}

async function bundleTypebox(esbuild) {
	const root = packageRoot(fileURLToPath(import.meta.resolve("typebox")));
	const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"));
	const entries = {};
	for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
		const file = typeof target === "string" ? target : (target.import ?? target.default);
		if (typeof file !== "string" || subpath.includes("*")) continue;
		entries[subpath === "." ? "index" : subpath.slice(2).replaceAll("/", "-")] = path.join(root, file);
	}
	const out = path.join(here, "node_modules", ".gateway", "typebox");
	fs.rmSync(out, { recursive: true, force: true });
	await esbuild.build({
		entryPoints: entries,
		outdir: out,
		bundle: true,
		splitting: true,
		format: "esm",
		platform: "node",
		outExtension: { ".js": ".mjs" },
		legalComments: "inline",
		logLevel: "warning",
	});
	const files = Object.fromEntries(Object.entries(entries).map(([name, file]) => [path.relative(root, file), `${name}.mjs`]));
	const written = { version: manifest.version, entries: files };
	fs.writeFileSync(path.join(out, "manifest.json"), `${JSON.stringify(written, null, 2)}\n`);
	return `TypeBox ${manifest.version}: ${Object.keys(files).length} entry points in ${fs.readdirSync(out).length - 1} files`;
}

let esbuild;
try {
	esbuild = await import("esbuild");
} catch (error) {
	process.stderr.write(`cannot bundle: esbuild is not installed (${error.code ?? error.message}); run npm ci\n`);
	process.exit(1);
}
process.stdout.write(`${await bundleTypebox(esbuild)}\n`);
