//! The mcp-tutor mock server: MCP 2026-07-28 over Streamable HTTP and stdio, with faults on demand.

pub mod protocol;
