//! The answer grader: deterministic, offline, explainable.
