// stdout belongs to the protocol. The entry imports this module first, before any package
// code loads: plugin writes to stdout (console.log/info/debug, process.stdout.write) go to
// stderr, the gateway's per-package log, and protocol lines go through the original write
// function, which only this module holds. A package that writes to fd 1 directly
// (fs.writeSync(1, …)) still reaches stdout; the host skips that line (protocol.invalid_json).

const protocolWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, encoding, callback) => process.stderr.write(chunk, encoding, callback);
for (const method of ["log", "info", "debug"]) {
	console[method] = (...args) => console.error(...args);
}

function jsonSafe(_key, value) {
	if (typeof value === "bigint") return value.toString();
	if (typeof value === "function" || typeof value === "symbol") return undefined;
	return value;
}

/** Write one protocol message (one JSON line). */
export function send(message) {
	protocolWrite(`${JSON.stringify(message, jsonSafe)}\n`);
}

/** A line for the gateway's per-package log. */
export function log(...args) {
	process.stderr.write(`[sidecar] ${args.join(" ")}\n`);
}
