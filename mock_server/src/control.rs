//! The control tools: what a client can ask the mock to do to itself that no MCP method covers
//! (end one subscription, drop every stream, switch faults). They are ordinary `tools/call`s, so
//! the lab drives the bundled server over the same wire it teaches, and `lab --url` against
//! `mcp-tutor serve` behaves exactly like the bundled mode.
//!
//! Offered only where the client is trusted to break the server: an HTTP server bound to a
//! loopback address (its Origin and Host checks keep web pages out) and stdio (the client
//! started the process). A server bound to any other address neither lists nor runs them.

use std::str::FromStr;

use serde_json::{Map, Value, json};

use crate::catalog::tool;
use crate::fault::Fault;
use crate::hub::Hub;
use crate::protocol::RequestId;

/// The outcome of a control tool: the text a client shows, plus the same facts as structured
/// content, or the reason the call is refused (`-32602`).
pub(crate) type Outcome = Result<(String, Value), String>;

/// Runs control tool `name`; `None` when `name` is not a control tool.
pub(crate) fn call(hub: &Hub, name: &str, args: &Map<String, Value>) -> Option<Outcome> {
    if !tool::CONTROL.contains(&name) {
        return None;
    }
    if !hub.control_tools() {
        return Some(Err(format!(
            "{name} is a control tool, offered only by a server bound to a loopback address or \
             on stdio; this one is bound to another address"
        )));
    }
    Some(match name {
        tool::CLOSE_SUBSCRIPTION => close_one(hub, args),
        tool::DROP_SUBSCRIPTIONS => {
            let n = hub.drop_all();
            Ok((
                format!("{n} stream(s) cut with no result, as if the server vanished"),
                json!({"dropped": n}),
            ))
        }
        tool::SET_FAULT => set_fault(hub, args),
        tool::LIST_FAULTS => Ok(list_faults(hub)),
        tool::RESET_FAULTS => {
            let on = hub.faults();
            for f in &on {
                hub.set_fault(*f, false);
            }
            Ok((
                format!("every fault off ({} were on)", on.len()),
                json!({"switchedOff": on.iter().map(|f| f.name()).collect::<Vec<_>>()}),
            ))
        }
        _ => Err(format!(
            "{name} is listed as a control tool but not handled"
        )),
    })
}

fn close_one(hub: &Hub, args: &Map<String, Value>) -> Outcome {
    let Some(raw) = args.get("id") else {
        return Err("test_close_subscription needs the argument `id` (the listen id)".into());
    };
    let Some(id) = RequestId::from_value(raw) else {
        return Err(format!(
            "`id` must be a string or an integer, not {raw}; it is the listen request's own id"
        ));
    };
    if hub.close(&id) {
        Ok((
            format!("ending {id} gracefully (result, then close)"),
            json!({"closed": raw}),
        ))
    } else {
        Err(format!(
            "no open subscription {id} (ids keep their JSON type: 7 ≠ \"7\")"
        ))
    }
}

fn set_fault(hub: &Hub, args: &Map<String, Value>) -> Outcome {
    let Some(name) = args.get("name").and_then(Value::as_str) else {
        return Err(
            "test_set_fault needs the string argument `name` (test_list_faults names them)".into(),
        );
    };
    let on = match args.get("on") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(format!("`on` must be true or false, not {other}")),
    };
    let f = Fault::from_str(name).map_err(|e| e.to_string())?;
    hub.set_fault(f, on);
    let state = if on { "on" } else { "off" };
    Ok((
        format!("fault {} {state}", f.name()),
        json!({"fault": f.name(), "on": on}),
    ))
}

fn list_faults(hub: &Hub) -> (String, Value) {
    let on = hub.faults();
    let mut text = String::from("faults (fault NAME on|off):\n");
    let mut rows = Vec::new();
    for f in Fault::all() {
        let active = on.contains(f);
        let mark = if active { "on " } else { "off" };
        text.push_str(&format!(
            "  [{mark}] {:<28} breaks: {} ({})\n",
            f.name(),
            f.rule(),
            f.spec()
        ));
        rows.push(json!({"name": f.name(), "on": active, "rule": f.rule(), "spec": f.spec()}));
    }
    (text, json!({"faults": rows}))
}
