//! Skill saves re-embed one skill, settings are validated whole, models load and cancel in the background.

use super::*;

#[test]
fn saving_a_skill_re_embeds_it_and_a_broken_edit_keeps_the_previous_version() {
    let w = world();
    let text = w.engine.skill_source("archive-files").unwrap().text;
    // A new description (the folded block up to `tags:`) that no other skill shares.
    let start = text.find("description:").unwrap();
    let end = text.find("\ntags:").unwrap();
    let edited = format!(
        "{}description: Feed the quokka colony and brush every wombat.{}",
        &text[..start],
        &text[end..]
    );
    assert!(
        w.engine
            .skill_check("archive-files", &edited)
            .iter()
            .all(|d| !d.is_error())
    );
    let saved = w.engine.skill_save("archive-files", &edited).unwrap();
    assert_eq!(saved.outcome, "loaded");
    assert!(saved.reembedded);
    let ranking = w
        .engine
        .skill_search("feed the quokkas and brush the wombats")
        .unwrap();
    assert_eq!(ranking.hits[0].skill, "archive-files");

    let broken = text.replacen("name:", "nmae:", 1);
    let problems = w.engine.skill_check("archive-files", &broken);
    assert!(
        problems.iter().any(|d| d.is_error() && d.line > 0),
        "{problems:?}"
    );
    let saved = w.engine.skill_save("archive-files", &broken).unwrap();
    assert_eq!(saved.outcome, "kept_previous");
    assert!(!saved.diagnostics.is_empty());
    assert_eq!(
        std::fs::read_to_string(w.skills.path().join("archive-files/SKILL.md")).unwrap(),
        broken
    );
    // The last good version still answers.
    assert_eq!(
        w.engine
            .skill_search("feed the quokkas and brush the wombats")
            .unwrap()
            .hits[0]
            .skill,
        "archive-files"
    );
    let listed = w.engine.skills_list().unwrap();
    let archive = listed.iter().find(|s| s.name == "archive-files").unwrap();
    assert!(archive.diagnostics.iter().any(skills::Diagnostic::is_error));
    assert_eq!(listed.len(), 11);

    let created = w
        .engine
        .skill_create("rename-photos", "Rename holiday photos by date")
        .unwrap();
    assert_eq!(created.outcome, "loaded");
    assert_eq!(w.engine.skills_list().unwrap().len(), 12);
    assert_eq!(w.engine.agents()[0].skills, 12);
    assert_eq!(
        w.engine.skill_source("../etc").unwrap_err().payload().code,
        "UNKNOWN_SKILL"
    );
}

/// Seed 002: `describe_skills` writes a skill's descriptions.json (derived from its SKILL.md when
/// no model plans), the skill is embedded again with them, a current one is left alone unless
/// forced, and an edit of the SKILL.md makes it stale until it is written again.
#[test]
fn skills_are_described_stored_with_the_skill_and_embedded_with_it() {
    let w = world();
    let folder = w.skills.path().join("archive-files");
    let file = folder.join(skills::DESCRIPTIONS_FILE);
    let _ = std::fs::remove_file(&file);
    // Derived at load meanwhile: the editor's list says so.
    let info = |w: &World| {
        let listed = w.engine.skills_list().unwrap();
        listed
            .into_iter()
            .find(|s| s.name == "archive-files")
            .unwrap()
    };
    let origin = info(&w).descriptions.unwrap();
    assert!(!origin.stored && origin.reason.as_deref() == Some("no descriptions.json"));
    assert!(info(&w).tools.iter().all(|t| t.described.is_some()));

    let done = w.engine.describe_skills(&[], false).unwrap();
    let outcome = |done: &[engine::SkillDescribed], name: &str| {
        done.iter()
            .find(|d| d.name == name)
            .map(|d| (d.outcome.clone(), d.generated_by.clone(), d.tools))
    };
    assert_eq!(
        outcome(&done, "archive-files"),
        Some(("written".into(), "derived".into(), 3))
    );
    assert_eq!(
        outcome(&done, "skill_template"),
        None,
        "the template is not described"
    );
    // Written once, current after that: derived again only on request (no model here).
    let again = w.engine.describe_skills(&[], false).unwrap();
    assert!(
        again
            .iter()
            .filter(|d| d.tools > 0)
            .all(|d| d.outcome == "current"),
        "{again:?}"
    );
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(stored["generated_by"], "derived");
    assert!(
        stored["tools"]["create"]["examples"]
            .as_array()
            .unwrap()
            .len()
            >= 2,
        "{stored}"
    );
    let origin = info(&w).descriptions.unwrap();
    assert!(origin.stored, "{origin:?}");

    // Forced, it is written again; an edit makes it stale (derived again at load).
    let forced = w
        .engine
        .describe_skills(&["archive-files".to_owned()], true)
        .unwrap();
    assert_eq!(forced[0].outcome, "written");
    let text = w.engine.skill_source("archive-files").unwrap().text;
    w.engine
        .skill_save("archive-files", &format!("{text}\n"))
        .unwrap();
    let origin = info(&w).descriptions.unwrap();
    assert!(!origin.stored, "{origin:?}");
    assert_eq!(
        w.engine
            .describe_skills(&["no-such-skill".to_owned()], false)
            .unwrap_err()
            .payload()
            .code,
        "UNKNOWN_SKILL"
    );
}

#[test]
fn settings_report_every_problem_and_leave_the_file_as_it_was() {
    let w = world();
    let mut s = w.engine.settings();
    s.thinker_backend = "gpt".into();
    s.hitl_mode = "sometimes".into();
    let err = w.engine.set_settings(&s).unwrap_err().payload();
    assert_eq!(err.code, "CONFIG_INVALID");
    assert!(
        err.message.contains("thinker_backend") && err.message.contains("hitl_mode"),
        "{}",
        err.message
    );
    let file = s.config_file.clone().unwrap();
    assert!(!file.exists());

    let good = Settings {
        hitl_mode: "all".into(),
        shortcut: "Ctrl+Shift+K".into(),
        ..w.engine.settings()
    };
    let saved = w.engine.set_settings(&good).unwrap();
    assert_eq!(saved.hitl_mode, "all");
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("Ctrl+Shift+K")
    );
    assert_eq!(w.engine.info().shortcut, "Ctrl+Shift+K");

    // The drop folder is chosen here too: absolute only; the app's task loop reads it each round.
    let relative = Settings {
        drop_folder: Some("tasks".into()),
        ..w.engine.settings()
    };
    let err = w.engine.set_settings(&relative).unwrap_err().payload();
    assert!(err.message.contains("drop_folder"), "{}", err.message);
    let tasks = tempfile::tempdir().unwrap();
    let with_tasks = Settings {
        drop_folder: Some(tasks.path().to_owned()),
        thinker_rules_first: false,
        ..w.engine.settings()
    };
    let saved = w.engine.set_settings(&with_tasks).unwrap();
    assert_eq!(saved.drop_folder.as_deref(), Some(tasks.path()));
    assert!(!saved.thinker_rules_first);
    assert_eq!(w.engine.config().drop_folder.as_deref(), Some(tasks.path()));
}

/// The engine embeds with the built-in `words` embedder, and skill matching works on it.
fn assert_embedded_embedder_matches_skills(w: &World) {
    assert!(
        w.engine.info().embedder.starts_with("words"),
        "{}",
        w.engine.info().embedder
    );
    assert_eq!(
        w.engine
            .skill_search("remove duplicate files")
            .unwrap()
            .hits[0]
            .skill,
        "remove-duplicates"
    );
}

/// The model-loading notices so far, as "component state".
fn model_progress(w: &World) -> Vec<String> {
    w.notices
        .lock()
        .unwrap()
        .iter()
        .filter_map(|n| match n {
            Notice::ModelProgress {
                component, state, ..
            } => Some(format!("{component} {state}")),
            _ => None,
        })
        .collect()
}

#[test]
fn a_model_chosen_in_settings_loads_in_the_background_and_a_broken_one_falls_back() {
    let w = world();
    let progress = model_progress;
    let wait_for = |w: &World, state: &str| {
        for _ in 0..600 {
            if progress(w).iter().any(|p| p == state) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("no `{state}` in {:?}", progress(w));
    };
    // Opening announced the embedded defaults as ready; only what follows counts.
    assert!(progress(&w).contains(&"planner ready".to_owned()));
    w.notices.lock().unwrap().clear();
    // A real (tiny, random-weight) BERT folder: loaded, and the engine reports it.
    let model = tempfile::tempdir().unwrap();
    tiny_models::write_bert(model.path(), 32).unwrap();
    let bert = Settings {
        embedding_backend: "bert".into(),
        embedding_model_path: Some(model.path().to_owned()),
        ..w.engine.settings()
    };
    w.engine.set_settings(&bert).unwrap();
    wait_for(&w, "embedder ready");
    for _ in 0..600 {
        if w.engine.info().embedder.starts_with("bert") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        w.engine.info().embedder.starts_with("bert"),
        "{}",
        w.engine.info().embedder
    );
    // A folder without a model: failed, then the embedded default again.
    let empty = tempfile::tempdir().unwrap();
    let broken = Settings {
        embedding_model_path: Some(empty.path().to_owned()),
        ..bert
    };
    w.engine.set_settings(&broken).unwrap();
    wait_for(&w, "embedder fallback");
    assert!(progress(&w).contains(&"embedder failed".to_owned()));
    for _ in 0..600 {
        if w.engine.info().embedder.starts_with("words") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // Skill matching still works on the fallback.
    assert_embedded_embedder_matches_skills(&w);
}

/// Picking a model that takes long to load, then changing one's mind: the cancel keeps the models
/// in use, saves the model settings back as they were, and whatever the load still produces is
/// dropped without a word. The model folder's config.json is a named pipe, so the load waits
/// for the test to write it.
#[test]
fn a_model_load_can_be_cancelled_and_the_models_in_use_stay() {
    let w = world();
    let model = tempfile::tempdir().unwrap();
    tiny_models::write_bert(model.path(), 32).unwrap();
    let config_json = model.path().join("config.json");
    let text = std::fs::read_to_string(&config_json).unwrap();
    std::fs::remove_file(&config_json).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&config_json)
        .status()
        .unwrap();
    assert!(made.success());
    let states = model_progress;
    w.notices.lock().unwrap().clear();
    let before = w.engine.settings();
    assert!(
        w.engine.cancel_model_load().unwrap().is_none(),
        "nothing loads"
    );
    let bert = Settings {
        embedding_backend: "bert".into(),
        embedding_model_path: Some(model.path().to_owned()),
        ..before.clone()
    };
    w.engine.set_settings(&bert).unwrap();
    for _ in 0..200 {
        if states(&w).contains(&"embedder loading".to_owned()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    assert_eq!(states(&w), ["embedder loading"]);

    let restored = w
        .engine
        .cancel_model_load()
        .unwrap()
        .expect("a load under way");
    assert_eq!(restored.embedding_backend, before.embedding_backend);
    assert_eq!(restored.embedding_model_path, None);
    let file = std::fs::read_to_string(restored.config_file.unwrap()).unwrap();
    assert!(!file.contains("bert"), "saved back: {file}");
    assert_eq!(states(&w), ["embedder loading", "embedder cancelled"]);
    assert!(w.engine.cancel_model_load().unwrap().is_none(), "once");

    // The load gets its file and finishes: its model is dropped, nothing more is announced.
    std::fs::write(&config_json, text).unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(states(&w), ["embedder loading", "embedder cancelled"]);
    assert_embedded_embedder_matches_skills(&w);
}
