// The protocol's stdio, kept away from package code. The entry imports this module first,
// before any package code loads.
//
// Stdout is the protocol: one stray write from a package would corrupt it, and a child process
// that inherits it would hold it open after a crash (the host would never see the exit). So
// the protocol moves to private descriptors opened close-on-exec, fd 1 becomes the log
// (stderr, which the host drains into the package's log) and fd 0 /dev/null: console.log,
// process.stdout, fs.writeSync(1, …) and children inheriting stdio all land in the log, and
// no child ever holds a protocol pipe.
//
// Node has no dup(2); two ways get there (the same as adapters/nanobot/sidecar/_channel.py):
// - launched by the gateway (`--protocol-fds=R,W`): a shell moved the protocol to R and W
//   and pointed fd 0 at /dev/null and fd 1 at stderr before exec'ing Node, with no path
//   access (a confined child may not reopen its log file); R and W are reopened here
//   close-on-exec through /proc/self/fd (allowed for pipes) and closed;
// - launched bare (a nimlet host running the sidecar): fds 0 and 1 are reopened the same
//   way, then 0 is pointed at /dev/null and 1 at stderr by reusing the lowest free descriptor.
// Where reopening is impossible (sockets, no /proc), the descriptors are kept as they are and
// the log says so.

import fs from "node:fs";
import net from "node:net";

const { O_RDONLY, O_WRONLY, O_APPEND } = fs.constants;
const FD_DIR = process.platform === "linux" ? "/proc/self/fd" : "/dev/fd";

/** A line for the gateway's per-package log. */
export function log(...args) {
	try {
		fs.writeSync(2, `[sidecar] ${args.join(" ")}\n`);
	} catch {
		// stderr gone: nowhere left to say it
	}
}

function reopen(fd, flags) {
	try {
		return fs.openSync(`${FD_DIR}/${fd}`, flags); // libuv opens close-on-exec
	} catch (error) {
		log(`cannot reopen descriptor ${fd} privately (${error.code}); child processes may inherit it`);
		return null;
	}
}

/** Point `fd` at `path`: close it, and the next open takes the lowest free number, `fd`. */
function repoint(fd, path, flags) {
	fs.closeSync(fd);
	const got = fs.openSync(path, flags);
	if (got !== fd) log(`descriptor ${fd} could not be repointed at ${path} (got ${got})`);
}

function repointOrNull(fd, path, flags) {
	try {
		repoint(fd, path, flags);
	} catch (error) {
		// A confined process may not reopen its log file: discard rather than corrupt.
		log(`descriptor ${fd} goes to /dev/null: ${path} cannot be opened (${error.code})`);
		try {
			fs.openSync("/dev/null", flags & ~O_APPEND);
		} catch {
			// left closed: writes to it fail, reads see an error; neither reaches the protocol
		}
	}
}

function take(argv) {
	const flag = argv.find((arg) => arg.startsWith("--protocol-fds="));
	const given = flag?.slice("--protocol-fds=".length).split(",").map(Number);
	const [inFd, outFd] = given?.length === 2 && given.every(Number.isInteger) ? given : [0, 1];
	const read = reopen(inFd, O_RDONLY);
	const write = reopen(outFd, O_WRONLY | O_APPEND);
	if (read === null || write === null) {
		for (const fd of [read, write]) if (fd !== null) fs.closeSync(fd);
		if (inFd === 0) patchStdout();
		return { read: inFd, write: outFd };
	}
	if (inFd === 0) {
		repointOrNull(0, "/dev/null", O_RDONLY);
		repointOrNull(1, `${FD_DIR}/2`, O_WRONLY | O_APPEND);
	} else {
		fs.closeSync(inFd);
		fs.closeSync(outFd);
	}
	return { read, write };
}

// Last resort, when fd 1 must stay the protocol: what package code writes through Node's own
// stdout object goes to stderr (fd-level writes still reach the host, which skips them).
function patchStdout() {
	process.stdout.write = (chunk, encoding, callback) => process.stderr.write(chunk, encoding, callback);
	for (const method of ["log", "info", "debug"]) console[method] = (...args) => console.error(...args);
}

const channel = take(process.argv.slice(2));

/** The command-line arguments without the sidecar's own flags. */
export const args = process.argv.slice(2).filter((arg) => !arg.startsWith("--protocol-fds="));

function jsonSafe(_key, value) {
	if (typeof value === "bigint") return value.toString();
	if (typeof value === "function" || typeof value === "symbol") return undefined;
	return value;
}

/** Write one protocol message (one JSON line). Blocking, as Node's stdout is on a pipe: the
 * host drains the protocol continuously. */
export function send(message) {
	const text = `${JSON.stringify(message, jsonSafe)}\n`;
	const size = Buffer.byteLength(text);
	let data; // the bytes, once a line takes more than one write
	let written = 0;
	while (written < size) {
		try {
			written += data ? fs.writeSync(channel.write, data, written) : fs.writeSync(channel.write, text);
		} catch (error) {
			if (error.code !== "EAGAIN") throw error;
			Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1); // a full pipe
		}
		if (written < size) data ??= Buffer.from(text);
	}
}

/** The protocol's input as a readable stream (a pipe read through the event loop; a file, as
 * when replaying a recorded session, through plain reads). */
export function protocolInput() {
	try {
		return new net.Socket({ fd: channel.read, readable: true, writable: false });
	} catch {
		return fs.createReadStream(null, { fd: channel.read, autoClose: false });
	}
}
