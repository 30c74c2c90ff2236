//! Test support: build real folders from a compact spec, open sandboxes, render disk trees.

use std::path::Path;

use config::{ConflictPolicy, DeleteMode};
use sandbox::{Sandbox, SandboxConfig, ScanOptions};
use serde_json::{Map, Value};

/// Builds a folder: `("a/b.txt", "text")` makes a file, `("empty/", "")` a folder.
pub fn tree(spec: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_tree(dir.path(), spec);
    dir
}

pub fn write_tree(root: &Path, spec: &[(&str, &str)]) {
    for (path, content) in spec {
        let p = root.join(path.trim_end_matches('/'));
        if path.ends_with('/') {
            std::fs::create_dir_all(&p).unwrap();
        } else {
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, content).unwrap();
        }
    }
}

pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub state: tempfile::TempDir,
    pub sandbox: Sandbox,
}

pub fn open(spec: &[(&str, &str)]) -> Fixture {
    let dir = tree(spec);
    open_dir(dir)
}

pub fn open_dir(dir: tempfile::TempDir) -> Fixture {
    let state = tempfile::tempdir().unwrap();
    let config = SandboxConfig {
        protected_paths: vec!["**/.git".into()],
        delete_mode: DeleteMode::Permanent,
        on_conflict: ConflictPolicy::Fail,
        state_dir: state.path().to_owned(),
        categories: sandbox::CategoryTable::default(),
    };
    let sandbox = Sandbox::open(dir.path(), config, &ScanOptions::default()).unwrap();
    Fixture {
        dir,
        state,
        sandbox,
    }
}

pub fn params(v: Value) -> Map<String, Value> {
    v.as_object().cloned().expect("params are an object")
}

impl Fixture {
    /// Calls a method and stages its changes (as an approval would).
    pub fn run(&mut self, method: &str, p: Value) -> Value {
        let r = self
            .sandbox
            .call(method, &params(p))
            .unwrap_or_else(|e| panic!("{method} failed: {e}"));
        self.sandbox.stage(&r.snapshot_id).unwrap();
        r.data
    }

    pub fn fail(&mut self, method: &str, p: Value) -> sandbox::SandboxError {
        match self.sandbox.call(method, &params(p)) {
            Ok(r) => panic!("{method} should fail, returned {}", r.data),
            Err(e) => e,
        }
    }

    pub fn disk(&self) -> String {
        disk_tree(self.dir.path())
    }
}

/// Sorted listing of a real folder: `dir/`, `file (size)`, `link -> target`.
pub fn disk_tree(root: &Path) -> String {
    let mut out = Vec::new();
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap())
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            let meta = std::fs::symlink_metadata(&p).unwrap();
            if meta.file_type().is_symlink() {
                out.push(format!(
                    "{rel} -> {}",
                    std::fs::read_link(&p).unwrap().display()
                ));
            } else if meta.is_dir() {
                out.push(format!("{rel}/"));
                walk(root, &p, out);
            } else {
                out.push(format!(
                    "{rel} ({})",
                    std::fs::read_to_string(&p).unwrap_or_default()
                ));
            }
        }
    }
    walk(root, root, &mut out);
    out.join("\n") + "\n"
}

/// The `paths` of each group of a `find_duplicates` result.
pub fn group_paths(d: &Value) -> Vec<Vec<String>> {
    d["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            g["paths"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p.as_str().unwrap().to_owned())
                .collect()
        })
        .collect()
}
