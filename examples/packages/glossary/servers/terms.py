"""The glossary's MCP server: one tool, `define`, over stdio (JSON-RPC, one message a
line). Written with the standard library only, so it runs with any Python 3."""

import json
import sys

TERMS = {
    "cache": "A store of results kept so that the work is not done again.",
    "hook": "Code that runs at a named point of another program's life and may change it.",
    "sandbox": "The limits a process runs within: what it may read, write and reach.",
}
TOOLS = [
    {
        "name": "define",
        "description": "The project glossary's definition of a term.",
        "inputSchema": {
            "type": "object",
            "properties": {"term": {"type": "string"}},
            "required": ["term"],
        },
        "annotations": {"readOnlyHint": True},
    }
]
VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")


def answer(request):
    method, params = request.get("method"), request.get("params") or {}
    if method == "initialize":
        asked = params.get("protocolVersion")
        return {
            "protocolVersion": asked if asked in VERSIONS else VERSIONS[1],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "glossary-terms", "version": "1.0.0"},
        }
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call" and params.get("name") == "define":
        term = str((params.get("arguments") or {}).get("term", ""))
        found = TERMS.get(term)
        text = f"{term}: {found}" if found else f"{term!r} is not in the glossary"
        return {"content": [{"type": "text", "text": text}], "isError": found is None}
    raise LookupError(method)


for line in sys.stdin:
    try:
        request = json.loads(line)
    except ValueError:
        continue
    if "id" not in request:
        continue  # a notification
    try:
        reply = {"jsonrpc": "2.0", "id": request["id"], "result": answer(request)}
    except LookupError:
        reply = {
            "jsonrpc": "2.0",
            "id": request["id"],
            "error": {"code": -32601, "message": f"Method not found: {request.get('method')}"},
        }
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
