// Types for Nu tools and extensions, as Extension Gateway reads the Nu document (docs/nu.md).
// The document says they come from `@rebuno/nu-types`; no such package is published, so the
// gateway defines them here. Point TypeScript at this folder (paths: {"@rebuno/nu-types":
// [".../sidecars/nu-types"]}). A value import of the module gets an empty module at run time.

/** MCP's content parts: what a tool may return as `{content: [...]}`. */
export type ContentPart =
	| { type: "text"; text: string }
	| { type: "image"; data: string; mimeType: string }
	| { type: "audio"; data: string; mimeType: string };

/** A structured tool result in MCP's CallToolResult shape. */
export interface ToolResult {
	content: ContentPart[];
	isError?: boolean;
}

/** A tool module's default export: the call's arguments and the package's settings. Any
 * other returned value is sent as its JSON text; a thrown error is an error result. */
export type Tool<Args = Record<string, unknown>, Config = Record<string, unknown>> = (
	args: Args,
	config: Config,
) => unknown | Promise<unknown>;

export interface BeforeAgentStartEvent {
	type: "before_agent_start";
	/** The user's prompt for this turn. */
	prompt: string;
	/** The system prompt so far. */
	systemPrompt: string;
}
export interface InputEvent {
	type: "input";
	text: string;
	source: "interactive" | "rpc" | "extension";
}
export interface TurnEndEvent {
	type: "turn_end";
	turnIndex: number;
	interrupted: boolean;
}
export interface ToolExecutionEndEvent {
	type: "tool_execution_end";
	toolCallId: string;
	toolName: string;
	args: Record<string, unknown>;
	result: { content: ContentPart[] };
	isError: boolean;
}

export type InputResult = { action: "continue" } | { action: "transform"; text: string } | { action: "handled" };

export interface Hooks {
	/** Before each turn: `{prompt}` is added to the system prompt. */
	before_agent_start: (event: BeforeAgentStartEvent) => { prompt?: string } | void | Promise<{ prompt?: string } | void>;
	/** On each incoming message. */
	input: (event: InputEvent) => InputResult | void | Promise<InputResult | void>;
	/** After each turn; delivered once. */
	turn_end: (event: TurnEndEvent) => void | Promise<void>;
	/** After each tool call; delivered once. */
	tool_execution_end: (event: ToolExecutionEndEvent) => void | Promise<void>;
}

/** A watcher starts a turn when something happens: `trigger(text)` sends text as input. */
export interface Watcher {
	name?: string;
	start(trigger: (message: string | { text: string }) => boolean): void | (() => void) | Promise<void | (() => void)>;
	stop?(): void | Promise<void>;
}

export interface Nu {
	/** The package's settings (the keys its `config` lists; `gateway config ID KEY VALUE`). */
	readonly config: Record<string, unknown>;
	/** One of the secrets its `secrets` lists (undefined when not set); any other name throws. */
	secret(name: string): string | undefined;
	on<E extends keyof Hooks>(event: E, handler: Hooks[E]): void;
	registerWatcher(watcher: Watcher): void;
	/** A gateway addition: the W3C trace context of the hook being served (when the gateway
	 * traces), to continue its trace; {} outside a hook. Each hook served reads its own. */
	trace(): { traceparent?: string; tracestate?: string };
	/** Not supported by the gateway (recorded as nu.unsupported_api). */
	registerChannel(adapter: unknown): void;
	/** Not supported by the gateway (recorded as nu.unsupported_api). */
	registerMemoryStore(store: unknown): void;
	/** Not supported by the gateway (recorded as nu.unsupported_api). */
	registerBrowserProvider(provider: unknown): void;
	/** Not supported by the gateway (recorded as nu.unsupported_api). */
	registerSandbox(sandbox: unknown): void;
}

/** An extension module's default export. */
export type Extension = (nu: Nu) => void | Promise<void>;
