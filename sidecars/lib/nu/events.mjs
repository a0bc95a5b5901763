// Nu's hooks on the canonical events (docs/nu.md, "Hooks"). Nu's names come from Pi; the
// return rules are Nu's:
//
//   before_agent_start  -> before_agent_start  {prompt} is ADDED to the system prompt (Pi's
//                                              systemPrompt replaces it)
//   input               -> input               {action: continue | transform (+ text) | handled}
//   turn_end            -> turn_end            returns nothing
//   tool_execution_end  -> tool_result         returns nothing; never changes the result
//
// Each occurrence is delivered once, to each handler in load order. A handler that throws
// (or rejects) is logged and skipped; the others still run.

import { FEATURE, offered } from "../features.mjs";
import { log } from "../stdio.mjs";

export const HOOKS = Object.freeze(["before_agent_start", "input", "turn_end", "tool_execution_end"]);

const CANONICAL = {
	before_agent_start: { event: "before_agent_start", extended: true },
	input: { event: "input", extended: true },
	turn_end: { event: "turn_end" },
	tool_execution_end: { event: "tool_result" },
};

/** The canonical events the loaded extensions subscribe to. */
export function subscribedEvents(state, nu) {
	const events = new Set();
	for (const { event } of nu.handlers) {
		const mapped = CANONICAL[event];
		if (mapped.extended && !offered(state, FEATURE.extendedEvents)) {
			log(`nu.on("${event}"): the host did not negotiate events.extended; the handler never runs`);
			continue;
		}
		events.add(mapped.event);
	}
	return [...events];
}

async function run(nu, hook, event, each) {
	for (const { event: name, handler, where } of nu.handlers) {
		if (name !== hook) continue;
		let result;
		try {
			result = await handler(typeof event === "function" ? event() : event);
		} catch (error) {
			log(`${where}: ${hook} handler failed, skipped: ${error?.stack ?? error}`);
			continue;
		}
		if (each && each(result) === "stop") return;
	}
}

const HANDLERS = {
	async before_agent_start(nu, payload) {
		const systemPrompt = String(payload.system_prompt ?? "");
		const added = [];
		const event = { type: "before_agent_start", prompt: String(payload.prompt ?? ""), systemPrompt };
		await run(nu, "before_agent_start", () => ({ ...event }), (result) => {
			if (typeof result?.prompt === "string" && result.prompt) added.push(result.prompt);
		});
		if (!added.length) return {};
		return { system_prompt: [systemPrompt, ...added].filter(Boolean).join("\n\n") };
	},

	async input(nu, payload) {
		const original = String(payload.text ?? "");
		let text = original;
		let handled = false;
		const source = payload.source ?? "interactive";
		await run(nu, "input", () => ({ type: "input", text, source }), (result) => {
			const action = typeof result === "string" ? result : result?.action;
			if (action === "handled") {
				handled = true;
				return "stop";
			}
			if (action === "transform" && typeof result?.text === "string") text = result.text;
		});
		if (handled) return { action: "handled" };
		return text !== original ? { action: "transform", text } : { action: "continue" };
	},

	async turn_end(nu, payload) {
		const event = { type: "turn_end", turnIndex: nu.turns++, interrupted: Boolean(payload.interrupted) };
		await run(nu, "turn_end", () => ({ ...event }));
		return {};
	},

	async tool_result(nu, payload, message) {
		const event = {
			type: "tool_execution_end",
			toolCallId: `call_${message.id}`,
			toolName: payload.tool,
			args: payload.arguments ?? {},
			result: { content: [{ type: "text", text: String(payload.output ?? "") }] },
			isError: Boolean(payload.is_error),
		};
		await run(nu, "tool_execution_end", () => structuredClone(event));
		return {};
	},
};

export async function onEvent(nu, event, payload, message) {
	if (!Object.hasOwn(HANDLERS, event)) return {};
	return HANDLERS[event](nu, payload ?? {}, message ?? {});
}
