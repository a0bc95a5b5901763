// The hosts of one sidecar process and what they offer together. A spec may mix Pi packages,
// OpenClaw plugins and Nu extension modules (each package names its host); each host loads its own packages with
// its ecosystem's rules, and this module routes requests to them: a tool or command to the
// host that registered it (the first host in spec order keeps a name two hosts register),
// an event to every host that subscribes, folding their replies by the canonical event's rule.
//
// A host is {ecosystem, tools() -> [ToolSpec], callTool(name, message, signal),
// commands() -> [{name, description}], runCommand(name, message, signal, current),
// events() -> [canonical names], onEvent(event, payload, signal, message) -> reply}, and
// optionally owner(kind, name) -> package id, eventOwners() -> {event: [package ids]} (then its
// onEvent runs only the packages of `message.gateway.package` when given), skills() ->
// [{name, description, path, package}]. A host without owner/eventOwners has everything it
// registers attributed to its first package (negotiated `register.owners`).

import { recordReport, recording, startRecording } from "./audit/record.mjs";
import { diagnostic, wireDiagnostic } from "./diagnostics.mjs";
import { FEATURE, offered } from "./features.mjs";
import { log } from "./stdio.mjs";
import { update } from "./wire.mjs";

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

/** Which host serves each tool and command name now. */
function refreshRoutes(state) {
	const tools = new Map();
	const commands = new Map();
	for (const host of state.hosts) {
		for (const spec of host.tools()) claim(state, tools, spec.name, { host, spec }, "tool");
		for (const command of host.commands()) claim(state, commands, command.name, { host, command }, "command");
	}
	state.routes = { tools, commands };
}

function claim(state, routes, name, route, kind) {
	const owner = routes.get(name);
	if (!owner) {
		routes.set(name, route);
		return;
	}
	const key = `${kind}:${name}:${route.host.ecosystem}`;
	if (state.reported.has(key)) return;
	state.reported.add(key);
	const message = `${kind} "${name}" of the ${route.host.ecosystem} host is already registered by the ${owner.host.ecosystem} host in this sidecar; the first keeps it`;
	diagnostic(state, "sidecar.name_conflict", message, name);
}

// A host that cannot say which of its packages did something: only a host of one package
// attributes it; otherwise it stays with the process (its events then run every handler).
const sole = (host) => (host.packageIds.length === 1 ? host.packageIds[0] : undefined);

function eventOwnersOf(host) {
	if (host.eventOwners) return host.eventOwners();
	const only = sole(host);
	return only === undefined ? {} : Object.fromEntries(host.events().map((event) => [event, [only]]));
}

/** Which package registered each tool and command, and which packages subscribe to each event. */
function owners(state, withEvents) {
	const of = (kind, routes) =>
		Object.fromEntries(
			[...routes]
				.map(([name, { host }]) => [name, host.owner?.(kind, name) ?? sole(host)])
				.filter(([, owner]) => owner !== undefined),
		);
	const found = { tools: of("tool", state.routes.tools), commands: of("command", state.routes.commands) };
	if (!withEvents) return found;
	found.events = {};
	for (const host of state.hosts) {
		for (const [event, ids] of Object.entries(eventOwnersOf(host))) {
			found.events[event] = [...new Set([...(found.events[event] ?? []), ...ids])];
		}
	}
	return found;
}

function commandSpecs(state) {
	return [...state.routes.commands.values()].map(({ command }) => ({ name: command.name, description: command.description ?? "" }));
}

export function registerMessage(state) {
	refreshRoutes(state);
	const tools = [...state.routes.tools.values()].map((route) => route.spec);
	const events = [...new Set(state.hosts.flatMap((host) => host.events()))];
	const register = { type: "register", commands: commandSpecs(state), tools, events };
	const extras = {};
	if (offered(state, FEATURE.diagnostics) && state.diagnostics.length) {
		extras.diagnostics = state.diagnostics.map((item) => wireDiagnostic(state, item));
	}
	if (offered(state, FEATURE.owners)) extras.owners = owners(state, true);
	if (Object.keys(extras).length) register.gateway = extras;
	if (state.record) register.gateway = { ...register.gateway, record: recordReport(state) };
	return register;
}

/** Tell the host the complete current tools, commands and skills (negotiated
 * `registration.update`; with `register.owners`, who registered each). */
export function sendRegistrationDelta(state) {
	if (!state.registered) return;
	refreshRoutes(state);
	if (!offered(state, FEATURE.registrationUpdate)) {
		log("tools, commands or skills changed after register; the host did not negotiate registration.update");
		return;
	}
	const tools = [...state.routes.tools.values()].map((route) => route.spec);
	const registration = { tools, active: tools.map((t) => t.name), commands: commandSpecs(state) };
	const skills = state.hosts.flatMap((host) => host.skills?.() ?? []);
	const attributed = offered(state, FEATURE.owners);
	if (skills.length) registration.skills = skills.map(({ package: pkg, ...skill }) => (attributed ? { ...skill, package: pkg } : skill));
	if (attributed) registration.owners = owners(state, false);
	update(state, { gateway: { registration } });
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
