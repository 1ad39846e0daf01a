//! Message types and protocol constants shared by the mock server and the lab's checking client.
