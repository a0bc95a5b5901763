// Pi's legacy events: APIs pi removed whose handlers pi 1.6's loader still keeps (they never
// run there). Each is translated onto the canonical event its replacement rides on, and the
// translation is reported once per event (`pi.legacy_event_translated`), naming the
// replacement. Pi's CHANGELOG (0.65): "Removed extension post-transition events
// `session_switch` and `session_fork`. Use `session_start` with `event.reason`".

// Pi event -> {canonical, reasons: the session_start reasons it ran for, replacement}.
export const LEGACY_EVENTS = Object.freeze({
	session_switch: { canonical: "session_start", reasons: ["new", "resume"], replacement: 'session_start with reason "new" or "resume"' },
	session_fork: { canonical: "session_start", reasons: ["fork"], replacement: 'session_start with reason "fork"' },
});

/** The legacy events a session_start of `reason` runs, with their payloads (pi ≤ 0.64's). */
export function legacySessionEvents(reason, previousSessionFile) {
	return Object.entries(LEGACY_EVENTS)
		.filter(([, legacy]) => legacy.canonical === "session_start" && legacy.reasons.includes(reason))
		.map(([type]) => ({ type, reason, previousSessionFile }));
}
