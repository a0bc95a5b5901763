#!/usr/bin/env node
// Extension Gateway — the Node sidecar: a nimlet-protocol extension (JSON lines on stdin and
// stdout, plus the negotiated additions of docs/protocol.md) that hosts Pi packages, OpenClaw
// plugins and Nu extension modules, any mix of them, in one process. See docs/pi.md,
// docs/openclaw.md and docs/nu.md.
//
// Usage: node sidecar.mjs [--protocol-fds=R,W] [--compile] '<json spec>'
//   spec = {packages: [{id, root, entries: [absolute paths], host?: "pi" (default) | "openclaw"
//           | "nu", cache?: jiti's compile cache folder of a Pi package or OpenClaw plugin,
//           ...what the host needs: docs/openclaw.md and docs/nu.md list the fields}]}
//   --compile: compile what jiti would compile of the Pi packages and OpenClaw plugins into
//   their caches, run none of it, print one JSON line and exit (lib/pi/compile.mjs,
//   lib/openclaw/compile.mjs; run when a package is installed).
//
// The modules: lib/stdio.mjs (the protocol's private descriptors; imported first),
// lib/state.mjs (the one state object), lib/wire.mjs (the protocol), lib/features.mjs (negotiated features),
// lib/registration.mjs (what the hosts registered, and the `register` message), lib/hosts.mjs
// (loading the hosts, routing across them), lib/pi/, lib/openclaw/ and lib/nu/ (the hosts).

import { args, log, send } from "./lib/stdio.mjs";
import { diagnostic } from "./lib/diagnostics.mjs";
import { callTool, dispatchEvent, loadHosts, runCommand } from "./lib/hosts.mjs";
import { registerMessage } from "./lib/registration.mjs";
import { createState } from "./lib/state.mjs";
import { listen } from "./lib/wire.mjs";

// Node read the compile cache setup wrote (NODE_COMPILE_CACHE, adapters/_sidecars.py) when it
// started; processes the packages start do not inherit it.
delete process.env.NODE_COMPILE_CACHE;

let spec;
try {
	spec = JSON.parse(args.find((arg) => !arg.startsWith("--")) ?? "{}");
} catch (error) {
	log(`the spec argument is not JSON: ${error.message}`);
	spec = { packages: [] };
}
if (args.includes("--compile")) {
	const hosts = new Set((spec.packages ?? []).map((pkg) => pkg.host ?? "pi"));
	const pi = hosts.has("pi") ? (await import("./lib/pi/compile.mjs")).compileAll(spec) : {};
	const openclaw = hosts.has("openclaw") ? await (await import("./lib/openclaw/compile.mjs")).compileAll(spec) : {};
	send({ type: "compiled", packages: { ...pi, ...openclaw } });
	process.exit(0);
}
const state = createState(spec, send);

const loaded = loadHosts(state).catch((error) => {
	diagnostic(state, "pi.load_failed", `sidecar failed to load packages: ${error?.stack ?? error}`);
});

const SERVE = { tool: callTool, command: runCommand, event: dispatchEvent };

listen(state, {
	loaded,
	register() {
		send(registerMessage(state));
		state.registered = true;
		for (const host of state.hosts) host.registered?.();
	},
	serve: (message, signal, current) => SERVE[message.type](state, message, signal, current),
});
