"""The same echo tool as an MCP server (stdio), for the MCP Python SDK comparison."""

try:  # mcp 2.x
    from mcp.server.mcpserver import MCPServer as Server
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as Server

server = Server("echo")


@server.tool()
def echo(text: str = "") -> str:
    """Echo the text back."""
    return text


if __name__ == "__main__":
    server.run("stdio")
