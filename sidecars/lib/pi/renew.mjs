// A package's extensions made again for a new session, as pi does (docs/pi.md, "A new
// session"). Pi never keeps an extension across sessions: `/new`, `/resume` and `/fork`
// (AgentSessionRuntime.teardownCurrent, then createRuntime) emit `session_shutdown`, make the
// old `pi` and `ctx` stale, and load the extensions again with a new runtime: every factory
// runs again. Its loader keeps each extension's module between sessions in one cwd
// (`loadExtensionsCached`: the factory it imported first runs again; only `/reload` imports
// fresh modules), so module state lives on while what a factory sets up is new.
//
// Here: a session_end that reaches a package tears its instance down (its runtime is
// invalidated: pi's stale message for the old `pi` and `ctx`, its event-bus subscriptions
// dropped); the next request that reaches the package — the next session_start, or a tool,
// command or event when it does not subscribe to session_start — first makes its extensions
// again with pi's loader (its transactional load and error texts). A package that a
// session_end never reached keeps its instance (it tore nothing down): no cost.

import path from "node:path";
import { diagnostic } from "../diagnostics.mjs";
import { sendRegistrationDelta } from "../registration.mjs";
import { log } from "../stdio.mjs";
import { packageEvents } from "./dispatch.mjs";
import { useCache } from "./jiti.mjs";
import { activeToolSpecs, collectCommands, collectTools, quietRuntime } from "./registry.mjs";
import { bindRuntime } from "./runtime.mjs";

/** Load one package's extensions with pi's loader into a runtime of its own; its load
 * errors are `pi.load_failed`, as at the first load. */
export async function loadPackage(state, pi, record) {
	const { pkg } = record;
	const runtime = pi.loader.createExtensionRuntime();
	useCache(pkg.cache); // where this package's compiled modules are (compile.mjs)
	let result;
	try {
		result = await pi.loader.loadExtensionsCached(pkg.entries, process.cwd(), pi.loader.eventBus, runtime);
	} finally {
		useCache(undefined);
	}
	for (const error of result.errors) {
		const where = path.relative(pkg.root, error.path) || error.path;
		diagnostic(state, "pi.load_failed", `${where}: ${error.error}`, path.relative(pkg.root, error.path), pkg.id);
	}
	record.runtime = runtime;
	record.items = result.extensions.map((ext) => ({ ext, packageId: pkg.id, root: pkg.root, runtime }));
	pi.extensions = [...pi.packages.values()].flatMap((r) => r.items); // load order: the spec's
}

function recordsOf(pi, ids) {
	return [...pi.packages.values()].filter((record) => ids === undefined || ids.includes(record.pkg.id));
}

/** A session_end reached packages `ids` (undefined: all): their instances are torn down, as
 * after pi's teardownCurrent (and its quit). */
export function sessionEnded(pi, ids) {
	for (const record of recordsOf(pi, ids)) {
		record.ended = true;
		record.runtime?.invalidate(); // pi's stale message; its event-bus subscriptions dropped
	}
}

/** Before a request reaches packages `ids` (undefined: all): make again those a session_end
 * tore down. One renewal at a time (jiti's compile cache folder is the loader's global). */
export function renewEnded(state, pi, ids) {
	const due = recordsOf(pi, ids).filter((record) => record.ended);
	if (!due.length) return undefined;
	pi.renewing = pi.renewing.then(async () => {
		for (const record of due) {
			try {
				await renew(state, pi, record);
			} catch (error) {
				log(`renewing ${record.pkg.id} failed: ${error?.stack ?? error}`);
			}
		}
	});
	return pi.renewing;
}

// What the host knows of this process's Pi packages: active tools and commands.
function snapshot(state, pi) {
	const tools = activeToolSpecs(state, pi).sort((a, b) => a.name.localeCompare(b.name));
	const commands = [...pi.commands.entries()].map(([name, c]) => [name, c.command.description ?? "", c.packageId]).sort();
	return JSON.stringify({ tools, commands });
}

async function renew(state, pi, record) {
	if (!record.ended) return; // a request queued behind another renewed it
	const id = record.pkg.id;
	const [cpu, wall] = [process.cpuUsage(), performance.now()];
	const before = snapshot(state, pi);
	const events = packageEvents(state, record.items);
	record.ended = false;
	await loadPackage(state, pi, record);
	bindRuntime(state, pi, record.runtime);
	quietRuntime(record.runtime);
	for (const [name, tool] of [...pi.tools]) if (tool.packageId === id) pi.tools.delete(name);
	collectTools(state, pi, false, true);
	const prompts = [...pi.commands].filter(([, c]) => c.source === "prompt"); // resources_discover's
	pi.commands.clear();
	collectCommands(state, pi);
	for (const [name, command] of prompts) if (!pi.commands.has(name)) pi.commands.set(name, command);
	// Tools or commands that differ from the last instance's: the host is told (the complete
	// list, registration.update). Events cannot be: the host keeps the hooks of the first start.
	if (snapshot(state, pi) !== before) sendRegistrationDelta(state);
	const spent = process.cpuUsage(cpu);
	log(`renewed ${id} for a new session: ${(performance.now() - wall).toFixed(1)} ms, ${((spent.user + spent.system) / 1000).toFixed(1)} ms of CPU`);
	const gained = [...packageEvents(state, record.items)].filter((event) => !events.has(event));
	if (gained.length) {
		const message = `after a new session its extensions subscribe to ${gained.join(", ")}, which the first start did not; the host keeps the events of the first start, so those handlers run only after the package starts again`;
		diagnostic(state, "pi.renewal_events_changed", message, gained[0], id);
	}
}
