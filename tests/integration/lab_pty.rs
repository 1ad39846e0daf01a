//! The interactive lab in a real terminal (a pty): a frame that arrives while the user is
//! typing is printed above the prompt, and the half-typed line survives it intact.

use rexpect::session::{PtySession, spawn_command};

use crate::lab::{Served, tutor};

/// Type like a person: one key at a time, each after the previous one was echoed. (rustyline 17
/// with an external printer only looks at the terminal when it becomes readable again, so keys
/// that reach it in one read are handled lazily; on a loaded machine a fast typist's keys can
/// coalesce. Real pastes arrive bracketed and are read whole.)
fn type_keys(p: &mut PtySession, keys: &str) {
    for c in keys.chars() {
        drain(p);
        p.send(&c.to_string()).expect("type a key");
        p.flush().expect("flush");
        let echo = if c == '\r' {
            "\n".to_owned()
        } else {
            c.to_string()
        };
        if c != '\t' {
            p.exp_string(&echo).expect("the key is echoed");
        }
    }
}

/// Forget output already on screen, so the next wait sees only what the next key causes.
fn drain(p: &mut PtySession) {
    loop {
        while p.try_read().is_some() {}
        std::thread::sleep(std::time::Duration::from_millis(10));
        if p.try_read().is_none() {
            return;
        }
    }
}

fn enter(p: &mut PtySession, line: &str) {
    type_keys(p, line);
    type_keys(p, "\r");
}

#[test]
fn a_frame_arriving_while_typing_prints_above_the_prompt_without_garbling_it() {
    let served = Served::start();
    let home = tempfile::tempdir().expect("tmp");
    let mut cmd = super::support::pty(home.path());
    // --plain keeps the screen ASCII, which rexpect's one-byte reads need.
    cmd.args(["--plain", "lab", "--url", &served.url]);
    let mut p = spawn_command(cmd, Some(crate::support::HANG_MS)).expect("spawn the lab in a pty");
    p.exp_string("lab> ").expect("first prompt");
    enter(&mut p, "listen tools");
    p.exp_string("notifications/subscriptions/acknowledged")
        .expect("the ack is shown");
    p.exp_string("tools/list")
        .expect("the careful client re-lists");
    p.exp_string("lab> ").expect("prompt again");

    // Half a step typed, not yet entered...
    type_keys(&mut p, "stat");

    // ...when another client makes the server change its tools.
    tutor(home.path())
        .args(["lab", "--url", &served.url])
        .write_stdin("change tools\n")
        .assert()
        .success();

    p.exp_string("[\"lab-1\"] notifications/tools/list_changed")
        .expect("the frame is printed while the user types");
    p.exp_string("tag \"lab-1\" = the listen request's own id")
        .expect("annotated");
    // The prompt and the half-typed line are drawn again below the frame.
    p.exp_regex(r"lab> (\x1b\[[0-9;]*[A-Za-z])*stat")
        .expect("the typed text survives");

    // Finishing the line runs the whole word the user typed across the interruption.
    enter(&mut p, "us");
    p.exp_string("live; asked: tools; honoured: tools; frames: 2")
        .expect("`status` ran, with both frames counted");
    enter(&mut p, "quit");
    p.exp_eof().expect("the lab exits");
}

#[test]
fn tab_completes_steps_and_help_explains_them() {
    let home = tempfile::tempdir().expect("tmp");
    let mut cmd = super::support::pty(home.path());
    cmd.args(["--plain", "lab"]);
    let mut p = spawn_command(cmd, Some(crate::support::HANG_MS)).expect("spawn the lab in a pty");
    p.exp_string("lab> ").expect("first prompt");
    type_keys(&mut p, "he\t");
    p.exp_string("help").expect("completed to help");
    enter(&mut p, "cancel");
    p.exp_string("notifications/cancelled")
        .expect("help for cancel");
    // `call` completes the server's own tool names.
    type_keys(&mut p, "call test_set_f\t");
    p.exp_string("ault").expect("completed to test_set_fault");
    enter(&mut p, "{\"name\": \"no-ack\"}");
    p.exp_string("fault no-ack on").expect("the tool ran");
    enter(&mut p, "quit");
    p.exp_eof().expect("the lab exits");
}

#[test]
fn an_interactive_scenario_asks_before_each_step_then_hands_over_to_the_repl() {
    let home = tempfile::tempdir().expect("tmp");
    let mut cmd = super::support::pty(home.path());
    cmd.args(["--plain", "lab", "--scenario", "ack-first"]);
    let mut p = spawn_command(cmd, Some(crate::support::HANG_MS)).expect("spawn the lab in a pty");
    p.exp_string("What is the first JSON-RPC message on the stream?")
        .expect("the first question");
    p.exp_string("your prediction [abcd]")
        .expect("asked before the step runs");
    enter(&mut p, "b");
    p.exp_string("notifications/subscriptions/acknowledged")
        .expect("then the wire answers");
    p.exp_string("wrong: you said b; the answer is a")
        .expect("the prediction is judged");
    p.exp_string("comes back sooner")
        .expect("and becomes a lapse");
    p.exp_string("your prediction [abcd]")
        .expect("second question");
    enter(&mut p, "d");
    p.exp_string("right: you said d").expect("judged right");
    p.exp_string("1 of 2 predictions right").expect("score");
    p.exp_string("keep experimenting here")
        .expect("the REPL takes over");
    p.exp_string("lab> ").expect("prompt");
    enter(&mut p, "quit");
    p.exp_eof().expect("the lab exits");
    let reviews = mcp_tutor::store::Store::open(home.path())
        .expect("store")
        .reviews()
        .expect("reviews");
    assert_eq!(reviews.len(), 1, "one lapse, for the wrong prediction");
    assert_eq!(reviews[0].card, "subscriptions/listen-first-message");
}

/// `drop` cuts the stream on purpose: the verdict line says graceful-close was not judged,
/// never that it was kept.
#[test]
fn after_drop_graceful_close_is_not_judged_either_way() {
    let home = tempfile::tempdir().expect("tmp");
    let mut cmd = super::support::pty(home.path());
    cmd.args(["--plain", "--width", "200", "lab"]);
    let mut p = spawn_command(cmd, Some(crate::support::HANG_MS)).expect("spawn the lab in a pty");
    p.exp_string("lab> ").expect("first prompt");
    enter(&mut p, "listen tools");
    p.exp_string("notifications/subscriptions/acknowledged")
        .expect("the ack is shown");
    p.exp_string("lab> ").expect("prompt again");
    enter(&mut p, "drop");
    let seen = p
        .exp_string("graceful-close not judged: you dropped the stream")
        .expect("the verdict says it was not judged");
    assert!(!seen.contains("ok graceful-close"), "{seen}");
    p.exp_string("lab> ").expect("prompt again");
    enter(&mut p, "status");
    let after = p.exp_string("lab> ").expect("status ran");
    assert!(!after.contains("ok graceful-close"), "{after}");
    enter(&mut p, "quit");
    p.exp_eof().expect("the lab exits");
}
