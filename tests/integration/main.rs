//! One integration-test binary (like `just`): each module drives the real `mcp-tutor` binary.

mod check;
mod check_hostile;
mod check_transports;
mod check_wire;
mod decks;
mod grade;
mod grader_props;
mod grader_regressions;
mod judge;
mod judge_quiz;
mod judge_stub;
mod lab;
mod lab_flood;
mod lab_foreign;
mod lab_pty;
mod layout;
mod progress;
mod quiz;
mod quiz_process;
mod readme;
mod serve;
mod sse_props;
mod stats;
mod support;
mod term;
mod tls;
