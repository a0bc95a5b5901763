import { line } from "../../lib/format.mjs";

export default (args) => ({ content: [{ type: "text", text: line(args.kind, args.text) }] });
