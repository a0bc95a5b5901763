// The `ctx` Pi hands to tools, event handlers and commands: a headless UI over the nimlet
// dialogs and side effects, a sessionManager facade over the host transcript, and the command
// actions the host performs (docs/pi.md, "The pi API").

import { log } from "../stdio.mjs";
import { askQuestion, hostAction, hostRequest, update } from "../wire.mjs";
import { workspace } from "../state.mjs";
import { isIdle } from "./busy.mjs";
import { piTheme } from "./modules.mjs";
import { unsupported } from "./registry.mjs";

const LABEL = "[pi]";

// The host transcript as Pi session entries.
function toPiEntry(entry, index) {
	const base = { id: `h${index + 1}`, parentId: index ? `h${index}` : null, timestamp: entry.timestamp ?? "" };
	if (entry.type === "extension" && entry.data && typeof entry.data === "object" && "customType" in entry.data) {
		return { ...base, type: "custom", customType: entry.data.customType, data: entry.data.data };
	}
	if (entry.type === "user" || entry.type === "assistant") {
		return { ...base, type: "message", message: { role: entry.role ?? entry.type, content: entry.content } };
	}
	if (entry.type === "tool_result") {
		const content = [{ type: "text", text: entry.output ?? "" }];
		return { ...base, type: "message", message: { role: "toolResult", content, isError: Boolean(entry.is_error) } };
	}
	return { ...base, ...entry };
}

/** Fetch the host transcript (Pi's sessionManager is synchronous, so it is fetched before
 * commands and session events, and kept; entries appended since are added locally). */
export async function refreshEntries(state, pi) {
	const entries = await hostRequest(state, "session.entries");
	if (Array.isArray(entries)) pi.session.hostEntries = entries.map(toPiEntry);
}

function makeUi(state) {
	return {
		async select(title, options) {
			const labels = (options ?? []).map((o) => (typeof o === "string" ? o : String(o?.label ?? o?.value ?? o)));
			const reply = await askQuestion(state, String(title), labels);
			if (reply.cancelled || !reply.answer) return undefined;
			const index = labels.indexOf(reply.answer);
			return index >= 0 ? options[index] : reply.answer;
		},
		async confirm(title, message) {
			const prompt = message ? `${title}\n${message}` : String(title);
			const reply = await askQuestion(state, prompt, ["Yes", "No"]);
			return !reply.cancelled && reply.answer === "Yes";
		},
		async input(title, placeholder) {
			// Free text needs host.request (nimlet v1 only asks multiple-choice questions).
			const reply = await hostRequest(state, "ui.input", { prompt: String(title), placeholder: placeholder ?? "" });
			return reply && !reply.cancelled && typeof reply.value === "string" ? reply.value : undefined;
		},
		async editor(title, prefill) {
			const reply = await hostRequest(state, "ui.editor", { prompt: String(title), prefill: prefill ?? "" });
			return reply && !reply.cancelled && typeof reply.value === "string" ? reply.value : undefined;
		},
		notify(message, level = "info") {
			update(state, { notification: { level: String(level), message: String(message) } });
		},
		setStatus(key, text) {
			update(state, { status: { key: String(key), text: text == null ? "" : String(text) } });
		},
		setWidget(key, content, options) {
			if (content === undefined || Array.isArray(content)) {
				const lines = (content ?? []).map(String);
				update(state, { widget: { key: String(key), lines, placement: String(options?.placement ?? "") } });
			} else {
				log(`ui.setWidget(${key}) with a component factory: TUI only, ignored`);
			}
		},
		// Pi's headless no-ops (TUI only).
		setTitle() {},
		setEditorText() {},
		getEditorText: () => "",
		pasteToEditor() {},
		custom: async () => undefined,
		onTerminalInput: () => () => {},
		setWorkingMessage() {},
		setWorkingVisible() {},
		setWorkingIndicator() {},
		setHiddenThinkingLabel() {},
		setFooter() {},
		setHeader() {},
		addAutocompleteProvider() {},
		setEditorComponent() {},
		getEditorComponent: () => undefined,
		getAllThemes: () => [],
		getTheme: () => undefined,
		setTheme: () => ({ success: false, error: "UI not available" }),
		getToolsExpanded: () => false,
		setToolsExpanded() {},
		// Pi's print and RPC modes: pi's theme, so handlers that format text with
		// theme.fg/bold work; the text carries its ANSI styling (loaded on first use).
		get theme() {
			return piTheme();
		},
	};
}

function sessionManager(state, pi) {
	const cwd = workspace(state);
	const sessionId = state.initialize?.session_id ?? "";
	const entries = () => (pi.session.hostEntries ?? pi.session.entries).slice();
	return {
		getCwd: () => cwd,
		getSessionDir: () => undefined,
		getSessionId: () => sessionId,
		getSessionFile: () => undefined,
		getLeafId: () => entries().at(-1)?.id ?? null,
		getLeafEntry: () => entries().at(-1),
		getEntry: (id) => entries().find((e) => e.id === id),
		getLabel: () => undefined,
		getBranch: () => entries(),
		getEntries: () => entries(),
		getTree: () => [],
		getHeader: () => ({ type: "session", id: sessionId, cwd }),
		getSessionName: () => pi.session.name,
		buildContextEntries: () => entries(),
	};
}

function commandActions(state) {
	const refused = (api) => async () => {
		unsupported(state, api, "command context");
		return { cancelled: true };
	};
	return {
		waitForIdle: async () => {},
		newSession: async () => {
			hostAction(state, "new_session", LABEL);
			return { cancelled: false };
		},
		fork: refused("ctx.fork"),
		navigateTree: refused("ctx.navigateTree"),
		switchSession: refused("ctx.switchSession"),
		reload: async () => hostAction(state, "reload", LABEL),
		getSystemPromptOptions: () => ({}),
	};
}

export function makeContext(state, pi, signal, forCommand) {
	const ctx = {
		ui: makeUi(state),
		hasUI: true,
		mode: "rpc",
		cwd: workspace(state),
		sessionManager: sessionManager(state, pi),
		modelRegistry: { getAll: () => [], getAvailable: () => [], find: () => undefined },
		model: undefined,
		scopedModels: [],
		thinkingLevel: "off",
		signal,
		isIdle: () => isIdle(state),
		abort: () => {},
		hasPendingMessages: () => false,
		shutdown: () => hostAction(state, "shutdown", LABEL),
		getContextUsage: () => ({ tokens: null, contextWindow: 0, percent: null }),
		compact: () => hostAction(state, "compact", LABEL),
		getSystemPrompt: () => "",
		isProjectTrusted: () => true,
	};
	return forCommand ? Object.assign(ctx, commandActions(state)) : ctx;
}

/** The `ctx` as one package's instance gets it: once a session_end has torn the instance down
 * (its runtime invalidated, renew.mjs), every property throws pi's stale message, as pi's
 * runner does for a ctx kept past `/new`, `/resume`, `/fork` or `/reload` (pi ≥ 0.69).
 * Objects already taken from it (`ctx.ui`, `ctx.sessionManager`) stay usable, as in pi. */
export function contextFor(ctx, runtime) {
	if (!runtime) return ctx;
	return new Proxy(ctx, {
		get(target, key) {
			runtime.assertActive();
			return Reflect.get(target, key, target);
		},
	});
}
