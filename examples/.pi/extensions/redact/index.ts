import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { Type } from "typebox";

// A Pi extension (discovered in the trusted workspace's .pi/extensions): one tool, and a
// tool_call hook that redacts secret-looking tokens from the `text` argument of ANY tool —
// the nimlet extension's save_note included — before the call runs.
const SECRET = /\b(sk|ghp|xox[abp])[-_][A-Za-z0-9_-]{6,}\b/g;

export default function (pi: ExtensionAPI) {
	pi.registerTool({
		name: "open_ticket",
		label: "Open ticket",
		description: "Open a ticket in the project's tracker (the demo only prints it)",
		parameters: Type.Object({ title: Type.String(), body: Type.Optional(Type.String()) }),
		async execute(_id, params) {
			const text = `ticket opened: ${params.title}`;
			return { content: [{ type: "text", text }], details: { title: params.title } };
		},
	});
	pi.on("tool_call", async (event) => {
		const input = event.input as { text?: unknown };
		if (typeof input.text === "string" && SECRET.test(input.text)) {
			input.text = input.text.replace(SECRET, "[redacted]");
		}
		SECRET.lastIndex = 0;
	});
}
