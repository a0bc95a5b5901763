// Stands in for pi's `core/exec.js` as imported by pi's extension loader (the Pi host
// redirects that one import here with a module hook), so `pi.exec()` runs on the host when
// the host offered `host.request` — under its environment allow-list, workspace and policy —
// and in the sidecar otherwise (pi's own implementation).

import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const dist = path.dirname(fileURLToPath(import.meta.resolve("@earendil-works/pi-coding-agent")));
const { execCommand: piExecCommand } = await import(pathToFileURL(path.join(dist, "core/exec.js")).href);

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
