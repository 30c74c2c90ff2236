//! Snapshots and rollback restore the exact graph state, at any depth, and failed calls leave no trace.

use serde_json::json;

use crate::support::open;

#[test]
fn rollback_restores_exact_state_at_every_snapshot() {
    let mut fx = open(&[
        ("a/1.txt", "1"),
        ("a/2.jpg", "22"),
        ("a/deep/3.pdf", "333"),
        ("b/4.csv", "4444"),
        ("c.mp3", "55555"),
    ]);
    let mut states = vec![(
        fx.sandbox.snapshot(),
        fx.sandbox.graph().fingerprint_state(),
    )];
    let steps = [
        ("organize_by_type", json!({"path": "a", "recursive": true})),
        ("move_node", json!({"source": "b", "target": "a/Images"})),
        ("copy_node", json!({"source": "a", "target": "a-copy"})),
        (
            "rename_node",
            json!({"path": "a-copy", "new_name": "backup"}),
        ),
        (
            "delete_node",
            json!({"path": ["c.mp3", "backup/Documents"]}),
        ),
        (
            "create_node",
            json!({"path": "x/y", "name": "z.txt", "type": "file", "content": "zz"}),
        ),
    ];
    for (method, params) in steps {
        let r = fx
            .sandbox
            .call(method, params.as_object().unwrap())
            .unwrap();
        states.push((
            fx.sandbox.snapshot(),
            fx.sandbox.graph().fingerprint_state(),
        ));
        assert!(r.ok);
    }
    let end = fx.sandbox.graph().fingerprint_state();
    assert_ne!(end, states[0].1);
    // Roll back step by step, newest first; each snapshot gives back exactly its state.
    for (snap, state) in states.iter().rev() {
        fx.sandbox.rollback(&snap.to_string()).unwrap();
        assert_eq!(&fx.sandbox.graph().fingerprint_state(), state, "at {snap}");
    }
    assert!(fx.sandbox.changes().is_empty());
    // Later snapshots are gone after rolling back past them.
    let err = fx.sandbox.rollback(&states[3].0.to_string()).unwrap_err();
    assert_eq!(contracts::ErrorCode::code(&err), "UNKNOWN_SNAPSHOT");
}

#[test]
fn rollback_drops_only_later_changes() {
    let mut fx = open(&[("a.txt", "a"), ("b.txt", "b")]);
    let r1 = fx
        .sandbox
        .call(
            "move_node",
            json!({"source": "a.txt", "target": "x/a.txt"})
                .as_object()
                .unwrap(),
        )
        .unwrap();
    let r2 = fx
        .sandbox
        .call("delete_node", json!({"path": "b.txt"}).as_object().unwrap())
        .unwrap();
    assert_eq!(fx.sandbox.changes().len(), 3);
    fx.sandbox.rollback(&r2.snapshot_id).unwrap();
    assert_eq!(
        fx.sandbox.render_diff(),
        "+ mkdir  x/   [not approved]\n~ move   a.txt -> x/a.txt   [not approved]\n"
    );
    assert!(fx.sandbox.graph().contains("b.txt"));
    fx.sandbox.rollback(&r1.snapshot_id).unwrap();
    assert!(fx.sandbox.graph().contains("a.txt"));
    assert!(!fx.sandbox.graph().contains("x"));
}

#[test]
fn a_failed_call_is_rolled_back_whole() {
    let mut fx = open(&[("a.txt", "a"), ("b.txt", "b"), ("t/b.txt", "taken")]);
    let before = fx.sandbox.graph().fingerprint_state();
    // a.txt would move, then b.txt collides: the whole call fails and a.txt stays put.
    let e = fx.fail(
        "move_node",
        json!({"source": ["a.txt", "b.txt"], "target": "t"}),
    );
    assert_eq!(contracts::ErrorCode::code(&e), "ALREADY_EXISTS");
    assert_eq!(fx.sandbox.graph().fingerprint_state(), before);
    assert!(fx.sandbox.changes().is_empty());
}

#[test]
fn stale_nodes_follow_indexing_and_changes() {
    let mut fx = open(&[("a.txt", "a"), ("b.txt", "b"), ("d/", "")]);
    let stale = |fx: &crate::support::Fixture| -> Vec<String> {
        fx.sandbox
            .stale_nodes()
            .iter()
            .map(|n| n.id.clone())
            .collect()
    };
    assert_eq!(stale(&fx), ["a.txt", "b.txt"], "never indexed");
    fx.sandbox
        .mark_indexed(&["a.txt".into(), "b.txt".into()], sandbox::now_secs() + 10);
    assert!(stale(&fx).is_empty());
    fx.run("move_node", json!({"source": "a.txt", "target": "d"}));
    assert_eq!(stale(&fx), ["d/a.txt"], "moved since indexing");
}
