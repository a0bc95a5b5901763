// Where Pi's behaviour changed between releases, the Pi a package declares decides which
// behaviour it gets (docs/pi.md, "Host versions"): the adapter passes `hostVersion`, the newest
// Pi release its peerDependencies range admits, when that range excludes the pinned Pi; a
// package without one gets the pinned Pi's behaviour. Each change is named here with the
// release it came in (from pi-coding-agent's CHANGELOG).

export const SINCE = Object.freeze({
	compactionReason: "0.79.10", // session_before_compact / session_compact carry reason, willRetry
	toolExposure: "0.99.0", // tool defaultActive, exposure, namespace, outputSchema
	busyRunStart: "1.2.0", // the session is busy while a run starts (before_agent_start); messageType union
});

function parse(version) {
	const parts = String(version).split(".").map((part) => Number.parseInt(part, 10));
	return [0, 1, 2].map((i) => (Number.isFinite(parts[i]) ? parts[i] : 0));
}

function atLeast(version, wanted) {
	const [a, b] = [parse(version), parse(wanted)];
	for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i];
	return true;
}

/** Whether a package gets the behaviour `feature` (a SINCE key): true unless it targets an
 * older Pi. `packageId` undefined (an event for every package): the pinned Pi's. */
export function since(pi, packageId, feature) {
	const version = packageId === undefined ? undefined : pi.hostVersions.get(packageId);
	return version === undefined || atLeast(version, SINCE[feature]);
}
