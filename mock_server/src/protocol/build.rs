//! Builders for the messages clients and servers send, with the `_meta` every request carries.

use serde_json::{Map, Value, json};

use super::{
    JSONRPC_VERSION, NotificationKind, PROTOCOL_VERSION, RequestId, SUPPORTED_VERSIONS,
    SubscriptionFilter, error_code, meta, method,
};

/// The client identity this project sends as `clientInfo` (§3).
pub fn tutor_client_info() -> Value {
    json!({"name": "mcp-tutor", "version": env!("CARGO_PKG_VERSION")})
}

/// The per-request `_meta` every request carries: version, capabilities, clientInfo (§3; BASE §_meta).
pub fn request_meta(
    client_capabilities: &Value,
    client_info: Option<&Value>,
) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(meta::PROTOCOL_VERSION.into(), PROTOCOL_VERSION.into());
    m.insert(
        meta::CLIENT_CAPABILITIES.into(),
        client_capabilities.clone(),
    );
    if let Some(info) = client_info {
        m.insert(meta::CLIENT_INFO.into(), info.clone());
    }
    m
}

/// A request with `params._meta` filled in (keys already present in `params._meta` win).
/// `params` must be an object or null.
pub fn request_with(
    id: &RequestId,
    method: &str,
    params: Value,
    client_capabilities: &Value,
) -> Value {
    let mut params = match params {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let mut m = request_meta(client_capabilities, Some(&tutor_client_info()));
    if let Some(Value::Object(existing)) = params.remove("_meta") {
        m.extend(existing);
    }
    params.insert("_meta".into(), Value::Object(m));
    json!({"jsonrpc": JSONRPC_VERSION, "id": id, "method": method, "params": params})
}

/// A request declaring no client capabilities (`{}`).
pub fn request(id: &RequestId, method: &str, params: Value) -> Value {
    request_with(id, method, params, &json!({}))
}

/// `subscriptions/listen` with the given filter (§4.1).
pub fn listen_request(id: &RequestId, filter: &SubscriptionFilter) -> Value {
    request(
        id,
        method::SUBSCRIPTIONS_LISTEN,
        json!({"notifications": filter}),
    )
}

/// `tools/call` of `name` with `arguments` (§5).
pub fn tool_call(id: &RequestId, name: &str, arguments: Value) -> Value {
    request(
        id,
        method::TOOLS_CALL,
        json!({"name": name, "arguments": arguments}),
    )
}

/// `notifications/cancelled` naming `request_id` (§2; CAN). Sent by a stdio client to cancel a
/// listen, and by the mock when it tears a stdio subscription down (§4.9, where it also adds the
/// subscription tag).
pub fn cancelled(request_id: &RequestId, reason: Option<&str>) -> Value {
    let mut params = json!({"requestId": request_id});
    if let Some(r) = reason {
        params["reason"] = r.into();
    }
    notification(method::CANCELLED, params)
}

/// A notification with the given params (no `id`, §9 #58).
pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": JSONRPC_VERSION, "method": method, "params": params})
}

// ---------------------------------------------------------------------------------------------
// Builders: what the server sends
// ---------------------------------------------------------------------------------------------

fn tag(id: &RequestId) -> Value {
    json!({ meta::SUBSCRIPTION_ID: id })
}

/// The acknowledgement: tagged, carrying the honoured subset (§4.4; SUB §Acknowledgment).
pub fn ack(id: &RequestId, honoured: &SubscriptionFilter) -> Value {
    notification(
        method::SUBSCRIPTIONS_ACKNOWLEDGED,
        json!({"_meta": tag(id), "notifications": honoured}),
    )
}

/// A tagged `…/list_changed`: `params` holds only `_meta` (§4.5). For
/// [`NotificationKind::ResourceUpdated`] use [`resource_updated`].
pub fn list_changed(kind: NotificationKind, id: &RequestId) -> Value {
    notification(kind.method(), json!({"_meta": tag(id)}))
}

/// A tagged `notifications/resources/updated` for `uri` (§4.5).
pub fn resource_updated(id: &RequestId, uri: &str) -> Value {
    notification(
        method::RESOURCES_UPDATED,
        json!({"_meta": tag(id), "uri": uri}),
    )
}

/// A tagged change notification of any kind; `uri` is used only for resource updates.
pub fn change_notification(kind: NotificationKind, id: &RequestId, uri: &str) -> Value {
    match kind {
        NotificationKind::ResourceUpdated => resource_updated(id, uri),
        other => list_changed(other, id),
    }
}

/// The graceful close of a listen: result with `resultType:"complete"` and the tag (§4.9).
pub fn listen_complete(id: &RequestId) -> Value {
    result_response(id, json!({"resultType": "complete", "_meta": tag(id)}))
}

/// A result response (`result` is sent as given).
pub fn result_response(id: &RequestId, result: Value) -> Value {
    json!({"jsonrpc": JSONRPC_VERSION, "id": id, "result": result})
}

/// An error response; `id` is `None` (sent as `null`) only when the request id could not be read
/// (§6; BASE §Error Responses).
pub fn error_response(
    id: Option<&RequestId>,
    code: i64,
    message: &str,
    data: Option<Value>,
) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(d) = data {
        error["data"] = d;
    }
    json!({"jsonrpc": JSONRPC_VERSION, "id": id, "error": error})
}

/// `-32022` with both required `data` fields (§5; TS `UnsupportedProtocolVersionError`).
pub fn unsupported_version_error(id: Option<&RequestId>, requested: &str) -> Value {
    error_response(
        id,
        error_code::UNSUPPORTED_PROTOCOL_VERSION,
        &format!(
            "Unsupported protocol version {requested:?}; this server speaks {PROTOCOL_VERSION}"
        ),
        Some(json!({"supported": SUPPORTED_VERSIONS, "requested": requested})),
    )
}

/// `-32021` naming the capabilities the request needs (§1.3; BASE §_meta).
pub fn missing_capability_error(id: Option<&RequestId>, required: Value, why: &str) -> Value {
    error_response(
        id,
        error_code::MISSING_REQUIRED_CLIENT_CAPABILITY,
        why,
        Some(json!({"requiredCapabilities": required})),
    )
}

#[cfg(test)]
mod tests {
    use crate::protocol::*;
    use serde_json::json;
    #[test]
    fn listen_complete_has_the_exact_shape() {
        assert_eq!(
            serde_json::to_string(&listen_complete(&"tutor-7".into())).unwrap(),
            r#"{"jsonrpc":"2.0","id":"tutor-7","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":"tutor-7"}}}"#
        );
    }

    #[test]
    fn ack_and_notifications_match_the_reference_json() {
        let id = RequestId::from("tutor-7");
        let honoured = SubscriptionFilter {
            tools_list_changed: Some(true),
            resource_subscriptions: Some(vec!["mock://notes/today".into()]),
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_string(&ack(&id, &honoured)).unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"tutor-7"},"notifications":{"toolsListChanged":true,"resourceSubscriptions":["mock://notes/today"]}}}"#
        );
        assert_eq!(
            serde_json::to_string(&list_changed(NotificationKind::ToolsListChanged, &id)).unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"tutor-7"}}}"#
        );
        assert_eq!(
            serde_json::to_string(&resource_updated(&id, "mock://notes/today")).unwrap(),
            r#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"tutor-7"},"uri":"mock://notes/today"}}"#
        );
        assert_eq!(
            cancelled(&RequestId::Int(4), Some("bye")),
            json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"bye"}})
        );
    }

    #[test]
    fn requests_carry_required_meta() {
        let r = request(&RequestId::Int(1), method::TOOLS_LIST, json!({}));
        let m = &r["params"]["_meta"];
        assert_eq!(m[meta::PROTOCOL_VERSION], PROTOCOL_VERSION);
        assert_eq!(m[meta::CLIENT_CAPABILITIES], json!({}));
        assert_eq!(m[meta::CLIENT_INFO]["name"], "mcp-tutor");
        let r = request(
            &RequestId::Int(1),
            method::TOOLS_LIST,
            json!({"_meta": {meta::PROTOCOL_VERSION: "x"}}),
        );
        assert_eq!(r["params"]["_meta"][meta::PROTOCOL_VERSION], "x");
    }
}
