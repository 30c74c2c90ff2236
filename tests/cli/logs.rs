//! Logs and traces of the binary: JSON or pretty lines in `<state_dir>/logs` carrying the
//! request's id and the stage spans, `-v` on stderr, and a clear error for an exporter this build
//! lacks.

use serde_json::Value;

use super::Env;

fn log_lines(env: &Env) -> Vec<String> {
    let dir = env.state().join("logs");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        out.extend(text.lines().map(str::to_owned));
    }
    out
}

#[test]
fn json_logs_carry_the_request_id_and_the_stage_spans() {
    let env = Env::new(&[("a.txt", "same"), ("b.txt", "same"), ("c.pdf", "pdf")]);
    let out = env
        .cmd(&[
            "--json",
            "run",
            "--root",
            env.root(),
            "--yes",
            "remove duplicates",
        ])
        .env("SCOPE_WEAVER_LOG_FORMAT", "json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let done: Value = stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["event"] == "done")
        .unwrap();
    let id = done["report"]["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with('r') && id.len() == 13, "{id}");

    let lines: Vec<Value> = log_lines(&env)
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    // Every record of the run sits in the request's span.
    let in_run: Vec<&Value> = lines
        .iter()
        .filter(|l| l["spans"][0]["name"] == "request" && l["spans"][0]["id"] == id.as_str())
        .collect();
    let messages: Vec<&str> = in_run
        .iter()
        .filter_map(|l| l["fields"]["message"].as_str())
        .collect();
    for m in [
        "request",
        "planned",
        "skill matched",
        "dispatched",
        "committed",
        "finished",
    ] {
        assert!(messages.contains(&m), "no `{m}` record in {messages:?}");
    }
    // The sandbox's commit span sits inside the pipeline's commit stage.
    let committed = in_run
        .iter()
        .find(|l| l["target"] == "sandbox" && l["fields"]["message"] == "committed")
        .expect("the sandbox's commit record");
    let spans: Vec<String> = committed["spans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{}:{}",
                s["name"].as_str().unwrap(),
                s.get("stage").and_then(Value::as_str).unwrap_or("")
            )
        })
        .collect();
    assert_eq!(spans, ["request:", "stage:commit", "commit:"]);
    assert_eq!(committed["fields"]["applied"], 1);
    // A dispatch record names its step's stage.
    let dispatched = in_run
        .iter()
        .find(|l| l["fields"]["message"] == "dispatched")
        .unwrap();
    assert_eq!(dispatched["span"]["stage"], "dispatch", "{dispatched}");
    assert_eq!(dispatched["span"]["number"], 9, "{dispatched}");
}

#[test]
fn verbose_writes_pretty_lines_to_stderr_with_the_request_span() {
    let env = Env::new(&[("a.txt", "same"), ("b.txt", "same")]);
    let out = env.run(&[
        "-v",
        "run",
        "--root",
        env.root(),
        "--dry-run",
        "remove duplicates",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let id = stderr
        .lines()
        .find_map(|l| l.strip_prefix("audit: request "))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no request id in {stderr}"))
        .to_owned();
    assert!(
        stderr.contains(&format!("request{{id={id}}}:stage{{stage=\"think\"")),
        "{stderr}"
    );
    assert!(stderr.contains("INFO"), "{stderr}");
    // Without -v nothing but the person's output reaches stderr.
    let quiet = env.run(&[
        "run",
        "--root",
        env.root(),
        "--dry-run",
        "remove duplicates",
    ]);
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("INFO"));
}

#[test]
fn a_bad_filter_or_a_missing_exporter_is_a_clear_error() {
    let env = Env::new(&[("a.txt", "x")]);
    let out = env
        .cmd(&["--json", "skills", "list"])
        .env("SCOPE_WEAVER_LOG", "info,[[[")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err: Value = serde_json::from_slice(&out.stdout)
        .or_else(|_| serde_json::from_slice(&out.stderr))
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(err["error"]["code"], "LOG_UNAVAILABLE", "{err}");
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("SCOPE_WEAVER_LOG"),
        "{err}"
    );

    // Without the exporter, a configured endpoint says how to get one; with it (CI's build), an
    // endpoint it cannot use is refused. Either way before anything runs.
    #[cfg(not(feature = "otlp"))]
    let (endpoint, says) = ("http://127.0.0.1:4318", "--features otlp");
    #[cfg(feature = "otlp")]
    let (endpoint, says) = ("not a url", "the OTLP exporter for not a url");
    let out = env
        .cmd(&["--json", "skills", "list"])
        .env("SCOPE_WEAVER_OTLP_ENDPOINT", endpoint)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("LOG_UNAVAILABLE"), "{text}");
    assert!(text.contains(says), "{text}");
}
