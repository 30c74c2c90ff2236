//! Sorting by meaning end to end: real PDF, DOCX and Markdown files sorted by `scope-weaver run`
//! into the categories a request names, an existing folder reused, an unclear file left alone.

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
