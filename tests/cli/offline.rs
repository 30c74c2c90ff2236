//! The offline proof: the worked example runs and commits inside a network namespace with no
//! interfaces (only a loopback that is down), and the CLI opens no network socket at all unless an
//! OTLP endpoint or a PostgreSQL URL is configured (system calls traced with strace; the
//! PostgreSQL control shows the trace would see one).

use std::process::Command;

use super::Env;
use super::run::{SEED_REQUEST, downloads};
use super::undo::done_report;

/// `cmd` run under `wrapper` (a program and its arguments, e.g. `unshare -n`), with the same
/// arguments and environment.
fn wrapped(wrapper: &[&str], cmd: &Command) -> Command {
    let mut out = Command::new(wrapper[0]);
    out.args(&wrapper[1..])
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .env_clear()
        .envs(
            cmd.get_envs()
                .filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned()))),
        );
    out
}

/// How this machine lets a process start in a new network namespace: `unshare -n` as root (CI),
/// `unshare -rn` where unprivileged user namespaces are allowed; `None` when neither works.
fn offline_wrapper() -> Option<&'static [&'static str]> {
    let found = [&["unshare", "-n"][..], &["unshare", "-rn"][..]]
        .into_iter()
        .find(|w| {
            wrapped(w, &Command::new("true"))
                .status()
                .is_ok_and(|s| s.success())
        });
    if found.is_none() {
        assert!(
            std::env::var_os("SCOPE_WEAVER_TEST_REQUIRE_MODELS").is_none(),
            "CI must be able to enter a network namespace (unshare -n)"
        );
        eprintln!("skipped: this machine does not allow a new network namespace");
    }
    found
}

#[test]
fn the_worked_example_commits_inside_a_network_namespace_with_no_interfaces() {
    let Some(offline) = offline_wrapper() else {
        return;
    };
    // What the process sees: no interface but the loopback, and that one down.
    let mut cat = Command::new("cat");
    cat.arg("/proc/self/net/dev");
    let seen = wrapped(offline, &cat).output().unwrap();
    let devices: Vec<String> = String::from_utf8_lossy(&seen.stdout)
        .lines()
        .skip(2)
        .filter_map(|l| Some(l.split(':').next()?.trim().to_owned()))
        .collect();
    assert_eq!(devices, ["lo"], "{}", String::from_utf8_lossy(&seen.stdout));

    let (env, root) = downloads();
    let root_arg = root.to_str().unwrap();
    let run = env.cmd(&["--json", "run", "--root", root_arg, "--yes", SEED_REQUEST]);
    let out = wrapped(offline, &run).output().unwrap();
    let report = done_report(&out);
    assert_eq!(report["committed"], true, "{report:#}");
    assert!(root.join("Images/holiday.jpg").exists(), "{report:#}");
    assert!(!root.join("holiday (1).jpg").exists());
}

/// The `socket(2)` calls of `env`'s CLI running the worked example, as strace records them.
fn sockets_opened(env: &Env, root: &str, extra_env: &[(&str, &str)]) -> Vec<String> {
    let trace = env.home.path().join("strace.txt");
    let trace_arg = trace.to_str().unwrap();
    let run = env.cmd(&["--json", "run", "--root", root, "--yes", SEED_REQUEST]);
    let mut traced = wrapped(
        &["strace", "-f", "-qq", "-e", "trace=socket", "-o", trace_arg],
        &run,
    );
    traced.envs(extra_env.iter().copied());
    let out = traced.output().unwrap();
    assert!(
        trace.exists(),
        "strace wrote nothing: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .filter(|l| l.contains("socket("))
        .map(str::to_owned)
        .collect()
}

#[test]
fn no_network_socket_is_opened_unless_otlp_or_postgres_is_configured() {
    if Command::new("strace").arg("-V").output().is_err() {
        assert!(
            std::env::var_os("SCOPE_WEAVER_TEST_REQUIRE_MODELS").is_none(),
            "CI installs strace (scripts/common.sh APP_TEST_PACKAGES)"
        );
        eprintln!("skipped: strace is not installed");
        return;
    }
    let (env, root) = downloads();
    let network = |calls: &[String]| -> Vec<String> {
        calls
            .iter()
            .filter(|c| !c.contains("AF_UNIX"))
            .cloned()
            .collect()
    };
    let plain = sockets_opened(&env, root.to_str().unwrap(), &[]);
    assert_eq!(network(&plain), Vec::<String>::new(), "{plain:?}");
    assert!(
        root.join("Images/holiday.jpg").exists(),
        "the run committed"
    );

    // The control: with a PostgreSQL audit log configured, the trace does see the socket.
    let (env, root) = downloads();
    let with_postgres = sockets_opened(
        &env,
        root.to_str().unwrap(),
        &[(
            "SCOPE_WEAVER_AUDIT_DB",
            "postgres://scope:weaver@127.0.0.1:9/audit",
        )],
    );
    assert!(
        with_postgres.iter().any(|c| c.contains("AF_INET")),
        "{with_postgres:?}"
    );
}
