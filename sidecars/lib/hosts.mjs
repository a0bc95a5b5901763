// The hosts of one sidecar process and what they offer together. A spec may mix Pi packages,
// OpenClaw plugins and Nu extension modules (each package names its host); each host loads its own packages with
// its ecosystem's rules, and this module routes requests to them: a tool or command to the
// host that registered it (registration.mjs keeps the routes: the first host in spec order
// keeps a name two hosts register), an event to every host that subscribes, folding their
// replies by the canonical event's rule.
//
// A host is {ecosystem, tools() -> [ToolSpec], callTool(name, message, signal),
// commands() -> [{name, description}], runCommand(name, message, signal, current),
// events() -> [canonical names], onEvent(event, payload, signal, message) -> reply}, and
// optionally owner(kind, name) -> package id, eventOwners() -> {event: [package ids]} (then its
// onEvent runs only the packages of `message.gateway.package` when given), skills() ->
// [{name, description, path, package}]. A host without owner/eventOwners has everything it
// registers attributed to its package when it has only one (negotiated `register.owners`).

import { recording, startRecording } from "./audit/record.mjs";
import { diagnostic } from "./diagnostics.mjs";
import { FEATURE, offered } from "./features.mjs";
import { eventOwnersOf } from "./registration.mjs";
import { log } from "./stdio.mjs";

// Imported lazily: a Pi-only sidecar never loads the OpenClaw host, and the reverse.
const HOSTS = {
	pi: { load: () => import("./pi/host.mjs"), failed: "pi.load_failed" },
	openclaw: { load: () => import("./openclaw/host.mjs"), failed: "openclaw.load_failed" },
	nu: { load: () => import("./nu/host.mjs"), failed: "nu.load_failed" },
};

/** The reply rule of each canonical event a host answers, as gateway/model/events.py declares it
 * (tests/sidecars/test_names.py keeps them equal). Used when several hosts subscribe. */
export const FOLD = Object.freeze({
	tool_call: { gate: true, chain: ["arguments"] },
	tool_result: { chain: ["output", "is_error"] },
	session_before_compact: { gate: true, append: ["instruction"], replace: ["compaction"] },
	input: { chain: ["text"], collect: ["action"], stop: ["action", "handled"] },
	before_agent_start: { chain: ["system_prompt", "prompt"], collect: ["messages"] },
	context: { chain: ["messages"] },
	message_sending: { gate: true, chain: ["text"] },
});

export async function loadHosts(state) {
	if (recording()) startRecording(state); // `gateway audit --load` only (audit/record.mjs)
	const groups = new Map();
	for (const pkg of state.spec.packages ?? []) {
		const name = pkg.host ?? "pi";
		if (!groups.has(name)) groups.set(name, []);
		groups.get(name).push(pkg);
	}
	for (const [name, packages] of groups) {
		const kind = Object.hasOwn(HOSTS, name) ? HOSTS[name] : null;
		if (!kind) {
			log(`packages ${packages.map((p) => p.id).join(", ")}: unknown host ${name}; not loaded`);
			continue;
		}
		try {
			const { loadHost } = await kind.load();
			const host = await loadHost(state, packages);
			host.packageIds = packages.map((p) => p.id);
			state.hosts.push(host);
		} catch (error) {
			diagnostic(state, kind.failed, `sidecar failed to load packages: ${error?.stack ?? error}`);
		}
	}
}

export async function callTool(state, message, signal) {
	const route = state.routes.tools.get(message.name);
	if (!route) return { content: `Tool ${message.name} not found`, is_error: true };
	return route.host.callTool(message.name, message, signal);
}

export async function runCommand(state, message, signal, current) {
	const route = state.routes.commands.get(message.name);
	if (!route) return { message: `Unknown command /${message.name}` };
	return route.host.runCommand(message.name, message, signal, current);
}

export async function dispatchEvent(state, message, signal) {
	const target = message.gateway?.package;
	const subscribed = state.hosts.filter((host) => host.events().includes(message.event));
	// With `register.owners`, an event a host attributes to its packages comes addressed to
	// one of them (only that package's handlers run); an event without an address runs the
	// handlers nobody attributes.
	const hosts =
		target !== undefined
			? subscribed.filter((host) => (eventOwnersOf(host)[message.event] ?? []).includes(target))
			: offered(state, FEATURE.owners)
				? subscribed.filter((host) => !(message.event in eventOwnersOf(host)))
				: subscribed;
	return foldOrOne(hosts, message, signal);
}

function foldOrOne(hosts, message, signal) {
	const payload = message.payload ?? {};
	if (hosts.length === 1) return hosts[0].onEvent(message.event, payload, signal, message);
	return fold(hosts, message, { ...payload }, signal);
}

async function fold(hosts, message, payload, signal) {
	const rule = FOLD[message.event] ?? {};
	const reply = {};
	for (const host of hosts) {
		const part = (await host.onEvent(message.event, { ...payload }, signal, message)) ?? {};
		for (const field of rule.chain ?? []) {
			if (part[field] === undefined) continue;
			payload[field] = part[field];
			reply[field] = part[field];
		}
		for (const field of rule.append ?? []) {
			if (!part[field]) continue;
			payload[field] = payload[field] ? `${payload[field]}\n${part[field]}` : part[field];
			reply[field] = reply[field] ? `${reply[field]}\n${part[field]}` : part[field];
		}
		for (const field of rule.replace ?? []) if (part[field] !== undefined) reply[field] = part[field];
		for (const field of rule.collect ?? []) {
			if (part[field] === undefined) continue;
			reply[field] = Array.isArray(part[field]) ? [...(reply[field] ?? []), ...part[field]] : part[field];
		}
		if (rule.gate && part.allow === false) {
			// A block is terminal in Pi and in OpenClaw: later hosts are not asked.
			reply.allow = false;
			reply.reason = part.reason || "blocked by extension";
			break;
		}
		if (rule.stop && part[rule.stop[0]] === rule.stop[1]) {
			reply[rule.stop[0]] = rule.stop[1];
			break;
		}
	}
	return reply;
}
