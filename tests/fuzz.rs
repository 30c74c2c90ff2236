//! Fuzzing on stable Rust (arbtest: inputs from `arbitrary`, seeds that fail are printed and can be
//! replayed): the SKILL.md parser, plan JSON and its validation, `$step(n)` references, archive
//! entry paths and the config loader get mangled versions of real inputs, and must answer with a
//! value or a clear error, never a panic. Each target runs `SCOPE_WEAVER_FUZZ_MS` milliseconds
//! (default 1500); a long run: `SCOPE_WEAVER_FUZZ_MS=600000 cargo test --workspace --test fuzz`.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use arbtest::arbitrary::{Result, Unstructured};
use serde_json::json;

fn budget() -> u64 {
    std::env::var("SCOPE_WEAVER_FUZZ_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500)
}

fn repo(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

/// `seed` with random edits: bytes replaced, runs deleted, random text or a piece of the seed
/// itself inserted (structure stays recognisable, so the parser gets past its first checks).
fn mangle(u: &mut Unstructured, seed: &str) -> Result<String> {
    let mut s: Vec<u8> = seed.as_bytes().to_vec();
    for _ in 0..u.int_in_range(1..=8)? {
        if s.is_empty() {
            break;
        }
        let at = u.int_in_range(0..=s.len() - 1)?;
        match u.int_in_range(0..=3)? {
            0 => s[at] = u.arbitrary()?,
            1 => {
                let end = (at + u.int_in_range(1..=64)?).min(s.len());
                s.drain(at..end);
            }
            2 => {
                let junk: String = u.arbitrary()?;
                s.splice(at..at, junk.into_bytes());
            }
            _ => {
                let from = u.int_in_range(0..=s.len() - 1)?;
                let piece: Vec<u8> = s[from..(from + 80).min(s.len())].to_vec();
                s.splice(at..at, piece);
            }
        }
    }
    Ok(String::from_utf8_lossy(&s).into_owned())
}

/// Runs `prop` for the budget and reports how many inputs it took.
fn fuzz(name: &str, mut prop: impl FnMut(&mut Unstructured) -> Result<()>) {
    let runs = AtomicU64::new(0);
    arbtest::arbtest(|u| {
        runs.fetch_add(1, Ordering::Relaxed);
        prop(u)
    })
    .budget_ms(budget());
    eprintln!("{name}: {} inputs, no panic", runs.load(Ordering::Relaxed));
}

fn shipped_skill_texts() -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(repo("skills")).unwrap() {
        let p = entry.unwrap().path().join("SKILL.md");
        if let Ok(t) = std::fs::read_to_string(p) {
            out.push(t);
        }
    }
    out
}

#[test]
fn the_skill_md_parser_answers_every_mangled_file() {
    let seeds = shipped_skill_texts();
    fuzz("SKILL.md", |u| {
        let seed = u.choose(&seeds)?.clone();
        let text = mangle(u, &seed)?;
        let (draft, diagnostics) = skills::parse_skill_md(&text, Path::new("fuzz/SKILL.md"));
        // Something is always said: a skill, or why not.
        assert!(draft.is_some() || !diagnostics.is_empty(), "{text}");
        Ok(())
    });
}

#[test]
fn plans_and_references_are_validated_or_refused_never_a_panic() {
    let table = skills::engine_primitive_table(sandbox::graph_primitive_table());
    let store = skills::SkillStore::load(&repo("skills"), table).unwrap();
    let plan = json!({"steps": [
        {"step": 1, "description": "scan", "skill": "remove-duplicates", "tool": "scan", "params": {"path": "Downloads"}},
        {"step": 2, "description": "remove", "skill": "remove-duplicates", "tool": "remove",
         "params": {"groups": "$step(1).groups", "keep": "newest"}},
        {"step": 3, "description": "sort", "skill": "organize-by-type", "tool": "organize", "params": {"path": "Downloads"}}
    ]})
    .to_string();
    let mut cx = contracts::PipelineContext::default();
    cx.record(
        1,
        contracts::ExecutionResult::success(
            "s1",
            json!({"groups": [{"paths": ["a", "b"]}], "nodes": [{"path": "x"}]}),
        ),
    );
    fuzz("plan JSON + $step(n)", |u| {
        let text = mangle(u, &plan)?;
        if let Ok(p) = serde_json::from_str::<contracts::Plan>(&text) {
            let _ = thinker::validate_plan(&p, &store, 10);
        }
        let reference = mangle(u, "$step(1).groups[0].paths")?;
        let _ = cx.resolve(&reference);
        Ok(())
    });
}

#[test]
fn archive_entry_paths_never_leave_the_target() {
    let seeds = [
        r"..\..\Temp\evil.txt",
        "docs/notes.txt",
        r"C:\Windows\x.dll",
        r"\\server\share\x",
        "./a/./b/",
        "CON.txt",
    ];
    fuzz("archive entry paths", |u| {
        let raw = if u.arbitrary()? {
            let seed = *u.choose(&seeds)?;
            mangle(u, seed)?
        } else {
            u.arbitrary::<String>()?
        };
        let windows: bool = u.arbitrary()?;
        if let Ok(path) = sandbox::archive_entry_path(&raw, windows) {
            assert!(
                !path.is_empty() && !path.starts_with('/'),
                "{raw:?} → {path:?}"
            );
            assert!(!path.contains('\\'), "{raw:?} → {path:?}");
            assert!(
                path.split('/')
                    .all(|c| !c.is_empty() && c != "." && c != ".."),
                "{raw:?} → {path:?}"
            );
            let b = path.as_bytes();
            let drive = b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':';
            assert!(!drive, "{raw:?} → {path:?}");
            // Where Windows reads it, no name it would take as a stream or a device.
            assert!(!windows || !path.contains(':'), "{raw:?} → {path:?}");
        }
        Ok(())
    });
}

#[test]
fn the_config_loader_answers_every_mangled_file() {
    let seed = std::fs::read_to_string(repo("config/default.yaml")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.yaml");
    fuzz("config", |u| {
        std::fs::write(&file, mangle(u, &seed)?).unwrap();
        let _ = config::PipelineConfig::load_from(Some(&file), Vec::<(String, String)>::new());
        Ok(())
    });
}
