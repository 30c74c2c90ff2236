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

mod questions;
mod rollback;
mod safety;
mod skills_at_work;
