// Pi's extension runtime (the object behind `pi.sendMessage`, `pi.setActiveTools`, …) bound
// to this host: messages ride on the current command's reply, join a starting run or become
// notifications, user messages become the host's `user_message` deliveries, entries become
// session entries, the active tool set is what the host registers.

import { contentText } from "../content.mjs";
import { diagnostic } from "../diagnostics.mjs";
import { sendRegistrationDelta } from "../registration.mjs";
import { currentRequest } from "../state.mjs";
import { log } from "../stdio.mjs";
import { update } from "../wire.mjs";
import { currentPackage, isBusy } from "./busy.mjs";
import { contextFor, makeContext } from "./context.mjs";
import { runHandlers } from "./dispatch.mjs";
import { canonicalMessage } from "./events.mjs";
import { collectTools, isActive } from "./registry.mjs";

export function bindRuntime(state, pi, runtime) {
	runtime.sendMessage = (message) => {
		const text = contentText(message?.content);
		const current = currentRequest(state);
		if (current?.kind === "command") current.messages.push(text);
		else if (current?.runMessages && isBusy(state)) current.runMessages.push(canonicalMessage(message ?? {}));
		else update(state, { notification: { level: "info", message: text } });
	};
	runtime.sendUserMessage = (content, options) => sendUserMessage(state, content, options);
	runtime.appendEntry = (customType, data) => {
		const session = pi.session;
		const entry = { type: "custom", customType, data, id: `e${session.entries.length + 1}`, timestamp: new Date().toISOString() };
		session.entries.push(entry);
		session.hostEntries?.push({ ...entry, id: `h${session.hostEntries.length + 1}` });
		update(state, { entry: { customType, data: data ?? null } });
	};
	runtime.setSessionName = (name) => {
		pi.session.name = name;
		sessionInfoChanged(state, pi);
	};
	runtime.getSessionName = () => pi.session.name;
	runtime.setLabel = () => {};
	runtime.getActiveTools = () => [...pi.tools.keys()].filter((name) => isActive(pi, name));
	// Pi's getAllTools (>= 0.99: exposure, and namespace, annotations, reachesTools when set).
	runtime.getAllTools = () =>
		[...pi.tools.entries()].map(([name, t]) => {
			const def = t.definition;
			const info = { name, description: def.description ?? "", parameters: def.parameters, promptGuidelines: def.promptGuidelines, exposure: def.exposure ?? "direct" };
			for (const key of ["namespace", "annotations", "reachesTools"]) if (def[key]) info[key] = def[key];
			return { ...info, sourceInfo: t.sourceInfo };
		});
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
	runtime.createContext = () => contextFor(makeContext(state, pi, undefined, false), runtime);
	runtime.reportError = (error) => log(`extension error ${JSON.stringify(error)}`);
}

// Pi's AgentSession.sendUserMessage (through prompt): idle, it starts a run; busy, it is queued
// as steering or a follow-up by `deliverAs`, and without one Pi fails it ("Agent is already
// processing…", reported to the extension error listeners). Here: inside a command, the
// reply's prompt (a command runs while idle); elsewhere a `user_message` side effect the host
// queues (Gateway.take_steering / take_follow_ups; `now` is typed input while no turn runs).
function sendUserMessage(state, content, options) {
	const text = contentText(content);
	const current = currentRequest(state);
	if (current?.kind === "command") {
		current.prompt = text;
		return;
	}
	if (!isBusy(state)) {
		update(state, { user_message: { content: text, deliver_as: "now" } });
		return;
	}
	if (!options?.deliverAs) {
		const message = "sendUserMessage while the agent is busy needs deliverAs \"steer\" or \"followUp\" (Pi: Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.); dropped";
		diagnostic(state, "pi.user_message_dropped", message, "sendUserMessage", currentPackage(state));
		return;
	}
	const deliverAs = options.deliverAs === "followUp" ? "follow_up" : "steer";
	update(state, { user_message: { content: text, deliver_as: deliverAs } });
}

// Pi's AgentSession.setSessionName: session_info_changed {name} to every extension (not
// awaited), whatever it was called from; outside the request that called it, so its handlers
// do not change what that request's code sees (busy.mjs).
function sessionInfoChanged(state, pi) {
	const event = { type: "session_info_changed", name: pi.session.name || undefined };
	state.requests.exit(() => {
		const ctx = makeContext(state, pi, undefined, false);
		void runHandlers(state, pi, undefined, "session_info_changed", event, ctx).catch((error) => log(`session_info_changed: ${error?.stack ?? error}`));
	});
}
