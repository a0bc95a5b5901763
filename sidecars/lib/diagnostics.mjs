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
]);

export function diagnostic(state, code, message, contribution) {
	if (!CODES.includes(code)) throw new Error(`uncatalogued diagnostic code ${code}`);
	const item = { code, message };
	if (contribution) item.contribution = contribution;
	state.diagnostics.push(item);
	log(`${code}: ${message}`);
}
