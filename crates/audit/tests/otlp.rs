//! The OpenTelemetry exporter (feature `otlp`) against a real HTTP listener standing in for a
//! collector: the spans of a run arrive as OTLP/HTTP protobuf at `/v1/traces`, flushed when the
//! `Telemetry` guard drops. (Its own test binary: it installs the process's global subscriber.)
#![cfg(feature = "otlp")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::time::Duration;

/// Accepts HTTP requests, answers 200 with an empty protobuf body, and sends (path, body) back.
fn collector() -> (String, mpsc::Receiver<(String, Vec<u8>)>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut request_line = String::new();
            reader.read_line(&mut request_line).unwrap();
            let mut length = 0usize;
            loop {
                let mut header = String::new();
                reader.read_line(&mut header).unwrap();
                let h = header.trim();
                if h.is_empty() {
                    break;
                }
                if let Some((k, v)) = h.split_once(':')
                    && k.eq_ignore_ascii_case("content-length")
                {
                    length = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            stream
                .write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\n\
                      content-length: 0\r\nconnection: close\r\n\r\n",
                )
                .unwrap();
            let path = request_line
                .split_whitespace()
                .nth(1)
                .unwrap_or("")
                .to_owned();
            let _ = tx.send((path, body));
        }
    });
    (format!("http://{addr}"), rx)
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn spans_reach_an_otlp_collector() {
    let (endpoint, received) = collector();
    let telemetry = audit::init_telemetry(&audit::LogSettings {
        format: config::LogFormat::Json,
        level: config::LogLevel::Info,
        dir: None,
        stderr: false,
        otlp_endpoint: Some(endpoint),
        service: "scope-weaver-otlp-test".into(),
    })
    .unwrap();
    {
        let request = tracing::info_span!(target: "pipeline", "request", id = "r0123456789ab");
        let _r = request.enter();
        let stage =
            tracing::info_span!(target: "pipeline", "stage", stage = "dispatch", number = 9);
        let _s = stage.enter();
        tracing::info!(target: "pipeline", "dispatched");
    }
    drop(telemetry);
    let (path, body) = received
        .recv_timeout(Duration::from_secs(20))
        .expect("the exporter sent nothing");
    assert_eq!(path, "/v1/traces");
    for needle in [
        "scope-weaver-otlp-test",
        "request",
        "r0123456789ab",
        "dispatch",
        "dispatched",
    ] {
        assert!(
            contains(&body, needle),
            "`{needle}` missing from the export"
        );
    }
}
