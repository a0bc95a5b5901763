// Pi's extension runtime (the object behind `pi.sendMessage`, `pi.setActiveTools`, …) bound
// to this host: messages ride on the current command's reply or become notifications,
// entries become session entries, the active tool set is what the host registers.

import { contentText } from "../content.mjs";
import { sendRegistrationDelta } from "../registration.mjs";
import { currentRequest } from "../state.mjs";
import { log } from "../stdio.mjs";
import { update } from "../wire.mjs";
import { makeContext } from "./context.mjs";
import { collectTools, isActive } from "./registry.mjs";

export function bindRuntime(state, pi, runtime) {
	runtime.sendMessage = (message) => {
		const text = contentText(message?.content);
		const current = currentRequest(state);
		if (current?.kind === "command") current.messages.push(text);
		else update(state, { notification: { level: "info", message: text } });
	};
	runtime.sendUserMessage = (content) => {
		const text = contentText(content);
		const current = currentRequest(state);
		if (current?.kind === "command") current.prompt = text;
		else update(state, { notification: { level: "info", message: `[pi] user message requested: ${text}` } });
	};
	runtime.appendEntry = (customType, data) => {
		const session = pi.session;
		const entry = { type: "custom", customType, data, id: `e${session.entries.length + 1}`, timestamp: new Date().toISOString() };
		session.entries.push(entry);
		session.hostEntries?.push({ ...entry, id: `h${session.hostEntries.length + 1}` });
		update(state, { entry: { customType, data: data ?? null } });
	};
	runtime.setSessionName = (name) => {
		pi.session.name = name;
	};
	runtime.getSessionName = () => pi.session.name;
	runtime.setLabel = () => {};
	runtime.getActiveTools = () => [...pi.tools.keys()].filter((name) => isActive(pi, name));
	runtime.getAllTools = () =>
		[...pi.tools.entries()].map(([name, t]) => ({
			name,
			description: t.definition.description ?? "",
			parameters: t.definition.parameters,
			sourceInfo: t.sourceInfo,
		}));
	runtime.getSettings = () => ({});
	runtime.setActiveTools = (names) => {
		pi.activeTools = new Set(names);
		sendRegistrationDelta(state);
	};
	runtime.refreshTools = () => {
		if (state.registered) collectTools(state, pi, true);
	};
	runtime.getCommands = () =>
		[...pi.commands.entries()].map(([name, c]) => ({
			name,
			description: c.command.description,
			source: c.source ?? "extension",
			sourceInfo: c.command.sourceInfo,
		}));
	runtime.setModel = async () => {
		log("setModel: model control is not available headless");
		return false;
	};
	runtime.getThinkingLevel = () => "off";
	runtime.setThinkingLevel = () => log("setThinkingLevel: thinking control is not available headless");
	runtime.createContext = () => makeContext(state, pi, undefined, false);
	runtime.reportError = (error) => log(`extension error ${JSON.stringify(error)}`);
}
