//! Code generation for MCP clients. Filled by the codegen work.
