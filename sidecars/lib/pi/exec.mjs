// Stands in for pi's `core/exec.js` as imported by pi's extension loader (the Pi host
// redirects that one import here with a module hook), so `pi.exec()` runs on the host when
// the host offered `host.request` — under its environment allow-list, workspace and policy —
// and in the sidecar otherwise (pi's own implementation).

import { piUrl } from "./modules.mjs";

const { execCommand: piExecCommand } = await import(piUrl("core/exec.js"));

let viaHost = null;

/** `(command, args, cwd, options) => result | undefined` (undefined: run it here). */
export function setHostExec(run) {
	viaHost = run;
}

export async function execCommand(command, args, cwd, options) {
	if (viaHost) {
		const result = await viaHost(command, args, cwd, options);
		if (result !== undefined) return result;
	}
	return piExecCommand(command, args, cwd, options);
}
