//! The mock server's tests (package mcp-tutor-mock), as one binary: each file was its own crate once, and each linked tokio,
//! axum and reqwest again (12 links per build). `cargo test -p mcp-tutor-mock --test integration
//! faults::` runs one file.

mod common;

mod control_tools;
mod faults;
mod handler_props;
mod http_limits;
mod http_validation;
mod listen_rules;
mod origin_host;
mod pagination;
mod scale;
mod shutdown;
mod stdio;
mod stdio_backpressure;
mod stdio_robust;
mod strict_input;
