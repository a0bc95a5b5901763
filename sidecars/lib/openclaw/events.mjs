// Canonical events → the OpenClaw hooks that run at them (hooks.mjs), with OpenClaw's merge
// rules, each as a small handler returning the protocol reply.

import { contentText } from "../content.mjs";
import { FEATURE, offered } from "../features.mjs";
import { sendRegistrationDelta } from "../registration.mjs";
import { log } from "../stdio.mjs";
import { askQuestion, update } from "../wire.mjs";
import { HOOKS } from "./hooks.mjs";
import { concat, hooksFor, invoke, joinPresent, modify, observe } from "./run.mjs";
import { rebuildTools } from "./tools.mjs";
import { sessionFile, transcript } from "./transcript.mjs";

const EXTENDED = new Set(["input", "before_agent_start", "context", "message_received", "message_sending", "message_sent"]);

/** The canonical events this host needs: those its hooks run at (the extended ones only when
 * the host offered them). Tool factories need no event of their own: a new session restarts
 * the sidecar (its `initialize` names the session), and they are called again once
 * `gateway_start` has run (host.mjs). */
export function subscribedEvents(state, oc) {
	const events = new Set();
	for (const hookName of oc.hooks.keys()) {
		const event = HOOKS[hookName].event;
		if (event && (!EXTENDED.has(event) || offered(state, FEATURE.extendedEvents))) events.add(event);
	}
	return [...events];
}

function context(state, extra = {}) {
	const sessionId = state.initialize?.session_id ?? "";
	return { agentId: "gateway", sessionId, sessionKey: sessionId, workspaceDir: state.initialize?.workspace, channelId: "gateway", trigger: "user", ...extra };
}

function notify(state, text) {
	if (typeof text === "string" && text) update(state, { notification: { level: "info", message: text } });
}

const firstDefined = (a, b) => a ?? b;
const lastDefined = (a, b) => b ?? a;

function mergeBeforeToolCall(acc, next, reg) {
	if (acc?.block === true) return acc;
	const frozen = acc?.requireApproval !== undefined;
	return {
		params: frozen ? acc.params : lastDefined(acc?.params, next.params),
		block: acc?.block === true || next.block === true || undefined,
		blockReason: lastDefined(acc?.blockReason, next.blockReason),
		requireApproval: acc?.requireApproval ?? (next.requireApproval ? { ...next.requireApproval, pluginId: reg.plugin.pluginId } : undefined),
	};
}

function mergePromptBuild(acc, next, reg) {
	if (reg.declaredName === "before_agent_start" && (next.modelOverride || next.providerOverride)) {
		log(`plugin ${reg.plugin.pluginId}: before_agent_start model/provider override ignored (model selection is the agent's)`);
	}
	if (next.toolsAllow !== undefined) log(`plugin ${reg.plugin.pluginId}: before_prompt_build toolsAllow is not applied by the gateway`);
	return {
		systemPrompt: firstDefined(acc?.systemPrompt, next.systemPrompt),
		prependContext: concat(acc?.prependContext, next.prependContext),
		appendContext: concat(acc?.appendContext, next.appendContext),
		prependSystemContext: concat(acc?.prependSystemContext, next.prependSystemContext),
		appendSystemContext: concat(acc?.appendSystemContext, next.appendSystemContext),
	};
}

async function approve(state, request) {
	const prompt = [request.title, request.description].filter(Boolean).join("\n") || `Allow this tool call? (${request.pluginId})`;
	const asked = askQuestion(state, String(prompt), ["Allow", "Deny"]);
	const timeout = Number.isFinite(request.timeoutMs) && request.timeoutMs > 0 ? request.timeoutMs : 0;
	const answer = timeout ? await Promise.race([asked, new Promise((r) => setTimeout(() => r({ cancelled: true }), timeout).unref?.())]) : await asked;
	const decision = !answer?.cancelled && answer?.answer === "Allow" ? "allow-once" : "deny";
	try {
		await request.onResolution?.(decision);
	} catch (error) {
		log(`requireApproval onResolution of ${request.pluginId} failed: ${error?.message ?? error}`);
	}
	return decision !== "deny";
}

const HANDLERS = {
	async tool_call({ state, oc, payload, message, signal }) {
		const original = payload.arguments ?? {};
		const toolCallId = `call_${message.id}`;
		const event = { toolName: payload.tool, params: original, toolCallId, runId: state.initialize?.session_id };
		const ctx = context(state, { toolName: payload.tool, toolCallId, abortSignal: signal });
		const failClosed = (reg, error) => ({ block: true, blockReason: `before_tool_call hook of ${reg.plugin.pluginId} failed: ${error?.message ?? error}` });
		const acc = await modify(oc, "before_tool_call", event, ctx, { merge: mergeBeforeToolCall, stop: (a) => a.block === true, failClosed, filter: { toolName: payload.tool } });
		if (!acc) return {};
		if (acc.block) return { allow: false, reason: acc.blockReason || `Tool call blocked by plugin` };
		if (acc.requireApproval && !(await approve(state, acc.requireApproval))) {
			return { allow: false, reason: `Tool call not approved (${acc.requireApproval.title ?? acc.requireApproval.pluginId})` };
		}
		return acc.params !== undefined && JSON.stringify(acc.params) !== JSON.stringify(original) ? { arguments: acc.params } : {};
	},

	async tool_result({ state, oc, payload, message }) {
		const toolCallId = `call_${message.id}`;
		const filter = { toolName: payload.tool };
		const original = { text: String(payload.output ?? ""), isError: Boolean(payload.is_error) };
		let persisted = { role: "toolResult", toolName: payload.tool, toolCallId, content: [{ type: "text", text: original.text }], isError: original.isError };
		for (const reg of hooksFor(oc, "tool_result_persist", filter)) {
			try {
				const result = reg.handler({ toolName: payload.tool, toolCallId, message: structuredClone(persisted), isSynthetic: false }, context(state, { toolName: payload.tool, toolCallId }));
				if (typeof result?.then === "function") {
					result.then(null, () => {});
					log(`plugin ${reg.plugin.pluginId}: tool_result_persist is synchronous; its async result is ignored`);
				} else if (result?.message) persisted = result.message;
			} catch (error) {
				log(`tool_result_persist hook of ${reg.plugin.pluginId} failed: ${error?.stack ?? error}`);
			}
		}
		const text = contentText(persisted.content);
		const isError = typeof persisted.isError === "boolean" ? persisted.isError : original.isError;
		const result = { content: [{ type: "text", text }], isError };
		const ctx = context(state, { toolName: payload.tool, toolCallId });
		await observe(oc, "after_tool_call", { toolName: payload.tool, params: payload.arguments ?? {}, toolCallId, result, error: isError ? text : undefined }, ctx, filter);
		const reply = {};
		if (text !== original.text) reply.output = text;
		if (isError !== original.isError) reply.is_error = isError;
		return reply;
	},

	async turn_end({ state, oc, payload }) {
		const event = { messages: await transcript(state), success: !payload.interrupted, error: payload.interrupted ? "interrupted" : undefined };
		await observe(oc, "agent_end", event, context(state));
		return {};
	},

	async session_start({ state, oc }) {
		if (oc.factories.length && rebuildTools(state, oc)) sendRegistrationDelta(state);
		await observe(oc, "session_start", { sessionId: state.initialize?.session_id, sessionKey: state.initialize?.session_id }, context(state));
		return {};
	},

	async session_end({ state, oc, payload }) {
		const messages = await transcript(state);
		// OpenClaw's /new and /reset: the transcript about to be left, before the session ends.
		if (payload.reason === "new") await observe(oc, "before_reset", { sessionFile: state.initialize?.session_id, messages, reason: "new" }, context(state));
		const event = { sessionId: state.initialize?.session_id, messageCount: messages.length, reason: payload.reason ?? "shutdown" };
		await observe(oc, "session_end", event, context(state));
		return {};
	},

	async session_before_compact({ state, oc, payload }) {
		const messages = await transcript(state);
		const event = { messageCount: messages.length, compactingCount: payload.entries?.length, tokenCount: payload.tokens_before, messages };
		await observe(oc, "before_compaction", event, context(state));
		return {}; // OpenClaw's before_compaction observes; it cannot veto
	},

	async session_compact({ state, oc, payload }) {
		const event = { messageCount: (await transcript(state)).length, tokenCount: payload.tokens_before, compactedCount: payload.first_kept_index ?? 0 };
		await observe(oc, "after_compaction", event, context(state));
		return {};
	},

	async input({ state, oc, payload }) {
		const text = String(payload.text ?? "");
		const ctx = context(state);
		const handled = (shown) => {
			notify(state, shown);
			return { action: "handled" };
		};
		for (const reg of hooksFor(oc, "before_dispatch")) {
			const { value } = await invoke(reg, { content: text, body: text, channel: "gateway", senderId: "user", isGroup: false }, ctx);
			if (value?.handled) return handled(value.text);
		}
		for (const reg of hooksFor(oc, "before_agent_reply", { trigger: "user" })) {
			const { value } = await invoke(reg, { cleanedBody: text }, ctx);
			if (value?.handled) return handled(value.reply?.text ?? value.reason);
		}
		const gates = hooksFor(oc, "before_agent_run");
		if (gates.length) {
			const event = { prompt: text, messages: await transcript(state), systemPrompt: undefined, channelId: "gateway", senderIsOwner: true };
			for (const reg of gates) {
				const outcome = await invoke(reg, event, ctx);
				if (!outcome.ok) return handled(`before_agent_run hook of ${reg.plugin.pluginId} failed`); // fail-closed
				if (outcome.value?.outcome === "block") return handled(outcome.value.message ?? outcome.value.reason ?? "blocked by plugin");
			}
		}
		return { action: "continue" };
	},

	async before_agent_start({ state, oc, payload }) {
		const prompt = String(payload.prompt ?? "");
		const systemPrompt = String(payload.system_prompt ?? "");
		const messages = await transcript(state);
		const ctx = context(state);
		const prepared = await modify(oc, "agent_turn_prepare", { prompt, messages, injections: [] }, ctx, {
			merge: (acc, next) => ({ prependContext: concat(acc?.prependContext, next.prependContext), appendContext: concat(acc?.appendContext, next.appendContext) }),
		});
		const legacy = hooksFor(oc, "before_prompt_build").find((reg) => reg.declaredName === "before_agent_start");
		const file = legacy ? await sessionFile(state, legacy.plugin, messages) : undefined;
		// The legacy before_agent_start event also carries {context: {messages, sessionFile}}.
		const event = { prompt, messages, currentUserMessage: prompt, ...(legacy ? { context: { messages, sessionFile: file } } : {}) };
		const built = await modify(oc, "before_prompt_build", event, ctx, { merge: mergePromptBuild });
		const reply = {};
		const finalSystem = joinPresent([built?.prependSystemContext, built?.systemPrompt ?? systemPrompt, built?.appendSystemContext]);
		if (built && finalSystem !== systemPrompt) reply.system_prompt = finalSystem;
		const finalPrompt = joinPresent([prepared?.prependContext, built?.prependContext, prompt, built?.appendContext, prepared?.appendContext]);
		if (finalPrompt !== prompt) reply.prompt = finalPrompt;
		return reply;
	},

	async context({ state, oc, payload }) {
		const messages = payload.messages ?? [];
		const lastUser = [...messages].reverse().find((m) => m?.role === "user");
		const event = { runId: state.initialize?.session_id, sessionId: state.initialize?.session_id, provider: "", model: "", prompt: contentText(lastUser?.content), historyMessages: messages, imagesCount: 0 };
		await observe(oc, "llm_input", event, context(state));
		return {};
	},

	async message_received({ state, oc, payload }) {
		await observe(oc, "message_received", { from: payload.source ?? "user", content: String(payload.text ?? ""), timestamp: Date.now() }, context(state));
		return {};
	},

	async message_sending({ state, oc, payload }) {
		const original = String(payload.text ?? "");
		const ctx = context(state);
		const sent = await modify(oc, "message_sending", { to: "user", content: original, metadata: {} }, ctx, {
			merge: (acc, next) => ({ content: lastDefined(acc?.content, typeof next.content === "string" ? next.content : undefined), cancel: next.cancel === true || undefined, cancelReason: next.cancelReason }),
			stop: (acc) => acc.cancel === true,
		});
		if (sent?.cancel) return { allow: false, reason: sent.cancelReason || "message cancelled by plugin" };
		let text = sent?.content ?? original;
		for (const reg of hooksFor(oc, "reply_payload_sending")) {
			const { value } = await invoke(reg, { payload: { text } }, ctx);
			if (value?.cancel === true) return { allow: false, reason: value.reason || "message cancelled by plugin" };
			if (typeof value?.payload?.text === "string") text = value.payload.text;
		}
		await observe(oc, "llm_output", { assistantTexts: [text], lastAssistant: text }, ctx);
		return text !== original ? { text } : {};
	},

	async message_sent({ state, oc, payload }) {
		await observe(oc, "message_sent", { to: "user", content: String(payload.text ?? ""), success: payload.success !== false }, context(state));
		return {};
	},
};

export async function onEvent(state, oc, event, payload, signal, message) {
	if (!Object.hasOwn(HANDLERS, event)) return {};
	return HANDLERS[event]({ state, oc, payload, message, signal });
}
