// The extension: a line for the system prompt before each turn.
export default (nu) => {
  nu.on("before_agent_start", () => ({
    prompt: "Write changelog entries in the imperative mood, one line each.",
  }));
};
