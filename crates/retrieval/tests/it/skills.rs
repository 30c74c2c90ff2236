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

/// Seed 002: "what can you do with photos?" is answered from the tools' descriptions, each hit
/// saying in a person's words what it does and what to ask for it; without the descriptions in the
/// index the same question finds fewer photo tools.
#[test]
fn skill_search_answers_what_can_you_do_from_the_tools_descriptions() {
    let store = load_store(&repo_skills());
    let ask = |with_descriptions: bool| {
        let state = tempfile::tempdir().unwrap();
        let mut cfg = config(state.path());
        cfg.skill_index_descriptions = with_descriptions;
        let mut p = RetrievalPipeline::open(&cfg).unwrap();
        p.build_index(&store).unwrap();
        let mut params = serde_json::Map::new();
        params.insert("query".into(), "what can you do with photos?".into());
        params.insert("top_k".into(), 5.into());
        retrieval::call_retrieval(&p, None, "skill_match", &params).unwrap()
    };
    let answer = ask(true);
    let hits = answer["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 5);
    for h in hits {
        assert!(
            h["summary"].as_str().is_some_and(|s| s.len() > 20),
            "every hit says what it does: {h}"
        );
        assert!(
            h["examples"].as_array().is_some_and(|e| !e.is_empty()),
            "and what to ask for it: {h}"
        );
    }
    let about_photos = |a: &serde_json::Value| {
        a["hits"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| {
                let text = format!("{} {}", h["summary"], h["examples"]).to_lowercase();
                text.contains("photo") || text.contains("picture") || text.contains("image")
            })
            .count()
    };
    let with = about_photos(&answer);
    assert!(with >= 3, "{with} of 5 hits are about photos: {answer:#}");
    // The bare index knows the same tools (the hits still carry their descriptions) but ranks
    // them by names, descriptions and triggers alone.
    assert!(about_photos(&ask(false)) <= with);
}

/// The labelled skill-match set (`eval/skill_match.jsonl`) with and without the tools'
/// descriptions in the index: they must help, and stay above their floors (BENCHMARKS.md,
/// "Retrieval: skill-match accuracy"; `scripts/eval-skill-match.sh` prints the whole table).
#[test]
fn tool_descriptions_raise_skill_match_accuracy_on_the_labelled_requests() {
    let store = load_store(&repo_skills());
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval/skill_match.jsonl"),
    )
    .unwrap()
    .lines()
    .filter(|l| !l.trim().is_empty())
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    let score = |with_descriptions: bool| {
        let state = tempfile::tempdir().unwrap();
        let mut cfg = config(state.path());
        cfg.skill_index_descriptions = with_descriptions;
        let mut p = RetrievalPipeline::open(&cfg).unwrap();
        p.build_index(&store).unwrap();
        let (mut skill, mut pair) = (0, 0);
        for row in &rows {
            let top = p.match_skill(row["request"].as_str().unwrap()).unwrap();
            let top = top.top().unwrap();
            let mut ok = vec![format!(
                "{}/{}",
                row["skill"].as_str().unwrap(),
                row["tool"].as_str().unwrap()
            )];
            ok.extend(
                row["also_ok"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_str().unwrap().to_owned()),
            );
            skill += ok
                .iter()
                .any(|o| o.split('/').next() == Some(top.skill.as_str()))
                as usize;
            pair += ok.contains(&format!("{}/{}", top.skill, top.tool)) as usize;
        }
        let pct = |n: usize| n as f64 * 100.0 / rows.len() as f64;
        (pct(skill), pct(pair))
    };
    let (bare_skill, bare_pair) = score(false);
    let (skill, pair) = score(true);
    eprintln!(
        "skill top-1 {bare_skill:.1}% → {skill:.1}%, skill+tool {bare_pair:.1}% → {pair:.1}% \
         with descriptions ({} requests)",
        rows.len()
    );
    assert!(
        skill >= bare_skill && pair > bare_pair,
        "the descriptions do not help"
    );
    assert!(
        skill >= 70.0,
        "skill top-1 {skill:.1}% below its floor 70.0%"
    );
    assert!(
        pair >= 45.0,
        "skill+tool top-1 {pair:.1}% below its floor 45.0%"
    );
}
