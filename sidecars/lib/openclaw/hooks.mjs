// OpenClaw's typed hook catalogue (2026.9: 42 names, src/plugins/hook-types.ts) and what this
// host does with each: the canonical event it runs at (`event`), or the sidecar's own start
// and stop (`host`), or nothing: `never` (with why) for an event a headless gateway never has
// (subagents, cron, heartbeats, channels, Skill Workshop) — the registration is accepted and
// kept, as OpenClaw keeps it, and never called, since the event never happens here — or
// `unmapped` (with why) for an event that happens but belongs to the embedding agent or the
// host, where the hook is not registered. `kind` is OpenClaw's merge kind;
// `conv` marks the conversation hooks that need the plugin's conversation-access grant;
// `timeout` is OpenClaw's default per-handler budget (ms); `failClosed` blocks on a failure.

const UNMAPPED = {
	model: "model and provider selection belong to the embedding agent",
	provider: "provider calls belong to the embedding agent",
	loop: "agent-loop control belongs to the embedding agent",
	channel: "channels do not run in a headless gateway",
	subagent: "the gateway runs no subagents",
	cron: "the gateway runs no cron jobs",
	heartbeat: "the gateway runs no heartbeats",
	skills: "the gateway has no Skill Workshop",
	install: "gateway install never runs package code",
	exec: "the host's exec environment is its allow-list",
	transcript: "the session transcript is written by the host",
};

export const HOOKS = Object.freeze({
	before_model_resolve: { kind: "modify", conv: true, unmapped: UNMAPPED.model },
	agent_turn_prepare: { kind: "modify", conv: true, event: "before_agent_start" },
	before_prompt_build: { kind: "modify", conv: true, event: "before_agent_start", timeout: 15000 },
	before_agent_reply: { kind: "claim", conv: true, event: "input" },
	model_call_started: { kind: "observe", unmapped: UNMAPPED.provider },
	model_call_ended: { kind: "observe", unmapped: UNMAPPED.provider },
	llm_input: { kind: "observe", conv: true, event: "context" },
	llm_output: { kind: "observe", conv: true, event: "message_sending" },
	before_agent_finalize: { kind: "modify", conv: true, timeout: 15000, unmapped: UNMAPPED.loop },
	agent_end: { kind: "observe", conv: true, event: "turn_end", timeout: 30000 },
	before_compaction: { kind: "observe", event: "session_before_compact", timeout: 30000 },
	after_compaction: { kind: "observe", event: "session_compact", timeout: 30000 },
	before_reset: { kind: "observe", event: "session_end" }, // only when it ends for a new one
	inbound_claim: { kind: "claim", never: UNMAPPED.channel },
	channel_pairing_requested: { kind: "observe", timeout: 2000, never: UNMAPPED.channel },
	message_received: { kind: "observe", event: "message_received" },
	message_sending: { kind: "modify", event: "message_sending", timeout: 15000 },
	reply_payload_sending: { kind: "modify", event: "message_sending", timeout: 15000 },
	message_sent: { kind: "observe", event: "message_sent" },
	before_tool_call: { kind: "modify", event: "tool_call", timeout: 15000, failClosed: true },
	after_tool_call: { kind: "observe", event: "tool_result" },
	tool_result_persist: { kind: "sync", event: "tool_result" },
	before_message_write: { kind: "sync", unmapped: UNMAPPED.transcript },
	session_start: { kind: "observe", event: "session_start" },
	session_end: { kind: "observe", event: "session_end" },
	subagent_delivery_target: { kind: "modify", never: UNMAPPED.subagent },
	subagent_spawned: { kind: "observe", never: UNMAPPED.subagent },
	subagent_progress: { kind: "observe", never: UNMAPPED.subagent },
	subagent_ended: { kind: "observe", never: UNMAPPED.subagent },
	gateway_start: { kind: "observe", host: "start" },
	gateway_stop: { kind: "observe", host: "stop", timeout: 5000 },
	heartbeat_prompt_contribution: { kind: "modify", never: UNMAPPED.heartbeat },
	cron_reconciled: { kind: "observe", never: UNMAPPED.cron },
	cron_changed: { kind: "observe", never: UNMAPPED.cron },
	skill_proposal_evaluate: { kind: "modify", timeout: 120000, never: UNMAPPED.skills },
	skill_proposal_changed: { kind: "observe", timeout: 30000, never: UNMAPPED.skills },
	skill_changed: { kind: "observe", timeout: 30000, never: UNMAPPED.skills },
	before_dispatch: { kind: "claim", event: "input" },
	reply_dispatch: { kind: "claim", never: UNMAPPED.channel },
	before_install: { kind: "modify", timeout: 15000, failClosed: true, unmapped: UNMAPPED.install },
	before_agent_run: { kind: "gate", conv: true, event: "input", timeout: 15000, failClosed: true },
	resolve_exec_env: { kind: "modify", timeout: 15000, unmapped: UNMAPPED.exec },
});

/** Legacy names (≤ 2026.7) and the hook each runs as. `before_agent_start` ran once per
 * turn for both prompt building and model resolution: here it runs with before_prompt_build
 * (a model override it returns is logged, model selection being the agent's). */
export const LEGACY = Object.freeze({
	before_agent_start: "before_prompt_build",
	deactivate: "gateway_stop",
	subagent_spawning: "subagent_spawned",
});

/** The timeout (ms) for one handler: the registration's, the plugin's gateway config
 * (`$gateway.hooks.timeouts.<hook>`, `$gateway.hooks.timeoutMs`), else OpenClaw's default. */
export function timeoutFor(registration) {
	const settings = registration.plugin.hookSettings ?? {};
	const own = settings.timeouts?.[registration.hookName];
	for (const value of [registration.timeoutMs, own, settings.timeoutMs, HOOKS[registration.hookName]?.timeout]) {
		if (Number.isFinite(value) && value > 0) return value;
	}
	return undefined;
}

/** The typed hook names an older OpenClaw does not have, by the release a plugin is loaded
 * as (`plugin.hookCatalog.release`: its declared band, chosen by the adapter, `_lines.py`
 * `hook_catalog_for`). That OpenClaw's `registerTypedHook` warns `unknown typed hook "<name>"
 * ignored` and registers nothing (it does not throw), and so does this host
 * (`openclaw.hook_not_in_version`). Read from the published packages' `PLUGIN_HOOK_NAMES`
 * (`isPluginHookName`), compared with 2026.9.6's (`dist/hooks-CKanWLsK.mjs`, the 42 of HOOKS):
 * - 2026.4.29: `dist/types-iW1zT4_c.js` (35 names; `registerTypedHook` in
 *   `dist/loader-CLyHx60E.js`) lacks 9 of the 42, and the legacy `deactivate` (which 2026.7.35 has);
 * - 2026.7.35: `dist/command-registration-DTm3HN1D.js` (40 names; `registerTypedHook` in
 *   `dist/registry-Dn5Krghd.js`) lacks 5 of the 42.
 * Their legacy names (before_agent_start, subagent_spawning; 2026.7.35 also deactivate) are
 * LEGACY's. */
const SKILL_WORKSHOP = ["skill_proposal_evaluate", "skill_proposal_changed", "skill_changed"];
export const ABSENT_IN = Object.freeze({
	"2026.4.29": Object.freeze([
		"channel_pairing_requested", "reply_payload_sending", "subagent_progress", "cron_reconciled",
		...SKILL_WORKSHOP, "before_agent_run", "resolve_exec_env", "deactivate",
	]),
	"2026.7.35": Object.freeze(["subagent_progress", "cron_reconciled", ...SKILL_WORKSHOP]),
	"2026.9.6": Object.freeze([]),
});

/** The first of the known releases that has `name` (for the diagnostic's advice). */
export function firstWith(name) {
	return Object.keys(ABSENT_IN).find((release) => !ABSENT_IN[release].includes(name));
}
