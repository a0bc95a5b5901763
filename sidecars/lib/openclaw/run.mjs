// Running OpenClaw hook handlers as OpenClaw's hook runner does (src/plugins/hooks.ts): the
// registrations of a hook sorted by priority (higher first, then registration order),
// filtered by a tool matcher or eligible triggers; each handler under its timeout (which does
// not cancel it); modifying hooks one after another, observing hooks all at once.

import { log } from "../stdio.mjs";
import { timeoutFor } from "./hooks.mjs";

export function hooksFor(oc, hookName, { toolName, trigger } = {}) {
	return (oc.hooks.get(hookName) ?? [])
		.filter((reg) => toolName === undefined || !reg.matcher || reg.matcher.includes(toolName))
		.filter((reg) => trigger === undefined || !reg.eligibleTriggers || reg.eligibleTriggers.includes(trigger));
}

/** Register one hook, keeping the list in run order. */
export function addHook(oc, reg) {
	const list = oc.hooks.get(reg.hookName) ?? [];
	list.push(reg);
	list.sort((a, b) => b.priority - a.priority || a.order - b.order);
	oc.hooks.set(reg.hookName, list);
}

/** {ok: true, value} or {ok: false, error} (a throw, a rejection, or the timeout). */
export async function invoke(reg, event, ctx) {
	const timeout = timeoutFor(reg);
	let timer;
	try {
		const run = Promise.resolve().then(() => reg.handler(event, ctx));
		if (!timeout) return { ok: true, value: await run };
		run.catch(() => {}); // the handler may still settle after its timeout
		const late = new Promise((_, reject) => {
			timer = setTimeout(() => reject(new Error(`timed out after ${timeout}ms`)), timeout);
		});
		return { ok: true, value: await Promise.race([run, late]) };
	} catch (error) {
		log(`${reg.declaredName} hook of ${reg.plugin.pluginId} failed: ${error?.stack ?? error}`);
		return { ok: false, error };
	} finally {
		clearTimeout(timer);
	}
}

/** Observing hooks: every handler at once; results ignored, failures logged. */
export async function observe(oc, hookName, event, ctx, filter) {
	await Promise.all(hooksFor(oc, hookName, filter).map((reg) => invoke(reg, structuredClone(event), ctx)));
}

/** Modifying hooks in order: `merge(acc, result, reg)` folds each result; `stop(acc)` ends
 * the run; a failure is skipped (fail-open) or, with `failClosed(reg, error)`, ends it. */
export async function modify(oc, hookName, event, ctx, { merge, stop, failClosed, filter, each } = {}) {
	let acc;
	for (const reg of hooksFor(oc, hookName, filter)) {
		const outcome = await invoke(reg, each ? each(acc) : structuredClone(event), ctx);
		if (!outcome.ok) {
			if (failClosed) return failClosed(reg, outcome.error);
			continue;
		}
		if (outcome.value === undefined || outcome.value === null || typeof outcome.value !== "object") continue;
		acc = merge ? merge(acc, outcome.value, reg) : outcome.value;
		if (stop?.(acc)) break;
	}
	return acc;
}

/** Join text segments that are present, as OpenClaw's concatOptionalTextSegments. */
export function concat(left, right, separator = "\n\n") {
	if (left && right) return `${left}${separator}${right}`;
	return right ?? left;
}

export function joinPresent(parts) {
	return parts.filter((part) => typeof part === "string" && part.length).join("\n\n");
}
