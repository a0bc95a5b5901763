"""The same echo tool as an MCP server on streamable HTTP (the SDK's own app on uvicorn),
the baseline of ``bench_http.py``: the stdio baseline's server (``mcp_echo_server.py``)
served over HTTP.

    python benchmarks/mcp_http_echo_server.py PORT      # http://127.0.0.1:PORT/mcp
"""

import sys

import uvicorn
from mcp_echo_server import server  # this script's folder is first on sys.path

if __name__ == "__main__":
    # The SDK's defaults, as `gateway serve --mcp --http` uses them: a stateful session per
    # client, replies as event streams, DNS rebinding protection on the loopback address.
    app = server.streamable_http_app(host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning",
                access_log=False)  # fmt: skip
