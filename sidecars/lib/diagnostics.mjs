// Diagnostics a host reports while loading its packages, sent in `register.gateway.diagnostics`
// (negotiated `register.diagnostics`), and those found later while running (a handler that
// threw), sent in `update.gateway.diagnostics` (negotiated `update.diagnostics`); all are
// written to the log. CODES is every code the sidecar emits; each must be catalogued on the
// Python side (the _codes.py of adapters/pi, adapters/openclaw, adapters/nu, and
// adapters/_codes.py for sidecar.*), which tests/sidecars/test_names.py checks.

import { FEATURE, offered } from "./features.mjs";
import { log } from "./stdio.mjs";

export const CODES = Object.freeze([
	"pi.unsupported_api",
	"pi.tool_conflict",
	"pi.command_renamed",
	"pi.event_unmapped",
	"pi.legacy_event_translated",
	"pi.load_failed",
	"pi.handler_failed",
	"pi.user_message_dropped",
	"pi.renewal_events_changed",
	"sidecar.name_conflict",
	"openclaw.load_failed",
	"openclaw.sdk_unavailable",
	"openclaw.entry_failed_in_host",
	"openclaw.loaded_by_transform",
	"openclaw.config_invalid",
	"openclaw.register_async",
	"openclaw.late_registration",
	"openclaw.unsupported_api",
	"openclaw.hook_unmapped",
	"openclaw.hook_never_emitted",
	"openclaw.hook_unknown",
	"openclaw.hook_not_in_version",
	"openclaw.legacy_api",
	"openclaw.legacy_hook_removed",
	"openclaw.conversation_access",
	"openclaw.tool_contract",
	"openclaw.tool_undeclared",
	"openclaw.tool_optional",
	"openclaw.tool_conflict",
	"openclaw.registration_invalid",
	"openclaw.command_reserved",
	"openclaw.command_conflict",
	"openclaw.command_alias",
	"openclaw.id_mismatch",
	"nu.unsupported_api",
	"nu.load_failed",
	"nu.event_unknown",
]);

/** `pkg`: the id of the package it concerns, when the host knows it (sent only with
 * negotiated `register.owners`, which attributes everything to packages). */
export function diagnostic(state, code, message, contribution, pkg) {
	if (!CODES.includes(code)) throw new Error(`uncatalogued diagnostic code ${code}`);
	const item = { code, message };
	if (contribution) item.contribution = contribution;
	if (pkg) item.package = pkg;
	log(`${code}: ${message}`);
	if (!state.registered) {
		state.diagnostics.push(item); // the host's features may not be known yet
	} else if (offered(state, FEATURE.diagnosticsUpdate)) {
		state.send({ type: "update", gateway: { diagnostics: [wireDiagnostic(state, item)] } });
	}
}

/** A diagnostic as the host may receive it (`package` only with `register.owners`). */
export function wireDiagnostic(state, item) {
	if (item.package === undefined || offered(state, FEATURE.owners)) return item;
	const { package: _omitted, ...rest } = item;
	return rest;
}
