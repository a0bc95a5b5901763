// A plugin's config, validated as OpenClaw validates `plugins.entries.<id>.config` before
// `register` (src/plugins/loader-shared.ts#validatePluginConfig): the empty-schema shortcut,
// else the SDK's own JSON Schema validator with the schema's defaults applied. The defaulted
// value is `api.pluginConfig`; `api.config` is an OpenClaw config holding it under
// `plugins.entries.<id>`. The validator is loaded from its bundle (sidecars/bundle.mjs: one
// module instead of ~245) when that was built for the installed SDK, else as installed.

import fs from "node:fs";
import { SDK_VERSION } from "./sdk.mjs";

const BUNDLE = new URL("../../node_modules/.gateway/openclaw/", import.meta.url);

/** The stored config (GATEWAY_HOME/config/<id>.json, `gateway config`): {own, settings} —
 * the plugin's config and the gateway's reserved `$gateway` settings for it — or {error}. */
export function readConfigFile(file) {
	let text;
	try {
		text = file ? fs.readFileSync(file, "utf8") : "{}";
	} catch (error) {
		if (error?.code !== "ENOENT") return { error: `${file}: ${error.message}` };
		text = "{}";
	}
	let data;
	try {
		data = JSON.parse(text);
	} catch (error) {
		return { error: `${file}: not JSON (${error.message})` };
	}
	if (!isObject(data)) return { error: `${file}: not a JSON object` };
	const { $gateway: settings, ...own } = data;
	return { own, settings: isObject(settings) ? settings : {} };
}

const SHORTCUT_KEYWORDS = new Set(["type", "additionalProperties", "properties", "title", "description", "$schema", "$id", "$comment", "deprecated", "readOnly", "writeOnly"]);

function isEmptySchema(schema) {
	if (schema.type !== "object" || schema.additionalProperties !== false) return false;
	const properties = schema.properties;
	if (!properties || typeof properties !== "object" || Array.isArray(properties) || Object.keys(properties).length > 0) return false;
	return Object.keys(schema).every((keyword) => SHORTCUT_KEYWORDS.has(keyword));
}

/** {ok: true, value} or {ok: false, errors: [text]}. */
export async function validateConfig(pluginId, schema, value) {
	if (!schema || typeof schema !== "object") return { ok: true, value };
	if (isEmptySchema(schema)) {
		if (value === undefined || (isObject(value) && Object.keys(value).length === 0)) return { ok: true, value: {} };
		return { ok: false, errors: [isObject(value) ? "<root>: config must be empty" : "<root>: must be object"] };
	}
	const { validateJsonSchemaValue } = await validatorModule();
	try {
		const result = validateJsonSchemaValue({ schema, cacheKey: `gateway:${pluginId}`, value: value ?? {}, applyDefaults: true });
		return result.ok ? { ok: true, value: result.value } : { ok: false, errors: result.errors.map((e) => e.text) };
	} catch (error) {
		return { ok: false, errors: [String(error?.message ?? error)] };
	}
}

/** The SDK's `json-schema-runtime`: its bundle when built for this SDK and not switched off
 * (GATEWAY_SIDECAR_UNBUNDLED=openclaw, or =1 for every bundle), else the SDK's own module. */
async function validatorModule() {
	const off = process.env.GATEWAY_SIDECAR_UNBUNDLED ?? "";
	if (off !== "1" && !off.split(",").includes("openclaw")) {
		let file;
		try {
			const manifest = JSON.parse(fs.readFileSync(new URL("manifest.json", BUNDLE), "utf8"));
			if (manifest.version === SDK_VERSION) file = manifest.entries?.["json-schema-runtime"];
		} catch {
			// not built (modules installed by hand, or setup without the OpenClaw SDK)
		}
		if (typeof file === "string") return import(new URL(file, BUNDLE).href);
	}
	return import("openclaw/plugin-sdk/json-schema-runtime");
}

function isObject(value) {
	return Boolean(value) && typeof value === "object" && !Array.isArray(value);
}

/** The OpenClaw config a plugin sees as `api.config` (and `runtime.config.current()`): its
 * config under the manifest id (shared by the plugins of a multi-entry package). */
export function openclawConfig(plugin) {
	const entry = { enabled: true, config: plugin.pluginConfig, hooks: { allowConversationAccess: plugin.conversationAccess } };
	return { plugins: { entries: { [plugin.manifestId]: entry } } };
}
