// `registerWatcher`: "a watcher that starts a turn when something happens, such as new mail".
// A watcher is {name?, start(trigger), stop?()}. Once the host has registered the extensions,
// each watcher's start(trigger) runs; `trigger(text)` (or `trigger({text})`) becomes input
// the embedding agent receives — a `user_message` delivered `now`: typed input when the agent
// is idle, a follow-up while a turn runs (Gateway.take_follow_ups, AgentLink.submit_input,
// `gateway shell`). start may return a stop function; stop runs at shutdown.

import { log } from "../stdio.mjs";
import { update } from "../wire.mjs";

const MAX_TEXT = 64 * 1024;

function trigger(state, entry) {
	return (message) => {
		if (state.stopping) return false;
		const text = typeof message === "string" ? message : message?.text;
		if (typeof text !== "string" || !text.trim()) {
			log(`watcher ${entry.name} (${entry.where}) fired without text; ignored`);
			return false;
		}
		update(state, { user_message: { content: text.slice(0, MAX_TEXT), deliver_as: "now" } });
		return true;
	};
}

export async function startWatchers(state, nu) {
	for (const entry of nu.watchers) {
		try {
			const stop = await entry.watcher.start(trigger(state, entry));
			entry.stop = typeof stop === "function" ? stop : entry.watcher.stop?.bind(entry.watcher);
		} catch (error) {
			log(`watcher ${entry.name} (${entry.where}) failed to start: ${error?.stack ?? error}`);
		}
	}
}

export async function stopWatchers(nu) {
	for (const entry of nu.watchers) {
		try {
			await entry.stop?.();
		} catch (error) {
			log(`watcher ${entry.name} (${entry.where}) failed to stop: ${error?.message ?? error}`);
		}
	}
}
