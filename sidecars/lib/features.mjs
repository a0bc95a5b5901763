// The negotiated gateway features this sidecar understands (docs/protocol.md, "Sidecar
// additions"): ONE list. The host announces what it offers in `initialize.gateway.features`;
// a feature is used only when both sides have it. tests/sidecars/test_names.py keeps this
// list equal to the Python side's.

export const FEATURE = Object.freeze({
	diagnostics: "register.diagnostics",
	parts: "tool.parts",
	progress: "tool.progress",
	registrationUpdate: "registration.update",
	actions: "host.actions",
	hostRequest: "host.request",
	extendedEvents: "events.extended",
	owners: "register.owners",
	diagnosticsUpdate: "update.diagnostics",
	flags: "register.flags",
	output: "tool.output",
	hookTools: "register.hook_tools",
	trace: "trace.context",
});

export const FEATURES = Object.freeze(Object.values(FEATURE));

/** Record what the host offered in `initialize` (only features known here count). */
export function negotiate(state, initialize) {
	const offered = initialize?.gateway?.features;
	state.features = new Set((Array.isArray(offered) ? offered : []).filter((f) => FEATURES.includes(f)));
}

/** Whether the host offered `feature` (one of FEATURE's values). */
export function offered(state, feature) {
	if (!FEATURES.includes(feature)) throw new Error(`unknown gateway feature ${feature}`);
	return state.features.has(feature);
}
