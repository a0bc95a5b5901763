// OpenClaw tools: plain tool objects, tool factories (called per session with a tool context;
// null hides the tool), `optional` tools exposed only when the plugin's gateway config allows
// them, the manifest's contracts.tools checked (OpenClaw >= 2026.5.2 refuses an undeclared
// tool: so does the gateway for a plugin loaded as such an OpenClaw, `toolContract: "refuse"`;
// one declaring an older OpenClaw keeps that host's acceptance, with a warning), and
// `execute(toolCallId, params, signal, onUpdate)` with the request's AbortSignal and progress.

import { contentText, errorReply, toolReply } from "../content.mjs";
import { diagnostic } from "../diagnostics.mjs";
import { log } from "../stdio.mjs";
import { workspace } from "../state.mjs";
import { progress } from "../wire.mjs";

function problem(tool) {
	if (!tool || typeof tool !== "object") return "is not a tool object";
	if (typeof tool.name !== "string" || !tool.name.trim()) return "has no name";
	if (typeof tool.execute !== "function") return `${tool.name}: execute is not a function`;
	if (!tool.parameters || typeof tool.parameters !== "object") return `${tool.name}: parameters is not an object`;
	return null;
}

/** `api.registerTool(tool | factory | {contextVersion: 2, create}, opts)` during register. */
export function stageTool(state, plugin, tool, opts) {
	const optional = opts?.optional === true;
	if (typeof tool === "function" || (tool?.contextVersion === 2 && typeof tool.create === "function")) {
		const names = Array.isArray(opts?.names) ? opts.names : typeof opts?.name === "string" ? [opts.name] : [];
		plugin.staged.factories.push({ plugin, factory: tool, names, optional });
		return;
	}
	const why = problem(tool);
	if (why) {
		diagnostic(state, "openclaw.registration_invalid", `plugin ${plugin.pluginId}: registerTool: tool ${why}; skipped`, tool?.name);
		return;
	}
	plugin.staged.tools.push({ plugin, tool, optional });
}

function allowed(plugin, name) {
	const allow = plugin.gatewaySettings?.tools?.allow;
	return Array.isArray(allow) && (allow.includes(name) || allow.includes(plugin.pluginId) || allow.includes("group:plugins"));
}

function once(state, key, code, message, contribution) {
	if (state.reported.has(key)) return;
	state.reported.add(key);
	diagnostic(state, code, message, contribution);
}

/** Add one tool to the host's table, with the contract, optional and conflict rules. */
function addTool(state, oc, tools, item) {
	const { plugin, tool } = item;
	const name = tool.name;
	const contract = plugin.contractsTools;
	if (!contract || !contract.includes(name)) {
		const why = contract ? "is not in its contracts.tools" : "is registered but the manifest declares no contracts.tools";
		const key = `contract:${plugin.pluginId}:${name}`;
		if (plugin.toolContract === "refuse") {
			// Loaded as OpenClaw >= 2026.5.2 (declared, or the pinned 2026.9.6): it refuses the tool.
			const fix = contract ? `add "${name}" to contracts.tools` : `add "contracts": {"tools": ["${name}"]}`;
			once(state, key, "openclaw.tool_undeclared", `plugin ${plugin.pluginId}: tool ${name} ${why}; OpenClaw >= 2026.5.2 refuses it, and so does the gateway: not registered (${fix} in openclaw.plugin.json)`, name);
			return;
		}
		once(state, key, "openclaw.tool_contract", `plugin ${plugin.pluginId}: tool ${name} ${why}; the plugin declares an OpenClaw before 2026.5.2, which accepts it, so the gateway registers it (OpenClaw >= 2026.5.2 refuses it: list it in contracts.tools)`, name);
	}
	if ((item.optional || plugin.optionalTools.includes(name)) && !allowed(plugin, name)) {
		const hint = `gateway config ${plugin.packageId} '$gateway.tools.allow' '["${name}"]'`;
		once(state, `optional:${plugin.pluginId}:${name}`, "openclaw.tool_optional", `plugin ${plugin.pluginId}: optional tool ${name} is not exposed until allowed: ${hint}`, name);
		return;
	}
	const owner = tools.get(name);
	if (owner && owner.plugin !== plugin) {
		once(state, `conflict:${plugin.pluginId}:${name}`, "openclaw.tool_conflict", `plugin ${plugin.pluginId}: tool ${name} is already registered by ${owner.plugin.pluginId}; skipped`, name);
		return;
	}
	tools.set(name, { plugin, tool, spec: toolSpec(tool) });
}

function toolContext(state, plugin) {
	const sessionId = state.initialize?.session_id ?? "";
	return {
		config: plugin.config,
		runtimeConfig: plugin.config,
		workspaceDir: workspace(state),
		agentDir: plugin.stateDir,
		agentId: "gateway",
		sessionKey: sessionId,
		sessionId,
		messageChannel: "gateway",
		senderIsOwner: true,
		sandboxed: false,
		hasAuthForProvider: () => false,
		resolveApiKeyForProvider: () => undefined,
		assertInvocationCurrent: () => {},
	};
}

function produce(state, item) {
	const ctx = toolContext(state, item.plugin);
	try {
		const made = item.factory.contextVersion === 2 ? item.factory.create(ctx) : item.factory(ctx);
		const list = made == null ? [] : Array.isArray(made) ? made : [made];
		return list.filter((tool) => {
			const why = problem(tool);
			if (why) log(`plugin ${item.plugin.pluginId}: a tool factory returned a tool that ${why}; skipped`);
			return !why;
		});
	} catch (error) {
		log(`plugin ${item.plugin.pluginId}: tool factory failed: ${error?.stack ?? error}`);
		return [];
	}
}

/** Rebuild the host's tools: static ones, then each factory's for this session. True when
 * the set of names or schemas changed. */
export function rebuildTools(state, oc) {
	const tools = new Map();
	for (const item of oc.staticTools) addTool(state, oc, tools, item);
	for (const item of oc.factories) {
		for (const tool of produce(state, item)) addTool(state, oc, tools, { plugin: item.plugin, tool, optional: item.optional });
	}
	const before = JSON.stringify([...oc.tools.values()].map((t) => t.spec));
	oc.tools = tools;
	return before !== JSON.stringify([...tools.values()].map((t) => t.spec));
}

/** The protocol's ToolSpec (the JSON round trip drops TypeBox's symbols). */
export function toolSpec(tool) {
	const schema = JSON.parse(JSON.stringify(tool.parameters ?? { type: "object", properties: {} }));
	return { name: tool.name, description: String(tool.description ?? tool.label ?? tool.name), input_schema: schema };
}

function normalizeResult(result) {
	if (typeof result === "string" || Array.isArray(result?.content)) return result;
	if (result === undefined) return { content: [] };
	return { content: [{ type: "text", text: JSON.stringify(result, null, 2) }], details: result };
}

export async function callTool(state, oc, name, message, signal) {
	const entry = oc.tools.get(name);
	if (!entry) return { content: `Tool ${name} not found`, is_error: true };
	const onUpdate = (partial) => progress(state, message.id, partial?.content ?? [], partial?.details ?? null, contentText(partial?.content));
	try {
		const result = await entry.tool.execute(`call_${message.id}`, message.arguments ?? {}, signal, onUpdate);
		return toolReply(state, normalizeResult(result));
	} catch (error) {
		return errorReply(error);
	}
}
