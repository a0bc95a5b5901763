// The root barrel `openclaw/plugin-sdk` (and `@openclaw/plugin-sdk`), which OpenClaw removed
// from its exports in 2026.8 but older plugins still import: the same helpers, taken from the
// pinned SDK's subpaths. `registerContextEngine` is exported as undefined so plugins that
// feature-detect it fall back to hooks, as they do on hosts without a context engine.

export * from "openclaw/plugin-sdk/core";
export { textResult } from "openclaw/plugin-sdk/tool-results";
export { DEFAULT_ACCOUNT_ID, normalizeAccountId } from "openclaw/plugin-sdk/account-id";
export { createPluginRuntimeStore } from "openclaw/plugin-sdk/runtime-store";
export { defineToolPlugin } from "openclaw/plugin-sdk/tool-plugin";
export { onDiagnosticEvent } from "openclaw/plugin-sdk/diagnostic-runtime";
export const registerContextEngine = undefined;
