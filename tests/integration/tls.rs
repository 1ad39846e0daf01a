//! `check --url https://…` speaks TLS. The HTTP client's TLS connector (rustls with the webpki
//! roots, no system library) is a build choice that compiles either way, so a build that lost
//! it would only show up as an HTTPS server that cannot be checked. A loopback listener records
//! the first bytes `check` sends to an `https://` URL: they must be a TLS ClientHello, not
//! plain HTTP and not nothing. The listener then hangs up (it has no certificate to offer), and
//! `check` must say it could not reach the server.

use std::io::Read;
use std::net::TcpListener;

use crate::support::isolated;

#[test]
fn check_over_https_opens_with_a_tls_client_hello() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("https://{}/mcp", listener.local_addr().unwrap());
    let first_bytes = std::thread::Builder::new()
        .spawn(move || {
            let (mut conn, _) = listener.accept().unwrap();
            conn.set_read_timeout(Some(crate::support::HANG)).unwrap();
            let mut head = [0u8; 6];
            conn.read_exact(&mut head).unwrap();
            head
        })
        .unwrap();
    let out = isolated()
        .timeout(crate::support::HANG)
        .args(["check", "--timeout", crate::support::CHECK_WAIT, &url])
        .output()
        .unwrap();
    let head = first_bytes.join().unwrap();
    // A TLS record header: content type 22 (handshake), protocol major version 3, a two-byte
    // length, then handshake message type 1 (ClientHello).
    assert_eq!(
        (head[0], head[1], head[5]),
        (0x16, 0x03, 0x01),
        "not a TLS ClientHello: {head:02x?}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("could not reach {url}")),
        "{stderr}"
    );
}
