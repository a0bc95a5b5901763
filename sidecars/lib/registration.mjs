// What the sidecar registers with the host: which host serves each tool and command name (the
// first host in spec order keeps a name two hosts register), who registered each (negotiated
// `register.owners`), and the `register` message and its later `registration.update`s. The
// host objects are the ones hosts.mjs loads (it describes them); their modules announce what
// they register late through sendRegistrationDelta, so this module imports no host: they sit
// above it, and hosts.mjs above them.

import { recordReport } from "./audit/record.mjs";
import { diagnostic, wireDiagnostic } from "./diagnostics.mjs";
import { FEATURE, offered } from "./features.mjs";
import { log } from "./stdio.mjs";
import { update } from "./wire.mjs";

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

/** Canonical event -> the ids of the packages a host attributes it to. */
export function eventOwnersOf(host) {
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
	if (offered(state, FEATURE.flags)) {
		const flags = state.hosts.flatMap((host) => host.flags?.() ?? []);
		if (flags.length) extras.flags = flags;
	}
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
