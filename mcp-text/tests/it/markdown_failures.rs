//! One test per failure users of Atlassian MCP servers report.
