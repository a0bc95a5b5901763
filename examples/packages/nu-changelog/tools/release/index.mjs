import { line } from "../../lib/format.mjs";

export default (args, config) => {
  const title = `## ${config.project ? `${config.project} ` : ""}${args.version}`;
  return [title, "", ...args.entries.map((entry) => line(entry.kind, entry.text))].join("\n");
};
