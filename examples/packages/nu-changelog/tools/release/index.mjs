import { line } from "../../lib/format.mjs";

// A Nu tool's result is serialized as JSON unless it has MCP's shape: text goes out as a
// text part, so the agent reads the section, not a quoted string.
export default (args, config) => {
  const title = `## ${config.project ? `${config.project} ` : ""}${args.version}`;
  const section = [title, "", ...args.entries.map((entry) => line(entry.kind, entry.text))];
  return { content: [{ type: "text", text: section.join("\n") }] };
};
