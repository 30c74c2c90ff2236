//! Hot reload end to end: a real notify watcher on a copy of the skills; an edited description
//! re-embeds only that skill; a broken edit keeps the last good version.

use std::time::Duration;

use retrieval::{HotReload, RetrievalPipeline, SkillWatcher, apply_skill_change};

use crate::support::{Counting, config, load_store, skills_copy};

#[test]
fn an_edit_reembeds_only_that_skill_and_a_broken_edit_keeps_the_old_one() {
    let skills = skills_copy();
    let state = tempfile::tempdir().unwrap();
    let mut store = load_store(skills.path());
    let counting = Counting::new();
    let mut p = RetrievalPipeline::with_embedder(&config(state.path()), counting.clone()).unwrap();
    p.build_index(&store).unwrap();
    counting.take();
    let watcher = SkillWatcher::start(skills.path()).unwrap();

    let file = skills.path().join("archive-files/SKILL.md");
    let text = std::fs::read_to_string(&file).unwrap();
    let edited = text.replacen(
        "description: >",
        "description: >\n  Bundle paperwork into a quokka-shaped container.",
        1,
    );
    assert_ne!(text, edited);
    std::fs::write(&file, &edited).unwrap();
    let changes = watcher.next_changes(Duration::from_secs(5));
    assert_eq!(changes, [watcher.dir().join("archive-files")]);
    let outcome = apply_skill_change(&mut store, &mut p, &changes[0]).unwrap();
    let docs = match &outcome {
        HotReload::Reloaded { skill, documents } => {
            assert_eq!(skill, "archive-files");
            *documents
        }
        other => panic!("{other:?}"),
    };
    // The skill document and its three tools, nothing else.
    assert_eq!((docs, counting.take()), (4, 4));
    let r = p.match_skill("quokka-shaped container").unwrap();
    assert_eq!(r.top().unwrap().skill, "archive-files");
    counting.take(); // the query itself

    // A broken edit: diagnostics, the previous version stays indexed.
    std::fs::write(&file, edited.replace("name: archive-files", "name: [oops")).unwrap();
    let changes = watcher.next_changes(Duration::from_secs(5));
    match apply_skill_change(&mut store, &mut p, &changes[0]).unwrap() {
        HotReload::KeptPrevious { skill, diagnostics } => {
            assert_eq!(skill, "archive-files");
            assert!(!diagnostics.is_empty());
            assert!(diagnostics[0].contains("SKILL.md:"), "{diagnostics:?}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(counting.take(), 0);
    assert!(
        p.skill_index()
            .skills()
            .contains(&"archive-files".to_owned())
    );

    // Deleting the folder drops the skill.
    std::fs::remove_dir_all(skills.path().join("archive-files")).unwrap();
    let changes = watcher.next_changes(Duration::from_secs(5));
    let outcome = apply_skill_change(&mut store, &mut p, &changes[0]).unwrap();
    assert!(matches!(outcome, HotReload::Removed { .. }), "{outcome:?}");
    assert!(
        !p.skill_index()
            .skills()
            .contains(&"archive-files".to_owned())
    );
}
