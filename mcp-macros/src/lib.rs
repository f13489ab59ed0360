//! Attribute macros for MCP tools, prompts and resources. Filled by the macros work.
