//! End-to-end runs of the orchestrator on real temp folders with a scripted person: the seed's
//! worked example, near-miss, clarification, rollback + DEPENDENCY_UNAVAILABLE, scope escape and a
//! conflict at commit.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use config::{DeleteMode, HitlMode, PipelineConfig};
use contracts::{Plan, PlanStep};
use pipeline::{
    Decision, DiffDecision, DiffReview, Event, Interaction, Orchestrator, ParamQuestion,
    PipelineError, RunOptions, RunReport, SkillCandidate, StepReview, StepStatus,
};
use retrieval::RetrievalPipeline;
use sandbox::{Sandbox, SandboxConfig, ScanOptions};
use serde_json::{Map, Value, json};
use skills::SkillStore;
use thinker::{PlanControl, PlanRequest, Planned, Planner, PlanningContext, RulePlanner};

/// A person who answers from a script.
#[derive(Default)]
struct Scripted {
    /// Step number → params to merge in at its first review.
    overrides: BTreeMap<u32, Map<String, Value>>,
    roll_back: Vec<u32>,
    /// Skill to pick on a near-miss (else the planned one).
    pick: Option<String>,
    answers: BTreeMap<String, Value>,
    /// Answers to "what did you mean?" questions, in order.
    rephrasings: Vec<String>,
    /// Runs before the person approves the diff (to change the disk behind the sandbox's back).
    before_commit: Option<Box<dyn FnMut()>>,
    events: Vec<Event>,
    reviews: Vec<u32>,
    /// At the first diff review, roll back to this snapshot (then commit what is left).
    roll_back_to: Option<String>,
    diff_reviews: Vec<DiffReview>,
}

impl Interaction for Scripted {
    fn event(&mut self, event: &Event) {
        self.events.push(event.clone());
    }
    fn clarify_request(&mut self, _q: &str) -> Option<String> {
        (!self.rephrasings.is_empty()).then(|| self.rephrasings.remove(0))
    }
    fn choose_skill(&mut self, _s: &PlanStep, c: &[SkillCandidate]) -> Option<usize> {
        match &self.pick {
            Some(skill) => c.iter().position(|x| &x.skill == skill),
            None => c.iter().position(|x| x.planned),
        }
    }
    fn clarify_param(&mut self, q: &ParamQuestion) -> Option<Value> {
        self.answers.get(&q.param).cloned()
    }
    fn review_step(&mut self, r: &StepReview) -> Decision {
        self.reviews.push(r.step);
        if self.roll_back.contains(&r.step) {
            return Decision::RollBack;
        }
        match self.overrides.remove(&r.step) {
            Some(patch) => {
                let mut p = r.params.clone();
                p.extend(patch);
                Decision::Override(p)
            }
            None => Decision::Approve,
        }
    }
    fn review_diff(&mut self, d: &DiffReview) -> DiffDecision {
        self.diff_reviews.push(d.clone());
        if let Some(snapshot) = self.roll_back_to.take() {
            return DiffDecision::RollBackTo(snapshot);
        }
        if let Some(f) = self.before_commit.as_mut() {
            f();
        }
        DiffDecision::Commit
    }
}

/// A planner that returns a fixed plan (to drive the orchestrator's own paths).
struct Fixed(Plan);

impl Planner for Fixed {
    fn name(&self) -> String {
        "fixed".into()
    }
    fn plan(
        &mut self,
        _r: &PlanRequest,
        _c: &PlanningContext,
        _k: &PlanControl,
    ) -> thinker::Result<Planned> {
        Ok(Planned {
            plan: self.0.clone(),
            ..Planned::default()
        })
    }
}

struct World {
    _state: tempfile::TempDir,
    dir: tempfile::TempDir,
    config: PipelineConfig,
    store: SkillStore,
    retrieval: RetrievalPipeline,
}

fn write(root: &Path, rel: &str, body: &str, age_days: u64) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, body).unwrap();
    let t = SystemTime::now() - Duration::from_secs(age_days * 86_400 + 60);
    std::fs::File::options()
        .write(true)
        .open(&p)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn world(files: &[(&str, &str, u64)]) -> World {
    let state = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("Downloads")).unwrap();
    for (rel, body, age) in files {
        write(&dir.path().join("Downloads"), rel, body, *age);
    }
    let config = PipelineConfig {
        state_dir: Some(state.path().to_owned()),
        delete_mode: DeleteMode::Permanent,
        ..PipelineConfig::default()
    };
    let table = skills::engine_primitive_table(sandbox::graph_primitive_table());
    let skills_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    let store = SkillStore::load(&skills_dir, table).unwrap();
    let mut retrieval = RetrievalPipeline::open(&config).unwrap();
    retrieval.build_index(&store).unwrap();
    World {
        _state: state,
        dir,
        config,
        store,
        retrieval,
    }
}

impl World {
    fn root(&self) -> PathBuf {
        self.dir.path().join("Downloads")
    }

    fn run(
        &mut self,
        planner: &mut dyn Planner,
        request: &str,
        hitl: HitlMode,
        ui: &mut Scripted,
    ) -> Result<RunReport, PipelineError> {
        let mut sandbox = Sandbox::open(
            &self.root(),
            SandboxConfig::from_pipeline(&self.config),
            &ScanOptions::default(),
        )
        .unwrap();
        let mut o = Orchestrator {
            config: &self.config,
            skills: &mut self.store,
            retrieval: &mut self.retrieval,
            sandbox: &mut sandbox,
            planner,
            audit: None,
        };
        let options = RunOptions {
            hitl: Some(hitl),
            ..RunOptions::default()
        };
        o.run(request, &options, ui)
    }

    /// Every file and folder under the root, one per line.
    fn tree(&self) -> String {
        fn walk(dir: &Path, base: &Path, out: &mut Vec<String>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let e = e.unwrap();
                let rel = e.path().strip_prefix(base).unwrap().display().to_string();
                if e.file_type().unwrap().is_dir() {
                    out.push(format!("{rel}/"));
                    walk(&e.path(), base, out);
                } else {
                    out.push(rel);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.root(), &self.root(), &mut out);
        out.sort();
        out.join("\n")
    }
}

fn downloads() -> Vec<(&'static str, &'static str, u64)> {
    vec![
        ("report_v1.pdf", "quarterly report\n", 3),
        ("report_final.pdf", "quarterly report\n", 2),
        ("beach.jpg", "JPEG holiday\n", 1),
        ("beach (1).jpg", "JPEG holiday\n", 5),
        ("old/beach.jpg", "JPEG holiday\n", 30),
        ("song.mp3", "ID3 song\n", 10),
        ("export.csv", "a,b\n1,2\n", 4),
        ("setup.exe", "MZ installer\n", 6),
        ("notes.txt", "meeting notes\n", 7),
    ]
}

#[test]
fn worked_example_removes_duplicates_except_the_excluded_pair_then_sorts_by_type() {
    let mut w = world(&downloads());
    let mut ui = Scripted::default();
    // Step 2 (remove) pauses in `key` mode; the person keeps both report versions.
    ui.overrides.insert(
        2,
        json!({"exclude": ["report_v1.pdf", "report_final.pdf"]})
            .as_object()
            .unwrap()
            .clone(),
    );
    let report = w
        .run(
            &mut RulePlanner,
            "Clean up my Downloads folder – remove duplicates, then organize the remaining files \
             into subfolders by type",
            HitlMode::Key,
            &mut ui,
        )
        .unwrap();
    let plan: Vec<String> = report
        .plan
        .steps
        .iter()
        .map(|s| format!("{}/{}", s.skill, s.tool))
        .collect();
    assert_eq!(
        plan,
        [
            "remove-duplicates/scan",
            "remove-duplicates/remove",
            "organize-by-type/organize"
        ]
    );
    assert!(report.committed);
    assert_eq!(report.overrides, 1);
    // Only mutating steps were reviewed (key mode); step 2 twice (before and after the override).
    assert_eq!(ui.reviews, [2, 2, 3]);
    expect_test::expect![[r#"
        Audio/
        Audio/song.mp3
        Data/
        Data/export.csv
        Documents/
        Documents/notes.txt
        Documents/report_final.pdf
        Documents/report_v1.pdf
        Images/
        Images/beach.jpg
        Installers/
        Installers/setup.exe
        old/"#]]
    .assert_eq(&w.tree());
    assert!(
        report.text.starts_with(
            "Removed 2 duplicate files (saved 26 B). Organized 7 files into 5 subfolders."
        ),
        "{}",
        report.text
    );
    assert!(
        ui.events
            .iter()
            .any(|e| matches!(e, Event::Reindexed { .. }))
    );
}

#[test]
fn final_review_rolls_back_to_a_step_then_commits_the_rest() {
    let mut w = world(&downloads());
    // At the final diff review the person undoes the sorting (step 3) and keeps the dedup.
    let mut ui = Scripted {
        roll_back_to: Some("snap-3".into()),
        ..Scripted::default()
    };
    let report = w
        .run(
            &mut RulePlanner,
            "remove duplicates in Downloads, then sort the rest into folders by type",
            HitlMode::Bypass,
            &mut ui,
        )
        .unwrap();
    let points: Vec<String> = ui.diff_reviews[0]
        .rollback_points
        .iter()
        .map(|p| {
            format!(
                "{} {} {}/{} {}",
                p.step, p.snapshot, p.skill, p.tool, p.changes
            )
        })
        .collect();
    expect_test::expect![[r#"
        [
            "2 snap-2 remove-duplicates/remove 3",
            "3 snap-3 organize-by-type/organize 11",
        ]
    "#]]
    .assert_debug_eq(&points);
    // Asked again with only step 2's changes, all of them deletes.
    assert_eq!(ui.diff_reviews.len(), 2);
    assert_eq!(ui.diff_reviews[1].rollback_points.len(), 1);
    assert!(ui.diff_reviews[1].ops.iter().all(|op| op.is_destructive()));
    assert!(report.committed);
    assert_eq!(report.rollbacks, 1);
    assert_eq!(report.steps[2].status, StepStatus::RolledBack);
    let rolled: Vec<&Event> = ui
        .events
        .iter()
        .filter(|e| matches!(e, Event::RolledBack { .. }))
        .collect();
    expect_test::expect![[r#"
        [
            RolledBack {
                step: 3,
                snapshot: "snap-3",
                undone: 28,
            },
        ]
    "#]]
    .assert_debug_eq(&rolled);
    expect_test::expect![[r#"
        beach.jpg
        export.csv
        notes.txt
        old/
        report_final.pdf
        setup.exe
        song.mp3"#]]
    .assert_eq(&w.tree());
}

#[test]
fn a_rollback_point_that_does_not_exist_is_a_warning_and_the_diff_is_asked_again() {
    let mut w = world(&downloads());
    let mut ui = Scripted {
        roll_back_to: Some("snap-99".into()),
        ..Scripted::default()
    };
    let report = w
        .run(
            &mut RulePlanner,
            "remove duplicates in Downloads",
            HitlMode::Bypass,
            &mut ui,
        )
        .unwrap();
    assert!(report.committed);
    assert_eq!(ui.diff_reviews.len(), 2);
    assert!(ui.events.iter().any(|e| matches!(
        e,
        Event::Warning { message, .. } if message.contains("snap-99")
    )));
}

#[test]
fn rolling_back_a_step_skips_its_dependents_with_dependency_unavailable() {
    let mut w = world(&[
        ("Temp/a.log", "x\n", 1),
        ("Temp/b.log", "y\n", 1),
        ("keep.txt", "k\n", 1),
    ]);
    let mut ui = Scripted {
        roll_back: vec![1],
        ..Scripted::default()
    };
    let report = w
        .run(
            &mut RulePlanner,
            "find all .log files in Temp and delete them",
            HitlMode::All,
            &mut ui,
        )
        .unwrap();
    let statuses: Vec<(u32, StepStatus)> =
        report.steps.iter().map(|s| (s.step, s.status)).collect();
    assert_eq!(
        statuses,
        [(1, StepStatus::RolledBack), (2, StepStatus::Skipped)]
    );
    assert_eq!(
        report.steps[1].error.as_ref().unwrap().code,
        "DEPENDENCY_UNAVAILABLE"
    );
    assert!(!report.committed);
    assert!(w.root().join("Temp/a.log").exists() && w.root().join("Temp/b.log").exists());
}

/// A model planner that cannot plan, behind the rule planner (what `build_planner` builds).
struct BrokenModel;

impl Planner for BrokenModel {
    fn name(&self) -> String {
        "mistralrs:broken.gguf".into()
    }
    fn plan(
        &mut self,
        _r: &PlanRequest,
        _c: &PlanningContext,
        _k: &PlanControl,
    ) -> thinker::Result<Planned> {
        Err(thinker::ThinkerError::InvalidOutput {
            attempts: 3,
            last: "step 1: UNKNOWN_TOOL".into(),
        })
    }
}

#[test]
fn a_model_that_cannot_plan_falls_back_to_the_rule_planner_and_the_run_says_so() {
    let mut w = world(&[("a.txt", "same\n", 1), ("b.txt", "same\n", 2)]);
    let mut ui = Scripted::default();
    let mut planner = thinker::WithRuleFallback::new(Box::new(BrokenModel));
    let report = w
        .run(
            &mut planner,
            "remove duplicates in Downloads",
            HitlMode::Key,
            &mut ui,
        )
        .unwrap();
    assert_eq!(report.planner, "rule (fallback from mistralrs:broken.gguf)");
    let warning = ui
        .events
        .iter()
        .find_map(|e| match e {
            Event::Warning {
                step: None,
                message,
            } => Some(message.clone()),
            _ => None,
        })
        .expect("a warning about the fallback");
    assert!(
        warning
            .contains("mistralrs:broken.gguf could not plan this request (PLANNER_INVALID_OUTPUT"),
        "{warning}"
    );
    // The fallback plan went through the same approvals (the delete was shown) and committed.
    assert!(
        ui.events
            .iter()
            .any(|e| matches!(e, Event::Approved { step: 2, .. })),
        "{:?}",
        ui.events
    );
    assert!(report.committed);
    assert_eq!(w.tree(), "a.txt");
}

#[test]
fn near_miss_lets_the_person_pick_another_skill_and_logs_the_choice() {
    let mut w = world(&[("a.pdf", "pdf\n", 1), ("b.jpg", "jpg\n", 1)]);
    // The plan names manage-files/list, but the step says to sort by type.
    let plan = Plan {
        steps: vec![PlanStep {
            step: 1,
            description: "sort the files in this folder into folders by type".into(),
            skill: "manage-files".into(),
            tool: "list".into(),
            params: json!({"path": "."}).as_object().unwrap().clone(),
        }],
    };
    let mut ui = Scripted {
        pick: Some("organize-by-type".into()),
        ..Scripted::default()
    };
    let report = w
        .run(&mut Fixed(plan), "sort by type", HitlMode::Bypass, &mut ui)
        .unwrap();
    assert_eq!(report.near_misses, 1);
    let chosen = ui.events.iter().find_map(|e| match e {
        Event::NearMiss {
            chosen, candidates, ..
        } => Some((chosen.clone(), candidates.len())),
        _ => None,
    });
    let (chosen, n) = chosen.expect("near-miss logged");
    assert_eq!(chosen.unwrap().skill, "organize-by-type");
    assert!(n >= 2);
    assert_eq!(report.steps[0].skill, "organize-by-type");
    assert!(w.root().join("Documents/a.pdf").exists());
    assert!(w.root().join("Images/b.jpg").exists());
}

#[test]
fn a_missing_parameter_is_asked_for_and_the_answer_used() {
    let mut w = world(&[
        ("a.pdf", "a\n", 1),
        ("b.pdf", "b\n", 1),
        ("c.txt", "c\n", 1),
    ]);
    std::fs::create_dir(w.root().join("Archive")).unwrap();
    let mut ui = Scripted::default();
    ui.answers.insert("target".into(), json!("Archive"));
    let report = w
        .run(&mut RulePlanner, "move the PDFs", HitlMode::Bypass, &mut ui)
        .unwrap();
    assert!(ui.events.iter().any(|e| matches!(
        e,
        Event::Clarification { step: Some(_), answer: Some(a), .. } if a == "Archive"
    )));
    assert!(report.committed, "{report:#?}");
    assert!(w.root().join("Archive/a.pdf").exists() && w.root().join("Archive/b.pdf").exists());
    assert!(w.root().join("c.txt").exists());
}

#[test]
fn sort_by_year_goes_to_the_date_tool_with_a_year_pattern_and_sidecars_follow() {
    let mut w = world(&[
        ("new.jpg", "n", 1),
        ("new.xmp", "sidecar", 900),
        ("old.pdf", "o", 800),
    ]);
    let year = |rel: &str| {
        let t = std::fs::metadata(w.root().join(rel))
            .unwrap()
            .modified()
            .unwrap();
        let secs = t.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
        sandbox::format_time(secs as i64)[..4].to_owned()
    };
    let (new, old) = (year("new.jpg"), year("old.pdf"));
    assert_ne!(new, old);
    let mut ui = Scripted {
        answers: [("path".to_owned(), json!("."))].into(),
        ..Scripted::default()
    };
    let report = w
        .run(
            &mut RulePlanner,
            "sort the files into folders by year",
            HitlMode::Bypass,
            &mut ui,
        )
        .unwrap();
    let step = &report.plan.steps[0];
    assert_eq!(
        (step.skill.as_str(), step.tool.as_str()),
        ("organize-by-type", "by_date")
    );
    assert_eq!(step.params["pattern"], "{year}");
    assert!(report.committed, "{report:#?}");
    assert!(w.root().join(format!("{new}/new.jpg")).exists());
    assert!(
        w.root().join(format!("{new}/new.xmp")).exists(),
        "the sidecar follows its photo"
    );
    assert!(w.root().join(format!("{old}/old.pdf")).exists());
}

/// Regression: the answer to a request nothing was understood of was appended to it, so the
/// same question came back about the words already asked about.
#[test]
fn a_rephrased_request_replaces_one_nothing_was_understood_of() {
    let mut w = world(&[("a.pdf", "a\n", 1), ("b.jpg", "b\n", 1)]);
    let mut ui = Scripted {
        rephrasings: vec!["sort the files by type".into(), "unexpected".into()],
        answers: [("path".to_owned(), json!("."))].into(),
        ..Scripted::default()
    };
    let report = w
        .run(&mut RulePlanner, "make it nice", HitlMode::Bypass, &mut ui)
        .unwrap();
    let asked: Vec<_> = ui
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Clarification {
                step: None,
                question,
                answer,
            } => Some((question.clone(), answer.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(asked.len(), 1, "asked once: {asked:#?}");
    assert!(asked[0].0.contains("make it nice"), "{asked:#?}");
    assert_eq!(ui.rephrasings, ["unexpected"]);
    assert!(report.committed, "{report:#?}");
    assert!(w.root().join("Documents/a.pdf").exists());
    assert!(w.root().join("Images/b.jpg").exists());
}

#[test]
fn an_unanswered_clarification_skips_the_step_and_changes_nothing() {
    let mut w = world(&[("a.pdf", "a\n", 1)]);
    let mut ui = Scripted::default();
    let report = w
        .run(&mut RulePlanner, "move the PDFs", HitlMode::Bypass, &mut ui)
        .unwrap();
    let last = report.steps.last().unwrap();
    assert_eq!(last.status, StepStatus::Skipped);
    assert_eq!(last.error.as_ref().unwrap().code, "MISSING_PARAMS");
    assert!(!report.committed);
    assert!(w.root().join("a.pdf").exists());
}

#[test]
fn a_path_outside_the_root_is_refused_and_nothing_outside_is_touched() {
    let mut w = world(&[("a.txt", "a\n", 1)]);
    std::fs::write(w.dir.path().join("outside.txt"), "precious").unwrap();
    let plan = Plan {
        steps: vec![PlanStep {
            step: 1,
            description: "delete the file".into(),
            skill: "manage-files".into(),
            tool: "delete".into(),
            params: json!({"path": ["../outside.txt"]})
                .as_object()
                .unwrap()
                .clone(),
        }],
    };
    let mut ui = Scripted::default();
    let report = w
        .run(
            &mut Fixed(plan),
            "delete ../outside.txt",
            HitlMode::Bypass,
            &mut ui,
        )
        .unwrap();
    assert_eq!(report.steps[0].status, StepStatus::Failed);
    let code = &report.steps[0].error.as_ref().unwrap().code;
    assert!(code.contains("SCOPE") || code.contains("OUTSIDE"), "{code}");
    assert!(!report.committed);
    assert_eq!(
        std::fs::read_to_string(w.dir.path().join("outside.txt")).unwrap(),
        "precious"
    );
}

#[test]
fn a_file_changed_on_disk_before_commit_stops_the_commit_with_nothing_written() {
    let mut w = world(&[("a.pdf", "a\n", 1), ("b.jpg", "b\n", 1)]);
    let root = w.root();
    let mut ui = Scripted {
        before_commit: Some(Box::new(move || {
            std::fs::write(root.join("a.pdf"), "edited behind the sandbox's back").unwrap();
        })),
        ..Scripted::default()
    };
    let err = w
        .run(
            &mut RulePlanner,
            "sort this folder by type",
            HitlMode::Bypass,
            &mut ui,
        )
        .unwrap_err();
    assert_eq!(contracts::ErrorCode::code(&err), "COMMIT_CONFLICT", "{err}");
    assert!(err.to_string().contains("a.pdf"), "{err}");
    expect_test::expect![[r#"
        a.pdf
        b.jpg"#]]
    .assert_eq(&w.tree());
}

/// "rename the photos by the date they were taken" with the default planner: a `find` of the
/// images, then batch-rename with `{exif.date}`; the photo without EXIF keeps its name.
#[test]
fn photos_are_renamed_by_the_date_they_were_taken() {
    use sandbox::parse::samples::{PhotoInfo, jpeg};
    let mut w = world(&[("notes.txt", "n\n", 1)]);
    for (name, taken) in [
        ("IMG_0001.jpg", Some("2022:03:04 05:06:07")),
        ("IMG_0002.jpg", Some("2023:11:12 13:14:15")),
        ("scan.jpg", None),
    ] {
        let photo = jpeg(&PhotoInfo {
            taken,
            width: 4,
            height: 4,
            ..PhotoInfo::default()
        });
        std::fs::write(w.root().join(name), photo).unwrap();
    }
    let mut ui = Scripted::default();
    let report = w
        .run(
            &mut RulePlanner,
            "rename the photos by the date they were taken",
            HitlMode::Bypass,
            &mut ui,
        )
        .unwrap();
    let tools: Vec<_> = report.plan.steps.iter().map(|s| s.tool.as_str()).collect();
    assert_eq!(tools, ["find", "rename"], "{report:#?}");
    assert!(report.committed, "{report:#?}");
    expect_test::expect![[r#"
        2022-03-04_050607.jpg
        2023-11-12_131415.jpg
        notes.txt
        scan.jpg"#]]
    .assert_eq(&w.tree());
}

/// parse-content through a request: the PDF's text layer is what the step returns.
#[test]
fn reading_a_pdf_returns_its_text() {
    let mut w = world(&[]);
    let pdf = sandbox::parse::samples::pdf(
        "Lease",
        "Landlord",
        "20240101",
        &["Rent is due on the 1st."],
    );
    std::fs::write(w.root().join("lease.pdf"), pdf).unwrap();
    let report = w
        .run(
            &mut RulePlanner,
            "read lease.pdf",
            HitlMode::Bypass,
            &mut Scripted::default(),
        )
        .unwrap();
    let step = &report.plan.steps[0];
    assert_eq!(
        (step.skill.as_str(), step.tool.as_str()),
        ("parse-content", "extract_text")
    );
    let out = serde_json::to_string(&report).unwrap();
    assert!(out.contains("Rent is due on the 1st."), "{out}");
}

/// `on_conflict: ask` (from the config): the step stops on the clashing names, the person is
/// asked once for all of them, and the step runs again with the answer.
#[test]
fn a_conflict_is_asked_about_and_the_answer_used() {
    for (answer, expected) in [
        (
            "skip",
            expect_test::expect![[r#"
                Archive/
                Archive/a.pdf
                Archive/b.pdf
                a.pdf"#]],
        ),
        (
            "rename",
            expect_test::expect![[r#"
                Archive/
                Archive/a (2).pdf
                Archive/a.pdf
                Archive/b.pdf"#]],
        ),
    ] {
        let mut w = world(&[
            ("a.pdf", "new a", 1),
            ("b.pdf", "b", 1),
            ("Archive/a.pdf", "old a", 9),
        ]);
        w.config.on_conflict = config::ConflictPolicy::Ask;
        let mut ui = Scripted {
            answers: [("on_conflict".to_owned(), json!(answer))].into(),
            ..Scripted::default()
        };
        let report = w
            .run(
                &mut RulePlanner,
                "move the PDFs to Archive",
                HitlMode::Bypass,
                &mut ui,
            )
            .unwrap();
        assert!(report.committed, "{report:#?}");
        let asked = ui.events.iter().any(|e| {
            matches!(e, Event::Clarification { question, answer: Some(a), .. }
                if question.contains("`Archive/a.pdf`") && a == answer)
        });
        assert!(asked, "{:#?}", ui.events);
        expected.assert_eq(&w.tree());
        assert_eq!(
            std::fs::read_to_string(w.root().join("Archive/a.pdf")).unwrap(),
            "old a"
        );
    }
}

/// A fixed plan, and tool declarations drafted for any new skill (as a model planner would).
struct Drafting(Plan, Vec<skills::ToolDeclaration>);

impl Planner for Drafting {
    fn name(&self) -> String {
        "drafting".into()
    }
    fn plan(
        &mut self,
        _r: &PlanRequest,
        _c: &PlanningContext,
        _k: &PlanControl,
    ) -> thinker::Result<Planned> {
        Ok(Planned {
            plan: self.0.clone(),
            ..Planned::default()
        })
    }
    fn draft_tools(
        &mut self,
        _r: &thinker::ToolDraftRequest,
        _c: &PlanningContext,
        _k: &PlanControl,
    ) -> thinker::Result<Option<thinker::DraftedTools>> {
        Ok(Some(thinker::DraftedTools {
            tools: self.1.clone(),
            ..thinker::DraftedTools::default()
        }))
    }
}

#[test]
fn a_new_skill_gets_the_drafted_tools_shown_at_its_step_and_written_after_the_commit() {
    let mut w = world(&downloads());
    // A skills folder of its own: the run writes the new skill into it.
    let skills_dir = tempfile::tempdir().unwrap();
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    for name in ["skill_template", "skill-create"] {
        let to = skills_dir.path().join(name);
        std::fs::create_dir(&to).unwrap();
        for f in ["SKILL.md", "vis.json"] {
            std::fs::copy(shipped.join(name).join(f), to.join(f)).unwrap();
        }
    }
    w.store = SkillStore::load(skills_dir.path(), w.store.table().clone()).unwrap();
    w.retrieval.build_index(&w.store).unwrap();
    let plan: Plan = serde_json::from_value(json!({"steps": [{
        "step": 1, "description": "create the skill", "skill": "skill-create", "tool": "create",
        "params": {"name": "sort-shots", "description": "Sort screenshots by month"}
    }]}))
    .unwrap();
    let tool = skills::ToolDeclaration {
        name: "find_shots".into(),
        summary: "Find screenshots".into(),
        primitive: contracts::PrimitiveKind::Graph,
        operation: "find".into(),
        required: vec!["path".into()],
        optional: vec!["glob".into()],
    };
    let mut planner = Drafting(plan, vec![tool]);
    let mut ui = Scripted::default();
    let report = w
        .run(&mut planner, "make a skill", HitlMode::Key, &mut ui)
        .unwrap();
    assert!(report.committed, "{report:?}");
    let dispatched = ui
        .events
        .iter()
        .find_map(|e| match e {
            Event::Dispatched { summary, data, .. } => Some((summary.clone(), data.clone())),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        dispatched.0,
        "Will create the skill sort-shots with 1 drafted tool: find_shots"
    );
    assert_eq!(
        dispatched.1["drafted"]["declarations"][0],
        "### find_shots -- Find screenshots\nprimitive: graph | method: find | mutates: false | required: [path] | optional: [glob]\n"
    );
    let loaded = w.store.get("sort-shots").expect("created after the commit");
    assert_eq!(
        loaded.definition.tools.keys().collect::<Vec<_>>(),
        ["find_shots"]
    );
    assert!(skills_dir.path().join("sort-shots/SKILL.md").exists());
}

/// The content index is read only by a search by content: a run that does not search never
/// reads the folder's files for it (a 100,000-file folder took 100 s to index before a plain
/// `analyze`), and a run that does indexes the folder before its first step.
#[test]
fn only_a_search_by_content_indexes_the_folder() {
    let mut w = world(&[
        (
            "lease.txt",
            "The landlord says the rent is due on the first.",
            1,
        ),
        (
            "recipe.txt",
            "Whisk the eggs with sugar and bake for an hour.",
            1,
        ),
    ]);
    let indexes = |w: &World| {
        std::fs::read_dir(w.config.state_dir().join("index"))
            .map(|d| {
                d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .filter(|n| n.starts_with("content-") && n.ends_with(".json"))
                    .count()
            })
            .unwrap_or(0)
    };
    let step = |skill: &str, tool: &str, params: Value| Plan {
        steps: vec![PlanStep {
            step: 1,
            description: String::new(),
            skill: skill.into(),
            tool: tool.into(),
            params: params.as_object().unwrap().clone(),
        }],
    };
    let analyze = step("analyze-directory", "analyze", json!({"path": "."}));
    w.run(
        &mut Fixed(analyze),
        "how big is it",
        HitlMode::Bypass,
        &mut Scripted::default(),
    )
    .unwrap();
    assert!(w.retrieval.content_index().is_none());
    assert_eq!(indexes(&w), 0);

    let search = step(
        "search-files",
        "search",
        json!({"query": "rent owed to the landlord"}),
    );
    let mut ui = Scripted::default();
    w.run(
        &mut Fixed(search),
        "what do I owe the landlord",
        HitlMode::Bypass,
        &mut ui,
    )
    .unwrap();
    assert!(w.retrieval.content_index().is_some());
    assert_eq!(indexes(&w), 1);
    let found = ui.events.iter().find_map(|e| match e {
        Event::Dispatched { data, .. } => data.pointer("/paths/0").cloned(),
        _ => None,
    });
    assert_eq!(found, Some(json!("lease.txt")));
}
