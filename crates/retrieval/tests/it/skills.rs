//! SkillIndex through the pipeline: ranking the shipped skills, confidence, persistence,
//! fingerprint changes, hot reload of one skill.

use std::sync::Arc;

use contracts::PlanStep;
use retrieval::{RetrievalPipeline, SkillRanking};

use crate::support::{Counting, config, load_store, repo_skills};

fn render(r: &SkillRanking, n: usize) -> String {
    let mut out = format!(
        "{:?} → {}\n",
        r.query,
        if r.confident {
            "confident"
        } else {
            "near-miss"
        }
    );
    for h in r.hits.iter().take(n) {
        out += &format!("  {:.3} {}/{}\n", h.score, h.skill, h.tool);
    }
    out
}

#[test]
fn the_worked_example_steps_match_their_skills() {
    let state = tempfile::tempdir().unwrap();
    let store = load_store(&repo_skills());
    let mut p = RetrievalPipeline::open(&config(state.path())).unwrap();
    let report = p.build_index(&store).unwrap();
    assert_eq!(report.embedded.len(), 11, "{report:?}");
    assert!(!report.embedded.contains(&"skill-template".to_owned()));
    for (query, skill, tool) in [
        (
            "delete the extra copies of duplicate files",
            "remove-duplicates",
            "remove",
        ),
        (
            "find duplicate files in Downloads",
            "remove-duplicates",
            "scan",
        ),
        (
            "sort the rest into folders by type",
            "organize-by-type",
            "organize",
        ),
        ("zip the old reports", "archive-files", "create"),
        (
            "rename all the photos with a numbered pattern",
            "batch-rename",
            "rename",
        ),
        (
            "which files mention the invoice deposit",
            "search-files",
            "search",
        ),
        (
            "full statistics of sizes and file types in my home folder",
            "analyze-directory",
            "analyze",
        ),
    ] {
        let r = p.match_skill(query).unwrap();
        let top = r.top().unwrap();
        assert_eq!(
            (top.skill.as_str(), top.tool.as_str()),
            (skill, tool),
            "{}",
            render(&r, 4)
        );
    }
    let r = p
        .query_skill(&PlanStep {
            step: 1,
            description: "remove duplicates in Downloads".into(),
            skill: "remove-duplicates".into(),
            tool: "remove".into(),
            params: Default::default(),
        })
        .unwrap();
    assert!(
        r.runner_ups()
            .iter()
            .all(|h| h.skill != "remove-duplicates")
    );
    assert!(r.margin() > 0.0);
}

#[test]
fn persisted_index_is_reused_and_a_new_embedder_rebuilds_it() {
    let state = tempfile::tempdir().unwrap();
    let store = load_store(&repo_skills());
    let counting = Counting::new();
    let cfg = config(state.path());
    let mut p = RetrievalPipeline::with_embedder(&cfg, counting.clone()).unwrap();
    p.build_index(&store).unwrap();
    let first = counting.take();
    assert!(first > 30, "{first} documents embedded");
    assert!(p.index_dir().join("skills.usearch").exists());

    // Same embedder: nothing is embedded again.
    let mut p = RetrievalPipeline::with_embedder(&cfg, counting.clone()).unwrap();
    let report = p.build_index(&store).unwrap();
    assert_eq!(
        (report.reused, report.embedded.len(), report.rebuilt),
        (11, 0, false)
    );
    assert_eq!(counting.take(), 0);

    // Another fingerprint (dims): the saved index is rejected and rebuilt.
    let cfg64 = retrieval::embed::LexicalEmbedder::new(64);
    let mut p = RetrievalPipeline::with_embedder(&cfg, Arc::new(cfg64)).unwrap();
    let report = p.build_index(&store).unwrap();
    assert!(report.rebuilt);
    assert_eq!(report.embedded.len(), 11);
    assert_eq!(p.skill_index().inner().vectors().dims(), 64);
}

#[test]
fn every_combine_method_ranks_the_obvious_request_first() {
    let store = load_store(&repo_skills());
    for m in config::CombineMethod::ALL {
        let state = tempfile::tempdir().unwrap();
        let mut cfg = config(state.path());
        cfg.combine_method = *m;
        let mut p = RetrievalPipeline::open(&cfg).unwrap();
        p.build_index(&store).unwrap();
        let r = p.match_skill("find and delete duplicate files").unwrap();
        assert_eq!(
            r.top().unwrap().skill,
            "remove-duplicates",
            "{m}: {}",
            render(&r, 3)
        );
    }
}

#[test]
fn nonsense_is_a_near_miss() {
    let state = tempfile::tempdir().unwrap();
    let store = load_store(&repo_skills());
    let mut p = RetrievalPipeline::open(&config(state.path())).unwrap();
    p.build_index(&store).unwrap();
    let r = p.match_skill("bake a chocolate cake").unwrap();
    assert!(!r.confident, "{}", render(&r, 3));
}
