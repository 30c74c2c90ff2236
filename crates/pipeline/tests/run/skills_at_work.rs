//! Skills run end to end: sorting by year, renaming photos, reading a PDF, drafting a new skill, searching by content.

use super::*;

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
