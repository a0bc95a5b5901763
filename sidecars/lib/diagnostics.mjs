// Diagnostics a host reports while loading its packages; sent in `register.gateway.diagnostics`
// (negotiated `register.diagnostics`) and always written to the log. CODES is every code the
// sidecar emits; each must be catalogued on the Python side (adapters/_codes.py), which
// tests/sidecars/test_names.py checks.

import { log } from "./stdio.mjs";

export const CODES = Object.freeze([
	"pi.unsupported_api",
	"pi.tool_conflict",
	"pi.command_renamed",
	"pi.event_unmapped",
	"pi.load_failed",
	"sidecar.name_conflict",
	"openclaw.load_failed",
	"openclaw.sdk_unavailable",
	"openclaw.config_invalid",
	"openclaw.register_async",
	"openclaw.late_registration",
	"openclaw.unsupported_api",
	"openclaw.hook_unmapped",
	"openclaw.hook_unknown",
	"openclaw.legacy_api",
	"openclaw.conversation_access",
	"openclaw.tool_contract",
	"openclaw.tool_optional",
	"openclaw.tool_conflict",
	"openclaw.registration_invalid",
	"openclaw.command_reserved",
	"openclaw.command_conflict",
	"openclaw.command_alias",
	"openclaw.id_mismatch",
]);

export function diagnostic(state, code, message, contribution) {
	if (!CODES.includes(code)) throw new Error(`uncatalogued diagnostic code ${code}`);
	const item = { code, message };
	if (contribution) item.contribution = contribution;
	state.diagnostics.push(item);
	log(`${code}: ${message}`);
}
