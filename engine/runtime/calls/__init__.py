"""What a turn calls out to: models and their agents, tools behind the gateway (HTTP, MCP,
local commands), irreversible actions, memory summaries, and the trace of every call."""
