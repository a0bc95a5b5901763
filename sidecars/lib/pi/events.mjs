// Canonical events → the Pi events they drive, with Pi's return rules (docs/pi.md, "Events").
// One small handler per canonical event; each returns the protocol reply.

import { contentText } from "../content.mjs";
import { currentRequest } from "../state.mjs";
import { log } from "../stdio.mjs";
import { makeContext, refreshEntries } from "./context.mjs";
import { loopState, runHandlers } from "./dispatch.mjs";
import { legacySessionEvents } from "./legacy.mjs";
import { addDiscovered } from "./resources.mjs";
import { since } from "./versions.mjs";

// Pi >= 0.79.10: the compaction events say why compaction runs. The gateway's compaction is
// one the embedding agent asked for: "manual" unless the host's payload names a reason.
function compactionFields(pi, packageId, payload) {
	if (!since(pi, packageId, "compactionReason")) return {};
	const reason = ["manual", "threshold", "overflow"].includes(payload.reason) ? payload.reason : "manual";
	return { reason, willRetry: payload.will_retry === true };
}

// A Pi custom message ({customType, content, display, details}) as a canonical message.
export function canonicalMessage(message) {
	const out = { role: "custom", custom_type: String(message.customType ?? ""), content: message.content ?? "", display: message.display !== false };
	if (message.details !== undefined) out.details = message.details;
	return out;
}

const HANDLERS = {
	async tool_call({ run, payload, message }) {
		const reply = {};
		const toolCallId = `call_${message.id}`;
		const input = structuredClone(payload.arguments ?? {});
		const before = JSON.stringify(input);
		await run("tool_execution_start", { type: "tool_execution_start", toolCallId, toolName: payload.tool, args: input });
		const event = { type: "tool_call", toolCallId, toolName: payload.tool, input };
		try {
			await run("tool_call", event, (result) => {
				if (!result?.block) return;
				reply.allow = false;
				reply.reason = result.reason || "Tool execution was blocked";
				return "stop";
			});
		} catch (error) {
			reply.allow = false;
			reply.reason = error?.message ?? String(error);
		}
		if (JSON.stringify(event.input) !== before) reply.arguments = event.input; // in-place edits
		return reply;
	},

	async tool_result({ run, payload, message }) {
		const reply = {};
		const toolCallId = `call_${message.id}`;
		const event = {
			type: "tool_result",
			toolCallId,
			toolName: payload.tool,
			input: payload.arguments ?? {},
			content: [{ type: "text", text: String(payload.output ?? "") }],
			details: undefined,
			isError: Boolean(payload.is_error),
		};
		const original = { text: contentText(event.content), isError: event.isError };
		await run("tool_result", event, (patch) => {
			if (!patch || typeof patch !== "object") return;
			for (const key of ["content", "details", "isError", "structuredContent", "usage"]) {
				if (patch[key] !== undefined) event[key] = patch[key];
			}
		});
		const text = contentText(event.content);
		if (text !== original.text) reply.output = text;
		if (event.isError !== original.isError) reply.is_error = event.isError;
		const result = { content: event.content, details: event.details };
		await run("tool_execution_end", { type: "tool_execution_end", toolCallId, toolName: payload.tool, args: event.input, result, isError: event.isError });
		return reply;
	},

	// A nimlet turn is one agent run: agent_start, turn_start … turn_end, agent_end,
	// agent_settled. A package gets only the canonical events it subscribes to, so its turn
	// counter advances on whichever it sees: a turn_start while one is open (no turn_end
	// came) starts the next turn.
	async turn_start({ loop, run }) {
		if (loop.turnOpen) loop.turnIndex++;
		loop.turnOpen = true;
		await run("agent_start", { type: "agent_start" });
		await run("turn_start", { type: "turn_start", turnIndex: loop.turnIndex, timestamp: Date.now() });
		return {};
	},

	async turn_end({ loop, run, payload }) {
		const turnIndex = loop.turnIndex++;
		loop.turnOpen = false;
		const interrupted = Boolean(payload.interrupted);
		await run("turn_end", { type: "turn_end", turnIndex, message: undefined, toolResults: [], interrupted });
		await run("agent_end", { type: "agent_end", messages: [] });
		await run("agent_settled", { type: "agent_settled", aborted: interrupted });
		return {};
	},

	async session_start({ state, pi, loop, run, payload, ctx }) {
		await refreshEntries(state, pi);
		const reason = payload.reason ?? (loop.started ? "new" : "startup");
		loop.started = true;
		await run("session_start", { type: "session_start", reason });
		for (const legacy of legacySessionEvents(reason, undefined)) await run(legacy.type, legacy); // legacy.mjs
		// Pi's extendResourcesFromExtensions: the paths every handler returns are loaded as
		// skills and prompt templates for this session (themes: TUI only).
		const found = [];
		const discover = { type: "resources_discover", cwd: ctx.cwd, reason: reason === "reload" ? "reload" : "startup" }; // as Pi
		await run("resources_discover", discover, (result, item) => {
			for (const kind of ["skillPaths", "promptPaths"]) {
				for (const where of Array.isArray(result?.[kind]) ? result[kind] : []) found.push({ kind, path: String(where), item });
			}
		});
		if (found.length) await addDiscovered(state, pi, found, ctx.cwd);
		return {};
	},

	async session_end({ run, payload }) {
		// nimlet's session_end fires on exit and before a switch; without a reason from the
		// host, "quit" (the cleanup case) is assumed. Before a switch Pi asks first
		// (session_before_switch / _fork); the host has already decided, so a {cancel} is
		// logged, not honoured.
		const reason = payload.reason ?? "quit";
		const before = reason === "fork" ? "session_before_fork" : reason === "new" || reason === "resume" ? "session_before_switch" : undefined;
		if (before) {
			const event = before === "session_before_fork" ? { type: before, entryId: undefined, position: "before" } : { type: before, reason, targetSessionFile: undefined };
			await run(before, event, (result) => {
				if (result?.cancel) log(`${before}: {cancel: true} is not honoured; the host switches sessions without asking`);
			});
		}
		await run("session_shutdown", { type: "session_shutdown", reason });
		return {};
	},

	async session_before_compact({ pi, run, payload, signal }) {
		const reply = {};
		const event = (packageId) => ({
			type: "session_before_compact",
			preparation: { tokensBefore: payload.tokens_before ?? 0 },
			branchEntries: payload.entries ?? [],
			customInstructions: payload.instruction || undefined,
			signal,
			...compactionFields(pi, packageId, payload),
		});
		await run("session_before_compact", event, (result) => {
			if (result?.cancel) {
				reply.allow = false;
				reply.reason = result.reason ?? "Compaction cancelled by extension";
				return "stop";
			}
			if (result?.compaction) {
				const c = result.compaction;
				const index = Number.isInteger(Number(c.firstKeptEntryId)) ? Number(c.firstKeptEntryId) : 0;
				reply.compaction = { summary: String(c.summary ?? ""), first_kept_index: index, details: c.details ?? null };
			}
		});
		return reply;
	},

	async session_compact({ pi, run, payload }) {
		const compactionEntry = { type: "compaction", summary: payload.summary, firstKeptEntryId: String(payload.first_kept_index ?? 0), tokensBefore: payload.tokens_before };
		const event = (packageId) => ({ type: "session_compact", compactionEntry, fromExtension: false, ...compactionFields(pi, packageId, payload) });
		await run("session_compact", event);
		return {};
	},

	async input({ run, payload }) {
		// Pi's emitInput: "transform" chains the text, "handled" stops (later handlers are not
		// asked). The reply: action continue | transform (+ text) | handled.
		const original = String(payload.text ?? "");
		let text = original;
		let handled = false;
		await run("input", () => ({ type: "input", text, source: payload.source ?? "interactive" }), (result) => {
			if (result?.action === "handled") {
				handled = true;
				return "stop";
			}
			if (result?.action === "transform" && typeof result.text === "string") text = result.text;
		});
		if (handled) return { action: "handled" };
		return text !== original ? { action: "transform", text } : { action: "continue" };
	},

	async before_agent_start({ state, pi, run, payload, ctx }) {
		// Pi's emitBeforeAgentStart: every returned message is injected; a returned systemPrompt
		// replaces the prompt for this run, and the next handler sees it. Since Pi 1.2 the event
		// is a union on messageType; the gateway starts runs on user prompts only ("user"), and
		// a package targeting an older Pi gets the event without the field, as then.
		const reply = {};
		let systemPrompt = String(payload.system_prompt ?? "");
		let replaced = false;
		const messages = [];
		ctx.getSystemPrompt = () => systemPrompt;
		// Pi >= 1.2: a pi.sendMessage() while the run starts is queued into it (runtime.mjs).
		const current = currentRequest(state);
		if (current) current.runMessages = messages;
		const event = (packageId) => {
			const fields = { type: "before_agent_start", prompt: String(payload.prompt ?? ""), systemPrompt, systemPromptOptions: {} };
			return since(pi, packageId, "busyRunStart") ? { ...fields, messageType: "user" } : fields;
		};
		await run("before_agent_start", event, (result) => {
			if (!result || typeof result !== "object") return;
			if (result.message) messages.push(canonicalMessage(result.message));
			if (typeof result.systemPrompt === "string") {
				systemPrompt = result.systemPrompt;
				replaced = true;
			}
		});
		if (replaced) reply.system_prompt = systemPrompt;
		if (messages.length) reply.messages = messages;
		return reply;
	},

	async context({ run, payload }) {
		// Pi's emitContext: a returned {messages} (or an in-place edit) replaces the messages for
		// this model call; the next handler sees the result.
		const original = JSON.stringify(payload.messages ?? []);
		let messages = structuredClone(payload.messages ?? []);
		let current;
		const event = () => {
			current = { type: "context", messages: structuredClone(messages) };
			return current;
		};
		await run("context", event, (result) => {
			messages = Array.isArray(result?.messages) ? result.messages : current.messages; // in-place edits count, as in Pi
		});
		return JSON.stringify(messages) !== original ? { messages } : {};
	},

	async message_received({ run, payload }) {
		const message = { role: "user", content: [{ type: "text", text: String(payload.text ?? "") }], timestamp: Date.now() };
		await run("message_start", { type: "message_start", message });
		await run("message_end", { type: "message_end", message });
		return {};
	},

	async message_sending({ run, payload }) {
		// Pi's message_end may return {message} to replace it (same role; chained).
		const original = String(payload.text ?? "");
		let message = { role: "assistant", content: [{ type: "text", text: original }], timestamp: Date.now() };
		await run("message_start", { type: "message_start", message });
		await run("message_end", () => ({ type: "message_end", message }), (result) => {
			if (result?.message && result.message.role === message.role) message = result.message;
		});
		const text = contentText(message.content);
		return text !== original ? { text } : {};
	},
};

export async function onEvent(state, pi, event, payload, signal, message) {
	if (!Object.hasOwn(HANDLERS, event)) return {};
	const ctx = makeContext(state, pi, signal, false);
	const target = typeof message.gateway?.package === "string" ? message.gateway.package : undefined;
	const run = (piEvent, piPayload, each) => runHandlers(state, pi, target, piEvent, piPayload, ctx, each);
	return HANDLERS[event]({ state, pi, loop: loopState(pi, target), run, payload, message, ctx, signal });
}
