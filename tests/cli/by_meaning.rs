//! Sorting by meaning end to end: real PDF, DOCX and Markdown files sorted by `scope-weaver run`
//! into the categories a request names, an existing folder reused, an unclear file left alone;
//! files renamed by what they record about themselves; tags instead of moves.

use sandbox::parse::samples;

use super::Env;
use super::run::events_of;

#[test]
fn documents_are_sorted_into_the_named_categories_and_an_unclear_one_stays() {
    let env = Env::new(&[
        (
            "Inbox/notes.md",
            "# Team sync\n\nAttendees: Anna, Ben. Agenda: release plan. Decisions: the release \
             moves to April. Action items: Ben drafts the announcement.\n",
        ),
        // An existing folder (other case, singular): reused, and its file is an example.
        (
            "Inbox/recipe/pancakes.txt",
            "Pancakes: whisk flour, milk and eggs; fry in butter.",
        ),
        ("Inbox/IMG_0001.txt", ""),
    ]);
    let inbox = env.root.path().join("Inbox");
    std::fs::write(
        inbox.join("scan_0031.pdf"),
        samples::pdf(
            "Scan",
            "Scanner",
            "20240301120000",
            &["ACME GmbH. Amount due: 420 EUR including VAT. Please pay within 30 days by bank transfer."],
        ),
    )
    .unwrap();
    std::fs::write(
        inbox.join("doc7.docx"),
        samples::docx(
            "Banana bread",
            "Grandma",
            &["Mash three ripe bananas, stir in flour, butter and sugar, and bake for 50 minutes."],
        ),
    )
    .unwrap();
    let root = env.root.path().to_str().unwrap();
    let out = env.run(&[
        "--json",
        "run",
        "--root",
        root,
        "--yes",
        "sort the documents in Inbox into Invoices, Recipes and Meeting notes",
    ]);
    let events = events_of(&out);
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for moved in [
        "Inbox/Invoices/scan_0031.pdf",
        "Inbox/recipe/doc7.docx",
        "Inbox/Meeting notes/notes.md",
    ] {
        assert!(
            env.root.path().join(moved).is_file(),
            "{moved}: {events:#?}"
        );
    }
    assert!(
        !inbox.join("Recipes").exists(),
        "the existing folder is reused"
    );
    // Nothing to go by: asked about, and with no answer left where it was.
    assert!(inbox.join("IMG_0001.txt").is_file());
    let asked = events.iter().any(|e| {
        e["question"]
            .as_str()
            .is_some_and(|q| q.contains("IMG_0001.txt"))
    });
    assert!(asked, "the unclear file was asked about: {events:#?}");
}

/// Renaming by what files are about, with no model: each PDF is named from its own title and
/// date, a Markdown note from its heading; a file with nothing to go by keeps its name; the run
/// can be undone.
#[test]
fn files_are_renamed_by_what_they_record_about_themselves_and_undone() {
    let env = Env::new(&[
        (
            "Inbox/note_17.md",
            "# Packing list for Lisbon\n\n- passport\n- charger\n",
        ),
        ("Inbox/blank.txt", "  \n 12 \n"),
    ]);
    let inbox = env.root.path().join("Inbox");
    std::fs::write(
        inbox.join("scan_0042.pdf"),
        samples::pdf(
            "Invoice ACME 420 EUR",
            "ACME GmbH",
            "20240305101500",
            &["Amount due: 420 EUR."],
        ),
    )
    .unwrap();
    std::fs::write(
        inbox.join("scan_0043.pdf"),
        samples::pdf(
            "Lease agreement",
            "Landlord",
            "20230901090000",
            &["The tenant rents the flat."],
        ),
    )
    .unwrap();
    let names = super::sorted_names;
    let before = names(&inbox);
    let root = env.root();
    let out = env.run(&[
        "--json",
        "run",
        "--root",
        root,
        "--yes",
        "rename the files in Inbox by what they are about",
    ]);
    let events = events_of(&out);
    let done = &events.last().unwrap()["report"];
    assert_eq!(done["committed"], true, "{done:#}");
    assert_eq!(
        names(&inbox),
        [
            "2023-09-01 Lease agreement.pdf",
            "2024-03-05 Invoice ACME 420 EUR.pdf",
            // The note records no date: when it was last modified, today.
            &format!(
                "{} Packing list for Lisbon.md",
                sandbox::format_time(sandbox::now_secs())[..10].to_owned()
            ),
            "blank.txt",
        ]
        .map(String::from)
        .into_iter()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect::<Vec<_>>(),
        "{done:#}"
    );
    let named = events
        .iter()
        .find(|e| e["event"] == "dispatched" && e["tool"] == "name")
        .expect("the name step");
    assert_eq!(
        named["data"]["unnamed"][0]["path"], "Inbox/blank.txt",
        "{named}"
    );
    assert!(
        named["data"]["names"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("the document's title"),
        "{named}"
    );

    let undone = super::undo::done_report(&env.run(&["--json", "undo", "--yes"]));
    assert_eq!(undone["committed"], true, "{undone:#}");
    assert_eq!(names(&inbox), before);
}

/// Tags instead of moves: a request tags files the person names with their words, another tags
/// each document with its category (the folders already there) and moves nothing; undo takes the
/// tags back.
#[test]
fn files_are_tagged_instead_of_moved_and_the_tags_are_undone() {
    let env = Env::new(&[
        (
            "Inbox/invoice/acme.txt",
            "Invoice ACME GmbH. Amount due 420 EUR including VAT, payable within 30 days.",
        ),
        (
            "Inbox/recipe/pancakes.txt",
            "Pancakes: whisk flour, milk and eggs, then fry in butter.",
        ),
        (
            "Inbox/bill.txt",
            "Invoice from the plumber: total amount due 180 EUR, VAT included, pay by transfer.",
        ),
        (
            "Inbox/cake.txt",
            "Banana bread: mash bananas, stir in flour, butter and sugar, bake 50 minutes.",
        ),
        ("Downloads/report.pdf", "pdf bytes"),
    ]);
    let root = env.root();
    let tags = |p: &str| sandbox::tags::read(&env.root.path().join(p)).unwrap();
    let run = |request: &str| {
        super::undo::done_report(&env.run(&["--json", "run", "--root", root, "--yes", request]))
    };

    let named = run("tag Downloads/report.pdf with Taxes 2024 and Receipts");
    assert_eq!(named["committed"], true, "{named:#}");
    assert_eq!(tags("Downloads/report.pdf"), ["Receipts", "Taxes 2024"]);

    let by_topic = run("tag the documents in Inbox by topic instead of moving them");
    assert_eq!(by_topic["committed"], true, "{by_topic:#}");
    assert_eq!(tags("Inbox/bill.txt"), ["invoice"], "{by_topic:#}");
    assert_eq!(tags("Inbox/cake.txt"), ["recipe"]);
    assert!(
        env.root.path().join("Inbox/bill.txt").exists(),
        "nothing moved"
    );

    let undone = super::undo::done_report(&env.run(&["--json", "undo", "--yes"]));
    assert_eq!(undone["committed"], true, "{undone:#}");
    assert_eq!(tags("Inbox/bill.txt"), Vec::<String>::new());
    assert_eq!(
        tags("Downloads/report.pdf"),
        ["Receipts", "Taxes 2024"],
        "only the last run"
    );
}

/// Summaries without a model: a PDF's title and the sentences that carry its main words, in the
/// report; a folder's documents one line each.
#[test]
fn a_document_and_a_folder_are_summarized_in_the_report() {
    let env = Env::new(&[(
        "Docs/minutes.md",
        "# Release meeting\n\nThe release of version 2 moves to April because the installer \
         still fails on Windows. Lunch was pizza. Ben fixes the installer and the release notes \
         by Friday. The weather was nice.\n",
    )]);
    std::fs::write(
        env.root.path().join("Docs/lease.pdf"),
        samples::pdf(
            "Lease agreement",
            "Landlord",
            "20230901090000",
            &["The tenant rents the flat from 1 October. The rent of the flat is 900 EUR a month. \
               The deposit for the flat is three months of rent."],
        ),
    )
    .unwrap();
    let root = env.root();
    let answer = |request: &str| {
        let report = super::undo::done_report(
            &env.run(&["--json", "run", "--root", root, "--yes", request]),
        );
        report["steps"][0]["answer"]
            .as_str()
            .unwrap_or_else(|| panic!("{report:#}"))
            .to_owned()
    };
    let minutes = answer("summarize Docs/minutes.md");
    assert!(minutes.starts_with("Summary ("), "{minutes}");
    assert!(minutes.contains("Release meeting\n"), "{minutes}");
    assert!(minutes.contains("Ben fixes the installer"), "{minutes}");
    assert!(!minutes.contains("weather"), "{minutes}");
    let lease = answer("summarize Docs/lease.pdf");
    assert!(
        lease.contains("Lease agreement") && lease.contains("flat"),
        "{lease}"
    );
    let folder = answer("summarize Docs");
    assert!(
        folder.contains("Docs/lease.pdf: Lease agreement")
            && folder.contains("Docs/minutes.md: Release meeting"),
        "{folder}"
    );
}

/// A file sorting by meaning is unsure of is asked about with its closest categories offered,
/// closest first (the bar shows them as buttons, the terminal numbers them): "2" files it under
/// the second one.
#[test]
fn an_unsure_file_is_asked_about_with_its_closest_categories_numbered() {
    use std::io::Write;
    let env = Env::new(&[
        (
            "Inbox/notes.md",
            "# Team sync\n\nAttendees: Anna, Ben. Agenda: release plan. Decisions: the release \
             moves to April.\n",
        ),
        ("Inbox/IMG_0001.txt", ""),
    ]);
    let mut child = env
        .cmd(&[
            "run",
            "--root",
            env.root(),
            "sort the documents in Inbox into Invoices, Recipes and Meeting notes",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The second category offered, then approve the sort and commit.
    child.stdin.take().unwrap().write_all(b"2\na\ny\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    let offered = said
        .lines()
        .find(|l| l.contains("(a number, or your own answer)"))
        .unwrap_or_else(|| panic!("no numbered answers: {said}"));
    // Closest first: the empty file is nearest to whatever its name suggests, then the rest.
    let names: Vec<&str> = ["Invoices", "Recipes", "Meeting notes"]
        .into_iter()
        .filter(|n| offered.contains(n))
        .collect();
    assert_eq!(names.len(), 3, "{offered}");
    let second = offered
        .split("2. ")
        .nth(1)
        .and_then(|rest| rest.split("   ").next())
        .unwrap()
        .trim()
        .to_owned();
    let inbox = env.root.path().join("Inbox");
    assert!(
        inbox.join(&second).join("IMG_0001.txt").is_file(),
        "filed under the second choice, {second}: {said}"
    );
    assert!(inbox.join("Meeting notes/notes.md").is_file());
}

/// With a planner model configured, the same model reads the files to sort them (the real
/// SmolLM2 file, as the test script fetches it): the classify step says which model sorted,
/// each file's confidence is the model's probability for its category, and a file with no text
/// is still asked about rather than guessed.
#[test]
fn with_a_model_configured_the_model_reads_the_files_it_sorts() {
    let Some(model) = std::env::var_os("SCOPE_WEAVER_TEST_MODEL_SMOLLM2") else {
        assert!(
            std::env::var_os("SCOPE_WEAVER_TEST_REQUIRE_MODELS").is_none(),
            "SCOPE_WEAVER_TEST_MODEL_SMOLLM2 is not set"
        );
        eprintln!("skipped: set SCOPE_WEAVER_TEST_MODEL_SMOLLM2 (scripts/fetch-models.sh)");
        return;
    };
    let env = Env::new(&[
        (
            "Inbox/notes.md",
            "# Team sync\n\nAttendees: Anna, Ben. Agenda: release plan. Action items: Ben drafts \
             the announcement.\n",
        ),
        (
            "Inbox/doc7.txt",
            "Banana bread: mash three ripe bananas, stir in flour, butter and sugar, bake 50 minutes.",
        ),
        ("Inbox/IMG_0001.txt", ""),
    ]);
    let out = env
        .cmd(&[
            "--json",
            "run",
            "--root",
            env.root(),
            "--yes",
            "sort the documents in Inbox into Invoices, Recipes and Meeting notes",
        ])
        .env("SCOPE_WEAVER_THINKER_BACKEND", "mistralrs")
        .env("SCOPE_WEAVER_THINKER_MODEL_PATH", &model)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let events = events_of(&out);
    let classify = events
        .iter()
        .find(|e| e["event"] == "dispatched" && e["operation"] == "classify")
        .unwrap_or_else(|| panic!("no classify step: {events:#?}"));
    let data = &classify["data"];
    assert_eq!(
        data["by"], "mistralrs:smollm2-135m-instruct-q4_1.gguf",
        "{data:#}"
    );
    let judged: Vec<&serde_json::Value> = ["assignments", "asked"]
        .iter()
        .flat_map(|k| data[k].as_array().unwrap())
        .collect();
    assert_eq!(judged.len(), 3, "{data:#}");
    for j in &judged {
        let p = j["confidence"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&p), "{j}");
        assert!(
            ["Invoices", "Recipes", "Meeting notes"].contains(&j["category"].as_str().unwrap()),
            "{j}"
        );
    }
    let asked: Vec<&str> = data["asked"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["path"].as_str())
        .collect();
    assert!(asked.contains(&"Inbox/IMG_0001.txt"), "{data:#}");
    assert!(env.root.path().join("Inbox/IMG_0001.txt").is_file());
}
