// `api.runtime`: what a headless host can honestly provide — the config (read only), the
// plugin's private state dir, commands run by the host under its exec policy (the same
// `host.request` `exec` as Pi's `pi.exec`), system events as notifications. Everything else
// (llm, subagent, tts, media, channel, events, …) stays undefined so plugins that
// feature-detect it fall back; writing the OpenClaw config throws, naming the gateway command.

import os from "node:os";
import path from "node:path";
import { diagnostic } from "../diagnostics.mjs";
import { log } from "../stdio.mjs";
import { hostExec, update } from "../wire.mjs";
import { SDK_VERSION } from "./sdk.mjs";

export function createLogger(pluginId) {
	const line = (level) => (message) => log(`[openclaw:${pluginId}] ${level}: ${message}`);
	return { debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") };
}

/** `api.resolvePath`: `~` is the (private) home, absolute stays, relative is the plugin root. */
export function resolvePath(plugin, input) {
	const text = String(input ?? "");
	if (text === "~" || text.startsWith("~/")) return path.join(os.homedir(), text.slice(1));
	return path.isAbsolute(text) ? text : path.resolve(plugin.rootDir, text);
}

function refuse(state, plugin, api, why) {
	return () => {
		const key = `${plugin.pluginId}:${api}`;
		if (!state.reported.has(key)) {
			state.reported.add(key);
			diagnostic(state, "openclaw.unsupported_api", `${api} (plugin ${plugin.pluginId}): ${why}`, api);
		}
		throw new Error(`${api} is not supported by the gateway: ${why}`);
	};
}

async function runCommandWithTimeout(state, argv, optionsOrTimeout) {
	const options = typeof optionsOrTimeout === "number" ? { timeoutMs: optionsOrTimeout } : (optionsOrTimeout ?? {});
	if (!Array.isArray(argv) || !argv.length) throw new Error("runCommandWithTimeout: argv must be a non-empty array");
	if (options.input !== undefined || options.env !== undefined) log("runCommandWithTimeout: input and env are not passed to the host's exec");
	const result = await hostExec(state, argv[0], argv.slice(1), options.cwd, options.timeoutMs);
	if (result === undefined) throw new Error("runCommandWithTimeout: the host did not offer exec (host.request)");
	return {
		stdout: result.stdout,
		stderr: result.stderr,
		code: result.killed ? null : result.code,
		signal: null,
		killed: result.killed,
		termination: result.killed ? "timeout" : "exit",
		outputLimitExceeded: result.truncated || undefined,
	};
}

export function createRuntime(state, plugin) {
	const writeConfig = refuse(state, plugin, "runtime.config.mutateConfigFile", `set plugin config with \`gateway config ${plugin.packageId} KEY VALUE\``);
	return {
		version: SDK_VERSION,
		config: {
			current: () => plugin.config,
			loadConfig: () => plugin.config,
			mutateConfigFile: writeConfig,
			replaceConfigFile: writeConfig,
		},
		system: {
			runCommandWithTimeout: (argv, options) => runCommandWithTimeout(state, argv, options),
			enqueueSystemEvent: (text) => {
				update(state, { notification: { level: "info", message: `[openclaw:${plugin.pluginId}] ${text}` } });
				return true;
			},
		},
		state: { resolveStateDir: () => plugin.stateDir },
		logging: { getChildLogger: () => plugin.logger },
	};
}
