"""Adapters that put the world model behind other projects' interfaces.

One module per integration: the MCP mirror (`mcp_mirror`, served by `mcp_server`), the world
model as MCP tools (`world_tools`), Inspect AI's sandbox (`inspect_sandbox`), trajectory formats
(`backend.data.formats`) and the Hub's evaluation results (`hub_results`). Each takes its steps
through the one step path (`backend.stepping`) and stores them as sessions.
"""
