//! Pagination (PAGE): with a page size every list comes in pages joined by `nextCursor`, the
//! same over HTTP and stdio; a cursor the server never issued is -32602; without a page size
//! every list is one page.

use crate::common::*;
use mcp_tutor_mock::Config;
use mcp_tutor_mock::protocol::{error_code as code, method};
use serde_json::{Value, json};

fn paged(n: usize) -> Config {
    Config {
        page_size: Some(n),
        ..Config::default()
    }
}

fn names(result: &Value, key: &str, field: &str) -> Vec<String> {
    result[key]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|t| t[field].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// Every page of `m` in turn, through `ask(request) -> reply`; returns the pages' sizes and
/// every name.
async fn all_pages<F, Fut>(m: &str, key: &str, field: &str, mut ask: F) -> (Vec<usize>, Vec<String>)
where
    F: FnMut(Value) -> Fut,
    Fut: std::future::Future<Output = Value>,
{
    let (mut sizes, mut all) = (Vec::new(), Vec::new());
    let mut cursor: Option<String> = None;
    for i in 0..50 {
        let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
        let reply = ask(req(i, m, params)).await;
        let page = names(&reply["result"], key, field);
        sizes.push(page.len());
        all.extend(page);
        cursor = reply["result"]["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            return (sizes, all);
        }
    }
    panic!("{m}: more than 50 pages");
}

#[tokio::test]
async fn lists_come_in_pages_over_http_and_stdio_alike() {
    let one = default_server().await;
    let (sizes, whole) = all_pages(method::TOOLS_LIST, "tools", "name", |r| {
        let url = one.url.clone();
        async move { call(&url, &r).await.1 }
    })
    .await;
    assert_eq!(sizes, vec![whole.len()], "no page size: one page");
    assert!(whole.len() > 8, "{whole:?}");

    let s = server(paged(4)).await;
    let (sizes, http) = all_pages(method::TOOLS_LIST, "tools", "name", |r| {
        let url = s.url.clone();
        async move { call(&url, &r).await.1 }
    })
    .await;
    assert_eq!(http, whole, "every tool once, in order");
    assert!(sizes.len() > 2 && sizes[..sizes.len() - 1].iter().all(|n| *n == 4));

    let mut c = StdioClient::start(paged(4));
    let mut stdio = Vec::new();
    let mut cursor: Option<String> = None;
    for i in 0..20 {
        let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
        c.send(&req(i, method::TOOLS_LIST, params)).await;
        let reply = c.next_msg().await.expect("a reply");
        stdio.extend(names(&reply["result"], "tools", "name"));
        cursor = reply["result"]["nextCursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(stdio, whole);

    let (sizes, prompts) = all_pages(method::PROMPTS_LIST, "prompts", "name", |r| {
        let url = s.url.clone();
        async move { call(&url, &r).await.1 }
    })
    .await;
    assert!(sizes.iter().all(|n| *n <= 4) && !prompts.is_empty());
}

#[tokio::test]
async fn a_cursor_the_server_never_issued_is_invalid_params() {
    for (config, words) in [
        (paged(4), "send the nextCursor of the previous page"),
        (Config::default(), "every list here fits on one page"),
    ] {
        let s = server(config).await;
        for cursor in [json!("mock-page-999"), json!("elsewhere"), json!(4)] {
            let (_, reply) = call(
                &s.url,
                &req(1, method::TOOLS_LIST, json!({ "cursor": cursor })),
            )
            .await;
            assert_eq!(reply["error"]["code"], code::INVALID_PARAMS, "{reply}");
            let msg = reply["error"]["message"].as_str().unwrap_or_default();
            assert!(msg.contains(words), "{msg}");
        }
    }
}
