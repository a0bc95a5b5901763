// Extension Gateway — runs one call of a bundled Nu tool (docs/nu.md, "Tools").
//
// The gateway starts a fresh Node per call with this code as `--eval` and the bundle as
// the only argument, under Node's permission model: read access to the bundle (and the
// call's private folder), write access to that folder alone, no child processes, no
// workers, no addons. So the code here is not a file the tool could read.
//
// stdin: {args, config}. The bundle's default export is called with (args, config).
// stdout: one JSON document in MCP's CallToolResult shape, {content: [...], isError}:
// a `{content: [...]}` the tool returned is kept as it is, any other value becomes one
// text part holding its JSON text, and a thrown error an error result with its message.
// Whatever the tool itself prints goes to stderr (the gateway's per-package log).

import { pathToFileURL } from "node:url";

const protocolWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, encoding, callback) => process.stderr.write(chunk, encoding, callback);
for (const method of ["log", "info", "debug"]) console[method] = (...items) => console.error(...items);

function readStdin() {
	return new Promise((resolve, reject) => {
		const chunks = [];
		process.stdin.on("data", (chunk) => chunks.push(chunk));
		process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
		process.stdin.on("error", reject);
	});
}

function text(value) {
	return { content: [{ type: "text", text: value }], isError: false };
}

function failure(error) {
	const message = error instanceof Error ? error.message : String(error);
	return { content: [{ type: "text", text: message || String(error) }], isError: true };
}

function shape(value) {
	if (value && typeof value === "object" && Array.isArray(value.content)) {
		return { content: value.content, isError: value.isError === true };
	}
	return text(JSON.stringify(value) ?? "null");
}

async function call() {
	const { args, config } = JSON.parse(await readStdin());
	const bundle = await import(pathToFileURL(process.argv[1]).href);
	if (typeof bundle.default !== "function") {
		return failure(new Error("the tool's module has no default export function"));
	}
	try {
		return shape(await bundle.default(args ?? {}, config ?? {}));
	} catch (error) {
		return failure(error);
	}
}

let result;
try {
	result = await call();
} catch (error) {
	result = failure(error);
}
let line;
try {
	line = JSON.stringify(result);
} catch (error) {
	line = JSON.stringify(failure(new Error(`the result cannot be sent as JSON: ${error?.message ?? error}`)));
}
// Timers or sockets the tool left open must not keep the call alive: done is done.
protocolWrite(`${line}\n`, () => process.exit(0));
