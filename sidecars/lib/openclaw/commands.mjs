// OpenClaw commands (src/plugins/command-registration.ts): lower-case names matching
// /^[a-z][a-z0-9_-]*$/, not reserved, with a description and a handler; a duplicate across
// plugins is refused. Arguments reach a command only when it `acceptsArgs`; otherwise the
// message falls through to the agent (the reply's `prompt`). The handler's {text} is the
// reply; `continueAgent` also hands the message to the agent.

import { diagnostic } from "../diagnostics.mjs";
import { hostAction } from "../wire.mjs";
import { sessionFile } from "./transcript.mjs";

const NAME = /^[a-z][a-z0-9_-]*$/;
export const RESERVED = Object.freeze(new Set(
	"help commands status diagnostics codex whoami context btw stop restart reset new compact config debug allowlist activation skill learn loop subagents kill steer tell model models queue send bash exec think verbose reasoning elevated usage".split(" "),
));

export function stageCommand(state, plugin, definition) {
	const name = typeof definition?.name === "string" ? definition.name.trim().toLowerCase() : "";
	const invalid = (why) => diagnostic(state, "openclaw.registration_invalid", `plugin ${plugin.pluginId}: registerCommand ${JSON.stringify(definition?.name ?? null)}: ${why}; skipped`, name || undefined);
	if (!NAME.test(name)) return invalid("the name must match /^[a-z][a-z0-9_-]*$/");
	if (typeof definition.description !== "string" || !definition.description.trim()) return invalid("description must be a non-empty string");
	if (typeof definition.handler !== "function") return invalid("handler is not a function");
	if (RESERVED.has(name)) {
		return diagnostic(state, "openclaw.command_reserved", `plugin ${plugin.pluginId}: /${name} is a reserved OpenClaw command name; skipped`, name);
	}
	plugin.staged.commands.push({ plugin, name, definition });
}

export function addCommands(state, oc, plugin) {
	for (const item of plugin.staged.commands) {
		const owner = oc.commands.get(item.name);
		if (owner) {
			diagnostic(state, "openclaw.command_conflict", `plugin ${plugin.pluginId}: /${item.name} is already registered by ${owner.plugin.pluginId}; skipped`, item.name);
			continue;
		}
		oc.commands.set(item.name, item);
	}
}

export async function runCommand(state, oc, name, message, current) {
	const entry = oc.commands.get(name);
	if (!entry) return { message: `Unknown command /${name}` };
	const args = String(message.arguments ?? "").trim();
	const commandBody = args ? `/${name} ${args}` : `/${name}`;
	if (args && !entry.definition.acceptsArgs) return { prompt: commandBody }; // no match: to the agent
	const sessionId = state.initialize?.session_id ?? "";
	const ctx = {
		senderId: "user",
		channel: "gateway",
		channelId: "gateway",
		isAuthorizedSender: true,
		senderIsOwner: true,
		sessionKey: sessionId,
		sessionId,
		sessionFile: await sessionFile(state, entry.plugin),
		args: args || undefined,
		commandBody,
		config: entry.plugin.config,
		from: "user",
		to: "gateway",
		runtimeContext: { compactCurrent: async () => hostAction(state, "compact", "[openclaw]") },
	};
	let result;
	try {
		result = await entry.definition.handler(ctx);
	} catch (error) {
		current.messages.push(`/${name} failed: ${error?.message ?? error}`);
	}
	if (result && typeof result.text === "string" && !result.suppressReply) current.messages.push(result.text);
	const reply = {};
	if (current.messages.length) reply.message = current.messages.join("\n");
	if (result?.continueAgent) reply.prompt = commandBody;
	return reply;
}
