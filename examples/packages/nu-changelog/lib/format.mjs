// Shared by both tools: one formatting rule for every changelog line.
export const KINDS = ["add", "change", "fix", "remove"];

export function line(kind, text) {
  if (!KINDS.includes(kind)) throw new Error(`kind must be one of ${KINDS.join(", ")}`);
  return `- **${kind}**: ${text.trim().replace(/\.$/, "")}`;
}
