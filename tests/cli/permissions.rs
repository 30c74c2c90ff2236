//! Permission-denied files and folders, as a person without the rights meets them: the scan
//! lists what it could not read, reading a locked file is a coded error, and a commit the disk
//! refuses stops with a coded error, leaves the journal for recovery and loses nothing.
//! Root ignores file modes, so under root the binary runs as `nobody` (uid 65534).

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const NOBODY: u32 = 65534;

fn chmod(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Everything the unprivileged run needs, readable by it: the binary, the skills, a home.
struct Unprivileged {
    dir: tempfile::TempDir,
    as_root: bool,
}

impl Unprivileged {
    fn new() -> Unprivileged {
        let dir = tempfile::tempdir().unwrap();
        chmod(dir.path(), 0o755);
        let bin = dir.path().join("scope-weaver");
        std::fs::copy(env!("CARGO_BIN_EXE_scope-weaver"), &bin).unwrap();
        chmod(&bin, 0o755);
        super::copy_tree(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills"),
            &dir.path().join("skills"),
        );
        let home = dir.path().join("home");
        std::fs::create_dir(&home).unwrap();
        chmod(&home, 0o777);
        let as_root = std::fs::metadata("/proc/self").unwrap().uid() == 0;
        Unprivileged { dir, as_root }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("files")
    }

    fn json(&self, args: &[&str]) -> (bool, Value) {
        let home = self.dir.path().join("home");
        let mut c = Command::new(self.dir.path().join("scope-weaver"));
        c.arg("--json")
            .args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &home)
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("SCOPE_WEAVER_STATE_DIR", home.join("state"))
            .env("SCOPE_WEAVER_DELETE_MODE", "permanent")
            .env("SCOPE_WEAVER_SKILLS_DIR", self.dir.path().join("skills"));
        if self.as_root {
            c.uid(NOBODY).gid(NOBODY);
        }
        let out = c.output().unwrap();
        let body = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{e}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.success(), body)
    }
}

#[test]
fn locked_files_and_folders_get_coded_errors_and_nothing_is_lost() {
    let u = Unprivileged::new();
    let root = u.root();
    for (rel, body) in [
        ("notes.txt", "readable"),
        ("secret.txt", "no one may read this"),
        ("private/diary.txt", "dear diary"),
        ("locked/report.txt", "report"),
    ] {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, body).unwrap();
    }
    // The person owns the root; `secret.txt` and `private/` are unreadable, `locked/` is read-only.
    if u.as_root {
        for p in [&root, &root.join("notes.txt"), &root.join("locked")] {
            std::os::unix::fs::chown(p, Some(NOBODY), Some(NOBODY)).unwrap();
        }
    }
    chmod(&root, 0o755);
    chmod(&root.join("secret.txt"), 0o000);
    chmod(&root.join("private"), 0o000);
    chmod(&root.join("locked"), 0o555);
    let root_arg = root.to_str().unwrap();

    // The scan goes on and names the folder it could not enter.
    let (ok, scan) = u.json(&["scan", root_arg]);
    assert!(ok, "{scan}");
    let issues = scan["issues"].to_string();
    assert!(issues.contains("private"), "{scan}");
    assert!(
        issues.to_lowercase().contains("permission denied"),
        "{scan}"
    );

    // Reading a file without the right: a coded error, not a crash.
    let (ok, read) = u.json(&[
        "tool",
        "parse-content",
        "extract_text",
        "--root",
        root_arg,
        "path=secret.txt",
    ]);
    assert!(!ok, "{read}");
    assert!(read["error"]["code"].is_string(), "{read}");
    assert!(
        read.to_string()
            .to_lowercase()
            .contains("permission denied"),
        "{read}"
    );

    // Moving a file out of a read-only folder: the commit stops with a code; the file stays.
    let (ok, moved) = u.json(&[
        "tool",
        "manage-files",
        "move",
        "--root",
        root_arg,
        "source=locked/report.txt",
        "target=.",
        "--commit",
    ]);
    assert!(!ok, "{moved}");
    assert_eq!(moved["error"]["code"], "COMMIT_FAILED", "{moved}");
    assert!(
        moved.to_string().contains("nothing on disk changed"),
        "{moved}"
    );
    assert!(
        moved
            .to_string()
            .to_lowercase()
            .contains("permission denied"),
        "{moved}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("locked/report.txt")).unwrap(),
        "report"
    );
    assert!(!root.join("report.txt").exists());

    // Files it may change still change (regression: a commit refused before anything changed
    // used to leave a journal behind, and every later commit stopped on PENDING_JOURNAL).
    let (ok, renamed) = u.json(&[
        "tool",
        "manage-files",
        "rename",
        "--root",
        root_arg,
        "path=notes.txt",
        "new_name=todo.txt",
        "--commit",
    ]);
    assert!(ok, "{renamed}");
    assert!(root.join("todo.txt").is_file());

    // Put the modes back so the temp folder can be removed.
    chmod(&root.join("private"), 0o755);
    chmod(&root.join("locked"), 0o755);
}
