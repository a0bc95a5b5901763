// The session transcript as OpenClaw plugins read it: messages {role, content} from the host's
// entries (negotiated `host.request` `session.entries`), and a JSONL snapshot in OpenClaw's
// transcript shape ({type: "message", message}) for the hooks and commands that read
// `sessionFile` themselves.

import fs from "node:fs";
import path from "node:path";
import { hostRequest } from "../wire.mjs";

function message(entry) {
	if ((entry.type === "user" || entry.type === "assistant") && entry.content !== undefined) {
		return { role: entry.role ?? entry.type, content: entry.content };
	}
	if (entry.type === "tool_result") return { role: "toolResult", content: String(entry.output ?? ""), isError: Boolean(entry.is_error) };
	if (entry.type === "compaction") return { role: "system", content: String(entry.summary ?? "") };
	return null;
}

export async function transcript(state) {
	const entries = await hostRequest(state, "session.entries");
	return Array.isArray(entries) ? entries.map(message).filter(Boolean) : [];
}

/** Write the transcript under the plugin's state dir; its path (undefined when unwritable). */
export async function sessionFile(state, plugin, messages) {
	const sessionId = state.initialize?.session_id || "session";
	const file = path.join(plugin.stateDir, "sessions", `${sessionId.replace(/[^A-Za-z0-9._-]/g, "_")}.jsonl`);
	const lines = (messages ?? (await transcript(state))).map((m) => JSON.stringify({ type: "message", message: m }));
	try {
		await fs.promises.mkdir(path.dirname(file), { recursive: true });
		await fs.promises.writeFile(file, lines.length ? `${lines.join("\n")}\n` : "");
		return file;
	} catch {
		return undefined;
	}
}
