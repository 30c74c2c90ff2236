//! Plan quality as a test with floors: the rule planner scored on `eval/plans.jsonl` by the same
//! scorer a person runs (`scope-weaver plan --file`). Raise a floor when the planner gets better;
//! never lower one for the same set.
//!
//! 2026-11-25: the set grew from 156 to 301 requests written by someone who had not seen the
//! planner's answers (a spread over every tool, 43 German, 30 vague), and 230 of them label the
//! parameters the request states. The floors were set again on that set: skills right 79.6% →
//! 72.4%, accepted-without-picker precision 93.3% → 91.2%, and a new floor with parameters
//! checked (52.2%; the issue's goal is 90%). Raised the same day after planner fixes found on the
//! grown set (German folder names, a named file's folder, "new folder a/b/c", words that choose
//! values, German system folder names, a rename's declared `start: 1`, "the folder X", a name
//! with its year, one numbered example "and so on", names of several capitalised words): 65.1%
//! with parameters, 74.8% skills, 92.0% precision. Raised again when paths and file names were
//! read whole ("Work/recent.zip" is not a date and a zip extension; "the gist of report.pdf in
//! Downloads" acts on Downloads/report.pdf), the German lexicon learned a few words, and a clause
//! naming one file fits a tool that acts on one file: 68.5% with parameters, 75.6% skills; German
//! questions about one file ("wann wurde … aufgenommen?") and lower-casing names: 69.1%, 76.2%.
//! 2026-11-26: the tools' descriptions (summary and example requests, derived from each SKILL.md)
//! embedded with them in the skill index, and parse-content's triggers given to the tool each is
//! for: 69.8% with parameters, 77.5% skills (precision 91.9%, on 463 accepted steps, was 92.9% on
//! 456); archive-files' triggers given to their tools ("what's packed inside … without unpacking
//! it" lists): 70.1%.
//! Later the same day, with data only (SKILL.md): triggers that fitted several tools equally moved
//! to the tool each is for, a few general triggers and keywords; quoted words never corrected, and
//! a mutating tool counted against a clause that only looks (issue 19 note, 2026-11-26): 74.3%
//! with parameters, 80.4% skills, acts when clear 81.2%, precision 93.8% with the picker on 5.6% of
//! steps.

use std::path::Path;

use super::Env;

/// Share of `eval/plans.jsonl` planned right: the skills in order and every labelled parameter
/// (percent).
const PLAN_ACCURACY_FLOOR: f64 = 96.0;
/// Share planned with the right skills in the right order, parameters not checked (percent).
const SKILLS_ACCURACY_FLOOR: f64 = 95.0;
/// Share of clear requests planned with the right skills without asking (percent).
const ACTS_WHEN_CLEAR_FLOOR: f64 = 96.5;
/// Steps of clear requests on which a run would show the near-miss picker: at most (percent).
/// 10.0 (the issue's goal) until 2026-11-27, when it was on 2.6 %.
const PICKER_SHARE_CEILING: f64 = 6.0;
/// Steps accepted without the picker whose skill is right: at least (percent). Was 94.0; lowered
/// once to 93.0 when organize-by-content (sorting by topic) joined the shipped skills and took
/// one clear "how many images, docs … would each folder get" step from organize-by-type (issue 20
/// note, 2026-11-25).
/// Set again to 91.0 on the grown set (see the top of this file); 94.0 once the skills' triggers
/// were given to their tools; 97.0 (the issue's goal) once clauses, triggers' frames, name
/// patterns and rare slots were read (2026-11-26); 98.5 on 2026-11-27 (99.3 % measured); 99.0
/// that evening (99.6 %).
const ACCEPTED_PRECISION_FLOOR: f64 = 99.0;

#[test]
fn the_rule_planner_stays_above_its_floors_on_the_labelled_requests() {
    let env = Env::new(&[]);
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval/plans.jsonl");
    let score = env.json(&["plan", "--file", file.to_str().unwrap()]);
    let skills = score["skills"]["accuracy"]
        .as_f64()
        .expect("skills.accuracy");
    assert!(
        score["total"].as_u64().unwrap() >= 301,
        "the labelled set only grows: {score}"
    );
    assert!(
        score["params_checked"]["total"].as_u64().unwrap() >= 230,
        "labelled parameters only grow: {}",
        score["params_checked"]
    );
    let accuracy = score["accuracy"].as_f64().expect("accuracy");
    assert!(
        accuracy >= PLAN_ACCURACY_FLOOR,
        "plans right (skills and labelled parameters) on {accuracy:.1}%, below \
         {PLAN_ACCURACY_FLOOR}% (by kind: {})",
        score["by_kind"]
    );
    assert!(
        skills >= SKILLS_ACCURACY_FLOOR,
        "skills right on {skills:.1}%, below {SKILLS_ACCURACY_FLOOR}% (by kind, parameters checked: {})",
        score["by_kind"]
    );
    let clear = &score["acts_when_clear"];
    let acts = clear["accuracy"]
        .as_f64()
        .expect("acts_when_clear.accuracy");
    assert!(
        acts >= ACTS_WHEN_CLEAR_FLOOR,
        "acts without asking on {acts:.1}% of clear requests, below {ACTS_WHEN_CLEAR_FLOOR}%: {clear}"
    );
    let picker = &score["picker"]["configured"];
    let share = picker["picker_share"].as_f64().expect("picker_share");
    let precision = picker["precision"].as_f64().expect("precision");
    assert!(
        share <= PICKER_SHARE_CEILING,
        "the near-miss picker would show on {share:.1}% of steps, above {PICKER_SHARE_CEILING}%: {picker}"
    );
    assert!(
        precision >= ACCEPTED_PRECISION_FLOOR,
        "steps accepted without the picker are right {precision:.1}% of the time, below \
         {ACCEPTED_PRECISION_FLOOR}%: {picker}"
    );
    // Retrieval alone (the margin turned off) is what the planner's margin improves on.
    let rows = score["picker"]["by_margin"].as_array().expect("by_margin");
    let off = rows.last().expect("a row for margin 1.0");
    assert!(off["picker_share"].as_f64().unwrap() > share, "{off}");
}

/// Requests written without seeing the planner (`eval/README.md`): the sets fixes were made from
/// (held-out, dev, dev2, dev3), and the one only ever scored (unseen). Their floors say how a new
/// person's requests fare; they are far below `plans.jsonl`'s, which the planner has been tuned
/// on (2026-11-26, at first: 46.7 %, 45.0 % and 35.0 %; then 75.0 %, 65.8 % and 53.3 %;
/// 2026-11-27: 78.3 %, 75.0 % and 58.3 %; later 81.7 %, 77.5 %, dev2 60.0 % and 60.0 %; then
/// 95.0 %, 89.2 %, dev2 81.7 %, dev3 80.0 % and 65.0 %).
const HELD_OUT_FLOORS: &[(&str, u64, f64)] = &[
    ("plans-heldout.jsonl", 60, 96.5),
    ("plans-dev.jsonl", 120, 91.5),
    // Written 2026-11-27 the same way; 45.0 % when first scored.
    ("plans-dev2.jsonl", 120, 89.5),
    // Written 2026-11-27 (later) the same way; 40.8 % when first scored.
    ("plans-dev3.jsonl", 120, 88.0),
    // Written 2026-11-27 (evening) the same way; 34.2 % when first scored.
    ("plans-dev4.jsonl", 120, 77.0),
    // Written 2026-11-27 (day, a new session) the same way; 51.7 % when first scored.
    ("plans-dev5.jsonl", 120, 87.0),
    // Written 2026-11-27 (afternoon, a new session) the same way; 40.0 % when first scored.
    ("plans-dev6.jsonl", 120, 77.0),
    // Written 2026-11-27 (afternoon) the same way; 46.7 % when first scored.
    ("plans-dev7.jsonl", 120, 79.5),
    // Written 2026-11-27 (evening, a new session) the same way; 49.2 % when first scored, then
    // used like the unseen set (its score only) for the rest of that session; tuned on since.
    ("plans-dev8.jsonl", 120, 82.0),
    // Written 2026-11-27 (night, a new session) the same way; 51.7 % when first scored, then
    // used like the unseen set (its score only) for the rest of that session; tuned on since.
    // (85.8 → 85.0 on 2026-11-29, late night: a request counted right planned a delete nobody
    // asked for, "grab last week's radiographs and put them in the patients' folders"; a delete
    // is planned only when asked for now, `asked_with`.)
    ("plans-dev9.jsonl", 120, 84.5),
    // Written 2026-11-27 (late night, a new session) the same way; 49.2 % when first scored,
    // then used like the unseen set (its score only) for the rest of that session; tuned on since.
    ("plans-dev10.jsonl", 120, 76.5),
    // Plain requests of a new user (2026-11-28), dealt into a set read and tuned on (66.7 % when
    // first scored) and one only ever scored (58.3 %).
    ("plans-plain.jsonl", 60, 93.0),
    ("plans-plain2.jsonl", 60, 78.0),
    // A third set of plain requests (2026-11-28, noon), read and tuned on; 50.0 % when first scored.
    ("plans-plain3.jsonl", 120, 85.5),
    // A fourth set of plain requests (2026-11-28, evening), scored once blind (50.8 %), then read
    // and tuned on.
    ("plans-plain4.jsonl", 120, 79.5),
    ("plans-unseen.jsonl", 60, 78.0),
    // A fifth set of plain requests (2026-11-29, early), scored once blind (43.3 %), then read
    // and tuned on (2026-11-29, morning and day).
    ("plans-plain5.jsonl", 120, 79.5),
    // A sixth set of plain requests (2026-11-29, day), scored once blind (46.7 %), then read and
    // tuned on (2026-11-29, late morning).
    ("plans-plain6.jsonl", 120, 69.5),
    // A seventh set of plain requests (2026-11-29, late morning), scored blind (46.7 %), then
    // read and tuned on (2026-11-29, afternoon).
    ("plans-plain7.jsonl", 120, 80.5),
    // An eighth set of plain requests (2026-11-29, afternoon), scored blind (48.3 %), then read
    // and tuned on (2026-11-29, late afternoon).
    ("plans-plain8.jsonl", 120, 75.5),
    // A ninth set of plain requests (2026-11-29, late afternoon), scored blind (42.5 %), then
    // read and tuned on (2026-11-29, evening).
    ("plans-plain9.jsonl", 120, 73.5),
    // A tenth set of plain requests (2026-11-29, evening), scored blind (46.7 %); read from
    // 2026-11-29 (night) on.
    ("plans-plain10.jsonl", 120, 62.0),
    // An eleventh set of plain requests (2026-11-29, night), scored blind (45.8 %); read from
    // 2026-11-29 (late night) on.
    ("plans-plain11.jsonl", 120, 71.0),
    // A twelfth set of plain requests (2026-11-29, late night), scored blind (56.7 %); read from
    // 2026-11-30 on.
    ("plans-plain12.jsonl", 120, 69.0),
    // A thirteenth set of plain requests (2026-11-30), scored blind (48.3 %) and not read: with
    // plain2 and unseen, the measure of requests nobody here has seen.
    ("plans-plain13.jsonl", 120, 50.5),
];

#[test]
fn the_rule_planner_stays_above_its_floors_on_requests_it_was_not_tuned_on() {
    let env = Env::new(&[]);
    for (name, cases, floor) in HELD_OUT_FLOORS {
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../eval")
            .join(name);
        let score = env.json(&["plan", "--file", file.to_str().unwrap()]);
        assert_eq!(score["total"].as_u64(), Some(*cases), "{name}: {score}");
        let accuracy = score["accuracy"].as_f64().expect("accuracy");
        assert!(
            accuracy >= *floor,
            "{name}: plans right on {accuracy:.1}%, below {floor}% (by kind: {})",
            score["by_kind"]
        );
    }
}

/// A skill someone writes in the editor: nothing but its SKILL.md (triggers, defaults and what its
/// tool acts on are data), no Rust.
const SNAPSHOT_SKILL: &str = r#"---
name: folder-snapshot
description: >
  Keep a dated copy of a folder before changing it: the folder is copied whole into Snapshots.
tags: [snapshot, backup, copy]
---

# Folder snapshot

### take -- Copy a folder whole into the Snapshots folder
primitive: graph | method: copy_node | mutates: true | required: [source, target] | optional: [on_conflict]
acts_on: nodes | selects: moved.to | defaults: {target: Snapshots, on_conflict: rename}
triggers: ["take a snapshot of {source}", "snapshot {source}"]
"#;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let dest = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), dest).unwrap();
        }
    }
}

#[test]
fn a_skill_written_only_in_skill_md_is_planned_and_run_for_a_request_that_names_it() {
    let env = Env::new(&[
        ("Documents/taxes.pdf", "tax"),
        ("Documents/notes/a.md", "a"),
    ]);
    let skills = env.home.path().join("skills");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills"),
        &skills,
    );
    std::fs::create_dir_all(skills.join("folder-snapshot")).unwrap();
    std::fs::write(skills.join("folder-snapshot/SKILL.md"), SNAPSHOT_SKILL).unwrap();
    let skills = skills.to_str().unwrap();

    let preview = env.json(&[
        "--skills",
        skills,
        "plan",
        "--root",
        env.root(),
        "take a snapshot of Documents",
    ]);
    let steps = preview["plan"]["steps"].as_array().expect("steps");
    assert_eq!(steps.len(), 1, "{preview}");
    assert_eq!(steps[0]["skill"], "folder-snapshot", "{preview}");
    assert_eq!(
        steps[0]["params"],
        serde_json::json!({"source": ["Documents"], "target": "Snapshots", "on_conflict": "rename"}),
        "{preview}"
    );

    let out = env.run(&[
        "--skills",
        skills,
        "run",
        "--root",
        env.root(),
        "--yes",
        "take a snapshot of Documents",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let copied = env.root.path().join("Snapshots/Documents");
    assert_eq!(std::fs::read(copied.join("taxes.pdf")).unwrap(), b"tax");
    assert_eq!(std::fs::read(copied.join("notes/a.md")).unwrap(), b"a");
    assert!(env.root.path().join("Documents/taxes.pdf").exists());
}

/// Sorting by meaning, scored like the planner: the labelled documents of `eval/content.jsonl`
/// written as real PDF, DOCX, Markdown and text files and sorted into their eight categories by
/// the built-in embedder (no model), and content search by meaning on the same files.
#[test]
fn sorting_by_meaning_stays_above_its_floors_on_the_labelled_documents() {
    let env = Env::new(&[]);
    let eval = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval");
    let score = env.json(&[
        "eval-sort",
        "--file",
        eval.join("content.jsonl").to_str().unwrap(),
        "--queries",
        eval.join("content_queries.jsonl").to_str().unwrap(),
    ]);
    assert!(score["documents"].as_u64().unwrap() >= 240, "{score}");
    assert!(
        score["embedder"].as_str().unwrap().starts_with("words-v1"),
        "{score}"
    );
    let f = |k: &str| score[k].as_f64().unwrap_or_else(|| panic!("{k}: {score}"));
    // Measured 2026-11-25: top-1 79.2%, 88.2% right among the 85% sorted without asking.
    assert!(f("top1") >= 77.0, "top-1 {}", f("top1"));
    assert!(
        f("accuracy_sure") >= 86.0,
        "right when sure {}",
        f("accuracy_sure")
    );
    assert!(f("asked_share") <= 18.0, "asked {}", f("asked_share"));
    // Queries that share no topic word with their files ("money owed on a bill").
    let search = &score["search"];
    assert!(search["first_right"].as_f64().unwrap() >= 75.0, "{search}");
    assert!(search["no_hit"].as_f64().unwrap() <= 5.0, "{search}");
}

/// Regressions found on the grown labelled set (2026-11-25): each request and the step parameters
/// it must give.
#[test]
fn requests_keep_their_folders_names_and_the_values_their_words_choose() {
    let env = Env::new(&[]);
    let cases: [(&str, &str, serde_json::Value); 49] = [
        // A path is read whole: "recent" is not a date, ".zip" not an extension filter.
        (
            "find the files in Work I changed in the last 3 days and zip them into Work/recent.zip",
            "archive-files/create",
            serde_json::json!({"target": "Work/recent.zip", "format": "zip"}),
        ),
        // A file named after "of" is what the step reads.
        (
            "give me the gist of report.pdf in Downloads",
            "parse-content/summarize",
            serde_json::json!({"path": "Downloads/report.pdf"}),
        ),
        // One file named: reading it, not listing its folder.
        (
            "what's in todo.txt on my Desktop",
            "parse-content/extract_text",
            serde_json::json!({"path": "Desktop/todo.txt"}),
        ),
        (
            "delete old.log from the Logs folder",
            "manage-files/delete",
            serde_json::json!({"path": ["Logs/old.log"]}),
        ),
        (
            "new folder Documents/Taxes/2025",
            "manage-files/create",
            serde_json::json!({"path": "Documents/Taxes", "name": "2025", "type": "dir"}),
        ),
        (
            "kopiere alle Fotos aus Downloads nach Bilder",
            "manage-files/copy",
            serde_json::json!({"target": "Bilder"}),
        ),
        (
            "list everything on the Desktop including hidden files",
            "manage-files/list",
            serde_json::json!({"path": "Desktop", "include_hidden": true}),
        ),
        (
            "list everything in Projects/site, subfolders included",
            "manage-files/list",
            serde_json::json!({"path": "Projects/site", "recursive": true}),
        ),
        (
            "give me a CSV report of the duplicate files in Documents",
            "remove-duplicates/scan",
            serde_json::json!({"path": "Documents", "format": "csv"}),
        ),
        (
            "whats takign up spcae in Movies",
            "analyze-directory/analyze",
            serde_json::json!({"path": "Movies"}),
        ),
        (
            "suche nach Rechnungen in Dokumente",
            "search-files/search",
            serde_json::json!({"path": "Dokumente"}),
        ),
        (
            "copy the folder Recipes to Backup",
            "manage-files/copy",
            serde_json::json!({"source": ["Recipes"], "target": "Backup"}),
        ),
        (
            "make a folder called Receipts 2024 in Documents",
            "manage-files/create",
            serde_json::json!({"path": "Documents", "name": "Receipts 2024"}),
        ),
        (
            "bulk rename the pics in Camera Roll to vacay_001.jpg and so on",
            "batch-rename/rename",
            serde_json::json!({"pattern": "vacay_{n:03}.{ext}", "start": 1}),
        ),
        (
            "bulk rename the pics in Camera Roll to vacay_001.jpg and so on",
            "manage-files/find",
            serde_json::json!({"path": "Camera Roll"}),
        ),
        // Regressions (2026-11-27): apostrophes are no quotation marks ("what's … it's" hid
        // the folder); a name with spaces goes on past a slash; a negated "it" points back at
        // nothing and an archive is listed by the tool made for archives; a name asked about is
        // a place; "through" names where to look; two places without "to" are what and where.
        (
            "what's eating my disk in Library/Caches, it's huge",
            "analyze-directory/analyze",
            serde_json::json!({"path": "Library/Caches"}),
        ),
        (
            "pull the metadata of Music/Live Sets/berlin-2019.flac",
            "parse-content/metadata",
            serde_json::json!({"path": "Music/Live Sets/berlin-2019.flac"}),
        ),
        (
            "what's in Backup/old-phone.tar.gz, without unpacking it",
            "archive-files/list",
            serde_json::json!({"path": "Backup/old-phone.tar.gz"}),
        ),
        (
            "how much is Recordings hogging",
            "analyze-directory/analyze",
            serde_json::json!({"path": "Recordings"}),
        ),
        (
            "look through Journal for entries about the knee surgery",
            "search-files/search",
            serde_json::json!({"path": "Journal"}),
        ),
        (
            "I want a second copy of Pictures/Best sitting on Backup/USB",
            "manage-files/copy",
            serde_json::json!({"source": ["Pictures/Best"], "target": "Backup/USB"}),
        ),
        // Regressions (2026-11-27, later): the files in a folder are selected, not the folder
        // missing; a folder's name in a path ("Archive/Stale") says no trigger's word; a
        // denied date selects what is older; a header naming files is what "them" means.
        (
            "move the files in Downloads I haven't opened since last year to Archive/Stale",
            "manage-files/move",
            serde_json::json!({"source": "$step(1).nodes", "target": "Archive/Stale"}),
        ),
        (
            "move the files in Downloads I haven't opened since last year to Archive/Stale",
            "search-files/find",
            serde_json::json!({"path": "Downloads", "modified_before": "365days"}),
        ),
        (
            "delete everything in Temp",
            "manage-files/delete",
            serde_json::json!({"path": "$step(1).nodes"}),
        ),
        (
            "old logs in Downloads, find them and delete them",
            "manage-files/delete",
            serde_json::json!({"path": "$step(1).nodes"}),
        ),
        (
            "Work/Reports stuff untouched since 2022: bundle it as Archive/reports-old.zip",
            "search-files/find",
            serde_json::json!({"path": "Work/Reports", "modified_before": "2022-01-01"}),
        ),
        // A clause naming nothing is about the file named before (an archive: listed); a
        // general "clean that up" is about what the header says is wrong.
        (
            "is anything worth keeping in Downloads/old-laptop-backup.zip? show me the contents",
            "archive-files/list",
            serde_json::json!({"path": "Downloads/old-laptop-backup.zip"}),
        ),
        (
            "I keep downloading the same installers twice, clean that up in Downloads",
            "remove-duplicates/scan",
            serde_json::json!({"path": "Downloads"}),
        ),
        // What the request says not to do chooses values (`when_denied`).
        (
            "analyze Backup without the duplicate check",
            "analyze-directory/analyze",
            serde_json::json!({"path": "Backup", "duplicates": false}),
        ),
        // Typos are read before values; an archive's path after "call it" is the one to make;
        // borrowed French verbs; a general "deal with it" after what is wrong.
        (
            "dedpue the .wav fiels in Music/Live Sets biger then 50MB, keping the newst",
            "remove-duplicates/remove",
            serde_json::json!({"keep": "newest"}),
        ),
        (
            "zip up Pictures/Kyoto rn, call it Backup/kyoto-trip.zip",
            "archive-files/create",
            serde_json::json!({"source": ["Pictures/Kyoto"], "target": "Backup/kyoto-trip.zip"}),
        ),
        (
            "tu peux décompresser Téléchargements/mariage-julie.zip vers Images/Mariage ? merci",
            "archive-files/extract",
            serde_json::json!({"path": "Téléchargements/mariage-julie.zip", "target": "Images/Mariage"}),
        ),
        (
            "Music/Live Sets has a bunch of repeated files, deal with it",
            "remove-duplicates/scan",
            serde_json::json!({"path": "Music/Live Sets"}),
        ),
        // Text taken out of names, said with the verb last (German word order).
        (
            "in Scans/Briefe bitte überall 'scan_' aus den Dateinamen entfernen",
            "batch-rename/rename",
            serde_json::json!({"find": "scan_", "replace": ""}),
        ),
        // A name goes on with a number or a word in capitals.
        (
            "tar.gz of Uni/Semester 3 pls, save it as Backup/sem3.tar.gz",
            "archive-files/create",
            serde_json::json!({"source": ["Uni/Semester 3"], "target": "Backup/sem3.tar.gz"}),
        ),
        // "zero files" is empty; "get them gone" deletes.
        (
            "folders that contain zero files are cluttering Code/sandbox-2023, get them gone",
            "manage-files/delete",
            serde_json::json!({"path": "$step(1).nodes"}),
        ),
        // An inserted scan with no folder costs what a missing parameter costs: a vague move
        // stays a move.
        (
            "shift that lot onto my external one",
            "manage-files/move",
            serde_json::json!({}),
        ),
        // A clause saying none of remove-duplicates' `topic` words is no duplicate removal.
        (
            "Logs/app is full of 0-byte junk files; remove those",
            "manage-files/delete",
            serde_json::json!({"path": "$step(1).nodes"}),
        ),
        (
            "copy Music/Live Sets over to Backup/Drive B, originals stay put",
            "manage-files/copy",
            serde_json::json!({"source": ["Music/Live Sets"], "target": "Backup/Drive B"}),
        ),
        // "duplicate" opening a clause that says where is a copy.
        (
            "duplicate Recipes/lasagna.docx into Shared/Family Cookbook",
            "manage-files/copy",
            serde_json::json!({"source": ["Recipes/lasagna.docx"], "target": "Shared/Family Cookbook"}),
        ),
        // Asking whether the agent can, about nothing in particular, looks its skills up.
        (
            "bro can u batch-convert wav to flac or nah",
            "skill-search/search",
            serde_json::json!({}),
        ),
        // A file named with its whole path goes to the one place said after it.
        (
            "stick ~/Desktop/W-2 2024.pdf in Taxes/2024",
            "manage-files/move",
            serde_json::json!({"source": ["~/Desktop/W-2 2024.pdf"], "target": "Taxes/2024"}),
        ),
        // A change asked for is made by the sibling that takes the scan's result.
        (
            "dedupe Pictures/Osaka",
            "remove-duplicates/remove",
            serde_json::json!({"groups": "$step(1).groups"}),
        ),
        // A clause naming nothing to act on acts on the file named before.
        (
            "pull up EXIF info for Pictures/Kyoto/IMG_0891.jpg, plus send a copy to Shared/Grandma",
            "manage-files/copy",
            serde_json::json!({"source": ["Pictures/Kyoto/IMG_0891.jpg"], "target": "Shared/Grandma"}),
        ),
        // "its text" after making a file reads that file, by its name.
        (
            "write a todo.txt in Projects/site saying 'renew domain', then show me its text",
            "parse-content/extract_text",
            serde_json::json!({"path": "Projects/site/todo.txt"}),
        ),
        // German separable verbs: "pack … aus" unpacks.
        (
            "pack bitte das Archiv Downloads/rechnungen-2024.zip in Dokumente/Rechnungen aus",
            "archive-files/extract",
            serde_json::json!({"path": "Downloads/rechnungen-2024.zip", "target": "Dokumente/Rechnungen"}),
        ),
        // "six months" says a date, not a by-month sort; "can go live in" moves.
        (
            "anything under Projects untouched for more than six months can go live in Archive/Projects",
            "manage-files/move",
            serde_json::json!({"source": "$step(1).nodes", "target": "Archive/Projects"}),
        ),
        // What a file is said to be about is a content search, up to the request after it.
        (
            "somewhere in Documents there's a letter about the broken boiler, can you dig it up",
            "search-files/search",
            serde_json::json!({"query": "the broken boiler", "path": "Documents"}),
        ),
        // A skill's own trigger made only of everyday words, said word for word.
        (
            "what can you do",
            "skill-search/search",
            serde_json::json!({"query": "what can you do"}),
        ),
    ];
    let mut wrong = Vec::new();
    for (request, tool, expected) in cases {
        let plan = env.json(&["plan", request]);
        let steps = plan["plan"]["steps"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let step = steps.iter().find(|s| {
            format!(
                "{}/{}",
                s["skill"].as_str().unwrap(),
                s["tool"].as_str().unwrap()
            ) == tool
        });
        let fits = step.is_some_and(|s| {
            expected
                .as_object()
                .unwrap()
                .iter()
                .all(|(k, v)| &s["params"][k] == v)
        });
        if !fits {
            wrong.push(format!(
                "{request:?}: wanted {tool} with {expected}, got {steps:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

/// A request that describes a new skill is one step making it (skill-create's `takes_rest`): the
/// actions it describes are the skill's job, not steps of this plan, up to a part said after
/// "then". Regression (issue 19): "new skill: receipt-filer, it moves receipt PDFs …" planned the
/// moving.
#[test]
fn a_skill_described_in_the_request_takes_the_rest_of_it() {
    let env = Env::new(&[]);
    let cases: [(&str, &[&str], Option<&str>); 4] = [
        (
            "new skill: receipt-filer, it moves receipt PDFs from Downloads into Documents/Receipts by month",
            &["skill-create/create"],
            Some("receipt-filer"),
        ),
        (
            "set up a new skill, podcast-archiver, for shifting podcast episodes older than a month into Archive/Podcasts",
            &["skill-create/create"],
            Some("podcast-archiver"),
        ),
        (
            "I want the agent to learn a routine of mine: every friday, shove screenshots off the desktop into Pictures/Screens. call it friday-screens",
            &["skill-create/create"],
            Some("friday-screens"),
        ),
        (
            "Downloads – make a skill that sorts my invoices, then remove duplicates",
            &[
                "skill-create/create",
                "remove-duplicates/scan",
                "remove-duplicates/remove",
            ],
            None,
        ),
    ];
    let mut wrong = Vec::new();
    for (request, tools, name) in cases {
        let plan = env.json(&["plan", request]);
        let steps = plan["plan"]["steps"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let planned: Vec<String> = steps
            .iter()
            .map(|s| {
                format!(
                    "{}/{}",
                    s["skill"].as_str().unwrap(),
                    s["tool"].as_str().unwrap()
                )
            })
            .collect();
        let named = steps.first().and_then(|s| s["params"]["name"].as_str());
        let described = steps
            .first()
            .and_then(|s| s["params"]["description"].as_str())
            .unwrap_or_default();
        if planned != tools || name.is_some_and(|n| named != Some(n)) || described.is_empty() {
            wrong.push(format!(
                "{request:?}: wanted {tools:?} named {name:?}, got {steps:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

/// Regression (issue 19): "zip X into Y.zip and then delete the originals" planned deleting
/// `$step(1).created`, the archive just made. The originals going is how the archive step ends
/// (`delete_originals`), however it is said after "then".
#[test]
fn deleting_the_originals_after_packing_never_deletes_the_archive() {
    let env = Env::new(&[]);
    let mut wrong = Vec::new();
    for request in [
        "zip Band/Setlists into Band/s.zip and then delete the originals",
        "pack Band/Setlists into Band/setlists-2024.zip and then trash the folder itself",
        "Work/Drafts items untouched for eighteen months → Archive/drafts-old.tar.gz; wipe originals after",
        // Regression: "the folder" was the archive just made, and a step deleted it.
        "zip Documents/Old job into Backup/old-job.zip and delete the folder",
        "pack Pictures/Trip into Backup/trip.zip, then remove it",
    ] {
        let plan = env.json(&["plan", request]);
        let steps = plan["plan"]["steps"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let archive = steps
            .iter()
            .find(|s| s["skill"] == "archive-files" && s["tool"] == "create");
        let deletes_made = steps
            .iter()
            .any(|s| s["tool"] == "delete" && s["params"].to_string().contains(".created"));
        if archive.is_none_or(|a| a["params"]["delete_originals"] != true) || deletes_made {
            wrong.push(format!("{request:?}: got {steps:?}"));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

/// A preview, then "actually do it": the tool the preview previews (`previews` in SKILL.md) runs
/// on the same folder, with what the later part adds; a "do it" after no preview is not read
/// as one.
#[test]
fn carrying_out_a_preview_runs_what_it_previewed_on_the_same_folder() {
    let env = Env::new(&[]);
    let steps = |request: &str| -> Vec<String> {
        let plan = env.json(&["plan", request]);
        plan["plan"]["steps"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|s| format!("{}/{} {}", s["skill"], s["tool"], s["params"]).replace('"', ""))
            .collect()
    };
    assert_eq!(
        steps(
            "check what categories Downloads/Telegram Desktop would split into, then actually do it, renaming on clashes"
        ),
        [
            "organize-by-type/preview_categories {path:Downloads/Telegram Desktop}",
            "organize-by-type/organize {path:Downloads/Telegram Desktop,on_conflict:rename,recursive:false}",
        ]
    );
    assert_eq!(
        steps(
            "preview sorting Downloads by type, then do it for real, the folders go under Sorted"
        ),
        [
            "organize-by-type/preview_categories {path:Downloads}",
            "organize-by-type/organize {path:Downloads,target:Sorted,recursive:false}",
        ]
    );
    let after_a_change = steps("sort Downloads by type, then do it");
    assert!(
        !after_a_change.iter().any(|s| s.contains("preview")) && after_a_change.len() == 1,
        "{after_a_change:?}"
    );
}

/// Regression (issue 19): asking where a file is, or to find it, planned finding it and then
/// deleting it ("where's my file called passport-scan.pdf" → find + delete), and a word inside
/// quotation marks was "corrected" ('learn to solder' → 'folder').
#[test]
fn a_request_that_only_looks_never_plans_a_change_and_quoted_words_stay() {
    let env = Env::new(&[]);
    for request in [
        "where is my file called taxes.pdf",
        "where's my file called passport-scan.pdf",
        "find the file called report.pdf",
    ] {
        let planned = env.json(&["plan", request]);
        let steps = planned["plan"]["steps"].as_array().expect("steps");
        for step in steps {
            assert_ne!(step["tool"], "delete", "{request}: {planned}");
        }
    }
    let planned = env.json(&[
        "plan",
        "create Notes/ideas.txt with the text 'learn to solder'",
    ]);
    let text = planned["plan"]["steps"].to_string();
    assert!(!text.contains("folder"), "{planned}");
}

/// `plan --file … --failures` lists each wrong plan (`✗`, with what was expected) and each step
/// of a clear request a run would ask about (`?`, with the planner's margin): as many as the
/// picker table counts at the configured margin.
#[test]
fn failures_list_the_wrong_plans_and_the_steps_that_would_ask() {
    let env = Env::new(&[]);
    let set = env.home.path().join("set.jsonl");
    std::fs::write(
        &set,
        concat!(
            r#"{"request": "could the songs in Music/Karaoke be called song_01.mp3, song_02.mp3 and onwards?", "skills": ["manage-files|search-files", "batch-rename"]}"#,
            "\n",
            r#"{"request": "remove the duplicates in Music", "skills": ["organize-by-type"]}"#,
            "\n",
        ),
    )
    .unwrap();
    // At margin 1.0 the planner is never sure: every step retrieval is not sure of asks.
    let out = env
        .cmd(&["plan", "--file", set.to_str().unwrap(), "--failures"])
        .env("SCOPE_WEAVER_PLANNER_SURE_MARGIN", "1.0")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let wrong: Vec<&str> = text.lines().filter(|l| l.starts_with("✗ ")).collect();
    assert_eq!(wrong.len(), 1, "{text}");
    assert!(
        wrong[0].contains("remove the duplicates in Music"),
        "{text}"
    );
    assert!(
        text.contains(r#"expected ["organize-by-type"] got ["remove-duplicates"]"#),
        "{text}"
    );
    let asking = text
        .lines()
        .filter(|l| l.trim_start().starts_with("step ") && l.contains("asks which skill"))
        .count();
    let configured = text
        .lines()
        .find(|l| l.starts_with("| 1.00 ←"))
        .unwrap_or_else(|| panic!("no row for the configured margin: {text}"));
    let shown: usize = configured
        .split('|')
        .nth(3)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(asking > 0, "{text}");
    assert_eq!(asking, shown, "{text}");
    assert_eq!(
        text.lines().filter(|l| l.starts_with("? ")).count(),
        asking,
        "{text}"
    );
}
