// An OpenClaw plugin: a tool, and a hook that acts on another ecosystem's tool.
//
// `before_tool_call` sees every tool call of the session, whoever provides the tool: here it
// guards `review_code`, a tool of the nanobot package acme.review (run in the Python
// sidecar) — it normalises the path it is given and refuses to review vendored code — and
// rewrites calls of `mcp_glossary_define`, the MCP tool of the Agent Plugin `glossary`
// (its stdio server, run by the plugin host), to the glossary's spelling of a term.

const RULES = [
	"Names say what a thing is for, not how it is built.",
	"Comments say why, not what.",
	"One module, one job.",
];

export default function register(api) {
	const vendored = api.pluginConfig?.vendored ?? "vendor/";
	api.registerTool({
		name: "style_guide",
		description: "The project's house style, one rule per line.",
		parameters: { type: "object", properties: {} },
		async execute() {
			return { content: [{ type: "text", text: RULES.join("\n") }] };
		},
	});
	api.on("before_tool_call", (event) => {
		if (event.toolName === "mcp_glossary_define") {
			const term = String(event.params?.term ?? "").trim().toLowerCase();
			return { params: { ...event.params, term } };
		}
		if (event.toolName !== "review_code") return undefined;
		const path = String(event.params?.path ?? "").replace(/^(\.\/)+/, "");
		if (path.startsWith(vendored)) {
			return { block: true, blockReason: `house-style: ${path} is vendored code; it is not reviewed here` };
		}
		return { params: { ...event.params, path } };
	});
}
