// What the Pi extensions of one host registered, with Pi's collision rules (the first tool in
// load order wins; every duplicate command gets a load-order suffix /name:1, /name:2) and the
// active tool set, and what a headless host reports as unsupported.

import path from "node:path";
import { diagnostic } from "../diagnostics.mjs";
import { FEATURE, offered } from "../features.mjs";
import { sendRegistrationDelta } from "../registration.mjs";
import { log } from "../stdio.mjs";
import { since } from "./versions.mjs";

export function unsupported(state, api, where, pkg) {
	diagnostic(state, "pi.unsupported_api", `${api} is not supported by a headless host${where ? ` (${where})` : ""}`, api, pkg);
}

/** The id of the package an extension file belongs to. */
export function packageOfPath(pi, extensionPath) {
	return pi.extensions.find(({ ext }) => ext.path === extensionPath)?.packageId;
}

export function isActive(pi, name) {
	return pi.activeTools === null ? !pi.inactive.has(name) : pi.activeTools.has(name);
}

// Pi >= 0.99 (AgentSession._isActivatedOnRegistration): registering a `direct` (default) or
// `model-only` tool activates it unless it sets `defaultActive: false`; `codemode`, `deferred`
// and `hidden` tools are not activated on registration. Older Pi knew neither field.
function activatedOnRegistration(pi, packageId, def) {
	if (!since(pi, packageId, "toolExposure")) return true;
	const exposure = def.exposure ?? "direct";
	return (exposure === "direct" || exposure === "model-only") && def.defaultActive !== false;
}

// A tool registered (or registered again) now: active or not, as Pi decides at registration
// (an explicit active set, from setActiveTools, gains the tools that activate, as in Pi).
function applyRegistrationState(pi, name, packageId, def) {
	const active = activatedOnRegistration(pi, packageId, def);
	if (active) pi.inactive.delete(name);
	else pi.inactive.add(name);
	if (pi.activeTools !== null) {
		if (active) pi.activeTools.add(name);
		else if (def.exposure === "hidden") pi.activeTools.delete(name); // withdrawn
	}
}

/** Take the extensions' tools (again, after a late registerTool); `late` tells the host when
 * a tool was added or registered again; `quiet`: renderers already reported (a package's
 * extensions made again, renew.mjs). Returns the names that changed. */
export function collectTools(state, pi, late, quiet = false) {
	const added = [];
	for (const { ext, packageId } of pi.extensions) {
		for (const [name, tool] of ext.tools) {
			const owner = pi.tools.get(name);
			if (owner && owner.ext !== ext) {
				const key = `${name}\0${ext.path}`;
				if (!pi.conflicts.has(key)) {
					pi.conflicts.add(key);
					diagnostic(state, "pi.tool_conflict", `Tool "${name}" conflicts with ${owner.extPath}; the first registration wins`, name, packageId);
				}
				continue;
			}
			const changed = owner?.definition !== tool.definition; // new, or registered again
			pi.tools.set(name, { ...tool, ext, packageId, extPath: owner?.extPath ?? ext.path });
			if (changed) {
				added.push(name);
				applyRegistrationState(pi, name, packageId, tool.definition);
			}
			if ((tool.definition.renderCall || tool.definition.renderResult) && !late && !quiet) {
				unsupported(state, "tool renderCall/renderResult", `tool ${name}`, packageId);
			}
		}
	}
	if (late && added.length) sendRegistrationDelta(state);
	return added;
}

export function collectCommands(state, pi) {
	const all = [];
	const counts = new Map();
	for (const { ext, packageId } of pi.extensions) {
		for (const command of ext.commands.values()) {
			all.push({ command, packageId });
			counts.set(command.name, (counts.get(command.name) ?? 0) + 1);
		}
	}
	const seen = new Map();
	const taken = new Set();
	for (const item of all) {
		const name = item.command.name;
		const occurrence = (seen.get(name) ?? 0) + 1;
		seen.set(name, occurrence);
		let invocation = counts.get(name) > 1 ? `${name}:${occurrence}` : name;
		let suffix = occurrence;
		while (taken.has(invocation)) invocation = `${name}:${++suffix}`;
		taken.add(invocation);
		const key = `command\0${invocation}\0${item.packageId}`; // said once (renew.mjs collects again)
		if (invocation !== name && !pi.conflicts.has(key)) {
			pi.conflicts.add(key);
			const message = `command /${name} is registered more than once; this one is /${invocation}`;
			diagnostic(state, "pi.command_renamed", message, invocation, item.packageId);
		}
		pi.commands.set(invocation, item);
	}
}

/** The protocol's ToolSpec of a Pi tool (the JSON round trip drops TypeBox's symbols). Its
 * output schema (Pi >= 0.99) goes in `gateway.output_schema` when the host offered
 * `tool.output`; otherwise it is reported once as not carried. */
export function toolSpec(state, pi, name, tool) {
	const def = tool.definition;
	const schema = JSON.parse(JSON.stringify(def.parameters ?? { type: "object", properties: {} }));
	const description = [def.description ?? def.label ?? name, def.promptSnippet].filter(Boolean).join("\n\n");
	const spec = { name, description, input_schema: schema };
	if (def.outputSchema && since(pi, tool.packageId, "toolExposure")) {
		if (offered(state, FEATURE.output)) {
			spec.gateway = { output_schema: JSON.parse(JSON.stringify(def.outputSchema)) };
		} else if (!pi.conflicts.has(`output\0${name}`)) {
			pi.conflicts.add(`output\0${name}`);
			const detail = `tool ${name}: the host did not offer tool.output, so no output schema is carried; the model gets the result's content, as in Pi`;
			unsupported(state, "tool outputSchema", detail, tool.packageId);
		}
	}
	return spec;
}

export function activeToolSpecs(state, pi) {
	return [...pi.tools.entries()].filter(([name]) => isActive(pi, name)).map(([name, tool]) => toolSpec(state, pi, name, tool));
}

function where(root, ext) {
	return path.relative(root, ext.path) || ext.path;
}

export function reportUnsupported(state, pi) {
	for (const { ext, root, packageId } of pi.extensions) {
		const at = where(root, ext);
		const report = (api, detail) => unsupported(state, api, detail, packageId);
		for (const key of ext.shortcuts.keys()) report("registerShortcut", `${at}: ${key}`);
		for (const key of ext.messageRenderers.keys()) report("registerMessageRenderer", `${at}: ${key}`);
		for (const key of ext.entryRenderers?.keys?.() ?? []) report("registerEntryRenderer", `${at}: ${key}`);
		if (ext.toolRenderers?.length) report("registerToolRenderer", at);
		if (ext.markdownTransformer) report("registerMarkdownTransformer", at);
	}
}

export function reportRuntimeUnsupported(state, pi, runtime) {
	const report = (api, detail, r) => unsupported(state, api, detail, packageOfPath(pi, r.extensionPath));
	for (const r of runtime.pendingProviderRegistrations ?? []) report("registerProvider", `provider ${r.name}`, r);
	for (const r of runtime.pendingNativeProviderRegistrations ?? []) report("registerProvider", `provider ${r.provider?.id}`, r);
	for (const r of runtime.pendingVirtualModelRegistrations ?? []) {
		report("registerVirtualModel", `${r.definition?.provider}/${r.definition?.id}`, r);
	}
	for (const server of runtime.mcpServers?.list?.() ?? []) report("registerMcpServer", `server ${server.name}`, server);
	quietRuntime(runtime);
}

/** Later provider registrations are logged (register has been sent). */
export function quietRuntime(runtime) {
	runtime.registerProvider = (name) => log(`registerProvider(${name}) ignored: providers are not supported headless`);
	runtime.registerNativeProvider = (p) => log(`registerProvider(${p?.id}) ignored: providers are not supported headless`);
}

/** A Pi extension's path relative to its package root, for messages. */
export { where as extensionPath };
