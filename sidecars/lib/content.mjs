// Tool results and message content as the protocol carries them: the plain `content` text
// every nimlet host reads, and the structured parts and details of negotiated `tool.parts`.

import { FEATURE, offered } from "./features.mjs";

/** Text of a content value: a string, or parts (text joined, images as `[image mime]`). */
export function contentText(content) {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return content == null ? "" : JSON.stringify(content);
	return content
		.map((part) => (part?.type === "text" ? part.text : part?.type === "image" ? `[image ${part.mimeType ?? ""}]` : ""))
		.filter(Boolean)
		.join("\n");
}

/** Parts of a result's content (a string result is one text part). */
export function resultParts(result) {
	if (Array.isArray(result?.content)) return result.content;
	if (typeof result === "string") return [{ type: "text", text: result }];
	return [];
}

/** The `tool` reply for a result {content, details, isError}. */
export function toolReply(state, result) {
	const content = resultParts(result);
	const reply = { content: contentText(content), is_error: result?.isError === true };
	if (offered(state, FEATURE.parts)) {
		reply.gateway = {
			parts: content.map((p) =>
				p?.type === "image" ? { type: "image", data: p.data, mime_type: p.mimeType } : { type: "text", text: String(p?.text ?? "") },
			),
			details: result?.details ?? null,
		};
	}
	// A structured result (Pi's structuredContent); the host keeps it only for a tool that
	// declared an output schema.
	if (offered(state, FEATURE.output) && result?.structuredContent !== undefined) {
		reply.gateway = { ...(reply.gateway ?? {}), structured: result.structuredContent };
	}
	return reply;
}

/** A thrown error as a tool reply. */
export function errorReply(error) {
	return { content: error?.message ?? String(error), is_error: true };
}
