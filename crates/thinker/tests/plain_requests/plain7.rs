//! Regressions found reading plain7 (issue 19): folders' names that go on past a slash, a verb's
//! spelling or a year, names made with words in lower case, phrasal verbs around a name, new
//! extensions, changes said in the passive.

use serde_json::json;

use super::check;

/// A word joined by a slash to what follows is a folder's name ("House move/Letters", "Job
/// hunt/CV …", "Allergy sheets/croissant.pdf"), and so is a word in -ing after a name with a
/// number ("3D printing/Failed prints").
#[test]
fn names_that_go_on_past_a_slash() {
    check(&[
        (
            "copy Documents/Job hunt/CV 2026 long version.docx to USB/Interviews, I'll print it at the library",
            &["manage-files/copy"],
            &[(
                0,
                "source",
                json!(["Documents/Job hunt/CV 2026 long version.docx"]),
            )],
        ),
        (
            "delete 3D printing/Failed prints, I never want to see those spaghetti disasters again",
            &["manage-files/delete"],
            &[(0, "path", json!(["3D printing/Failed prints"]))],
        ),
        (
            "show me the full text of Documents/Bakery/Allergy sheets/croissant.pdf, a customer asked about nuts",
            &["parse-content/extract_text"],
            &[(
                0,
                "path",
                json!("Documents/Bakery/Allergy sheets/croissant.pdf"),
            )],
        ),
        (
            "Documents/House move/Letters is a pile of change-of-address confirmations; sort them by content into Bank, Council, Utilities and Doctor",
            &["organize-by-content/classify", "organize-by-content/sort"],
            &[(0, "path", json!("Documents/House move/Letters"))],
        ),
    ]);
}

/// Nouns in lower case that go on a name: before "now", before a verb said of it ("go",
/// "mixes"), "stuff" after a name that is no plural, the same name under another folder, and
/// where a question's verb came before the name.
#[test]
fn names_that_go_on_with_a_noun() {
    check(&[
        (
            "I held the shutter down on a heron and Pictures/Birds/Heron burst now has dozens of almost matching shots; in every lookalike group retain the highest-resolution one, remove the rest",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[
                (0, "path", json!("Pictures/Birds/Heron burst")),
                (1, "keep", json!("largest")),
            ],
        ),
        (
            "whatever in Documents/Night school was last modified before September 2025 belongs in Archive/Night school now",
            &["search-files/find", "manage-files/move"],
            &[(1, "target", json!("Archive/Night school"))],
        ),
        (
            "the photos in Pictures/Van build go from bare metal to finished bed in one big list; month folders would make the progress easier to follow",
            &["organize-by-type/by_date"],
            &[(0, "path", json!("Pictures/Van build"))],
        ),
        (
            "Documents/Quiz night mixes question sheets, ticket sales and prize donations; sort them by topic into Questions, Tickets and Prizes",
            &["organize-by-content/classify", "organize-by-content/sort"],
            &[(0, "path", json!("Documents/Quiz night"))],
        ),
        (
            "cud you sort Downlaods/Wedding stuff into foldrs by what knd of file they are",
            &["organize-by-type/organize"],
            &[(0, "path", json!("Downloads/Wedding stuff"))],
        ),
        (
            "the choir director emailed Downloads/summer-concert-scores.zip; can its contents land in Documents/Choir/Sheet music?",
            &["archive-files/extract"],
            &[(0, "target", json!("Documents/Choir/Sheet music"))],
        ),
    ]);
}

/// Names made of a capital and words in lower case: "named Rainforest diorama inside …",
/// "Price lists 2027 as a subfolder", "3D printing" (no slash), and "RANDOM" said loudly is no
/// folder.
#[test]
fn names_with_words_in_lower_case_and_a_number() {
    check(&[
        (
            "Maya starts a new project next week; create a folder named Rainforest diorama inside Documents/Maya school",
            &["manage-files/create"],
            &[
                (0, "name", json!("Rainforest diorama")),
                (0, "path", json!("Documents/Maya school")),
            ],
        ),
        (
            "create Price lists 2027 as a subfolder of Documents/Bakery and shift all the .xlsx spreadsheets from Downloads to it",
            &[
                "manage-files/create",
                "manage-files/find",
                "manage-files/move",
            ],
            &[(0, "name", json!("Price lists 2027"))],
        ),
        (
            "3D printing has grown to 40 GB somehow; which kinds of files make up that space?",
            &["analyze-directory/analyze"],
            &[(0, "path", json!("3D printing"))],
        ),
        (
            "any gcode in 3D printing heavier than 200 MB?",
            &["search-files/find_large"],
            &[(0, "path", json!("3D printing"))],
        ),
        (
            "Documents/Crochet patterns has names in RANDOM capitals; convert them all to small letters, afterwards show what the folder holds",
            &[
                "manage-files/find",
                "batch-rename/rename",
                "manage-files/list",
            ],
            &[
                (0, "path", json!("Documents/Crochet patterns")),
                (1, "case", json!("lower")),
                (2, "path", json!("Documents/Crochet patterns")),
            ],
        ),
    ]);
}

/// "back its folder X up to Y" and "back that folder up to Y" copy; "file it in X" moves it
/// there; "make them .md files" and "to .jpg" are new extensions, not which files; "should be
/// extracted to" asks for it; "delete what was packed" deletes the originals; "dot files" are
/// hidden ones; an ellipsis after example names says "and so on".
#[test]
fn phrasal_verbs_new_extensions_and_changes_said_in_the_passive() {
    check(&[
        (
            "Flat 2 is sold: back its folder Documents/Lettings/Flat 2 up to Backup/Lettings",
            &["manage-files/copy"],
            &[
                (0, "source", json!(["Documents/Lettings/Flat 2"])),
                (0, "target", json!("Backup/Lettings")),
            ],
        ),
        (
            "Documents/Mortgage application: tag every paper with its subject, nothing relocated, and also back that folder up to Backup/Mortgage",
            &[
                "organize-by-content/classify",
                "organize-by-content/tag",
                "manage-files/copy",
            ],
            &[(2, "source", json!(["Documents/Mortgage application"]))],
        ),
        (
            "Downloads/dentist treatment plan.pdf: let me hear its text first; afterwards file it in Documents/Dentist",
            &["parse-content/extract_text", "manage-files/move"],
            &[(1, "target", json!("Documents/Dentist"))],
        ),
        (
            "the show notes in Podcast/Show notes are all .txt; make them .md files, names otherwise unchanged",
            &["manage-files/find", "batch-rename/rename"],
            &[(1, "pattern", json!("{name}.md"))],
        ),
        (
            "rename every .jpeg file in Pictures/Camera to .jpg",
            &["manage-files/find", "batch-rename/rename"],
            &[
                (0, "extension", json!("jpeg")),
                (1, "pattern", json!("{name}.jpg")),
            ],
        ),
        (
            "Downloads/van-build-photos.zip should be extracted to Pictures/Van build; sort what comes out by the day it was taken",
            &["archive-files/extract", "organize-by-type/by_date"],
            &[(0, "target", json!("Pictures/Van build"))],
        ),
        (
            "give me the breakdown of Backup/Galaxy S9 by category, then turn it into Backup/galaxy-s9.tar.zst and delete what was packed",
            &["analyze-directory/analyze", "archive-files/create"],
            &[(1, "delete_originals", json!(true))],
        ),
        (
            "show me Projects/Camper van/Wiring including dot files like .gitkeep",
            &["manage-files/list"],
            &[(0, "include_hidden", json!(true))],
        ),
        (
            "the sleeve scans in Records/Sleeve scans/Jazz are scan0001.tif, scan0002.tif...; I'd prefer jazz-001.tif, jazz-002.tif and onwards",
            &["manage-files/find", "batch-rename/rename"],
            &[
                (0, "path", json!("Records/Sleeve scans/Jazz")),
                (1, "pattern", json!("jazz-{n:03}.{ext}")),
            ],
        ),
    ]);
}

/// Files of a place said to be empty, old or big in a header are the files "those" acts on
/// (before: a duplicate scan and a removal that asked which skill).
#[test]
fn files_said_to_be_empty_or_big_are_what_those_are() {
    check(&[
        (
            "some files in 3D printing/Models are totally blank, zero bytes; get rid of those",
            &["search-files/find", "manage-files/delete"],
            &[
                (0, "path", json!("3D printing/Models")),
                (0, "empty", json!(true)),
                (1, "path", json!("$step(1).nodes")),
            ],
        ),
        (
            "some files in Downloads are over 1 GB; move those to Archive",
            &["search-files/find", "manage-files/move"],
            &[
                (0, "min_size", json!("1GB")),
                (1, "target", json!("Archive")),
            ],
        ),
    ]);
}

/// Safety: a question keeps its question mark when what follows is joined to it, so "don't
/// delete a thing" after "is anything stored twice in X?" plans the scan alone (before: the scan
/// and a removal of every extra copy, accepted without asking).
#[test]
fn a_question_with_a_negation_after_it_removes_nothing() {
    check(&[
        (
            "is anything stored twice in Wedding/Vendor quotes? don't delete a thing",
            &["remove-duplicates/scan"],
            &[(0, "path", json!("Wedding/Vendor quotes"))],
        ),
        (
            "are there duplicates in Music? don't remove any",
            &["remove-duplicates/scan"],
            &[(0, "path", json!("Music"))],
        ),
    ]);
}

/// After a possessive or "own" a verb is a noun: "wants his own copy of X" says what the
/// person wants, and the copy is made once, where it goes (before: a copy with nowhere to go,
/// then a copy of that copy).
#[test]
fn a_copy_someone_wants_is_made_once() {
    check(&[(
        "my fiancé wants his own copy of Wedding/Vendor quotes/florist quote.pdf; duplicate it onto USB/Wedding",
        &["manage-files/copy"],
        &[
            (
                0,
                "source",
                json!(["Wedding/Vendor quotes/florist quote.pdf"]),
            ),
            (0, "target", json!("USB/Wedding")),
        ],
    )]);
}

/// "park the extra copies in X" is a step of its own (a verb of placing), so the copies found
/// are moved there instead of deleted; "mark" is never read as "park"; "what's it basically
/// saying?" asks for a summary.
#[test]
fn copies_parked_marks_and_what_a_file_basically_says() {
    check(&[
        (
            "in Pictures/Birds, look for identical photos, park the extra copies in Pictures/Bird spares instead of deleting them, and afterwards tell me what takes up the room in Pictures/Birds",
            &[
                "remove-duplicates/scan",
                "remove-duplicates/remove",
                "analyze-directory/analyze",
            ],
            &[
                (0, "path", json!("Pictures/Birds")),
                (1, "action", json!("move")),
                (1, "target", json!("Pictures/Bird spares")),
                (2, "path", json!("Pictures/Birds")),
            ],
        ),
        (
            "mark Invoices/Freelance/inv-0193.pdf and inv-0194.pdf as Unpaid",
            &["manage-files/tag"],
            &[(0, "add", json!("Unpaid"))],
        ),
        (
            "no time to wade through Documents/Dentist/treatment options.pdf before my appointment; what's it basically saying?",
            &["parse-content/summarize"],
            &[(0, "path", json!("Documents/Dentist/treatment options.pdf"))],
        ),
    ]);
}

/// "Is that something you handle?", "something you can already handle?" ask what the agent can
/// do (lexicon `capability_phrases`), after a wish said first too.
#[test]
fn something_you_handle_asks_about_skills() {
    check(&[
        (
            "turning .pes embroidery files into .dst for the shop's machine — something you can already handle?",
            &["skill-search/search"],
            &[],
        ),
        (
            "is there anything here that can turn my record catalogue CSV into printable labels?",
            &["skill-search/search"],
            &[],
        ),
    ]);
}

/// A verb in a relative clause ("PDFs that I rarely open") says what the person does: no step
/// reads the folder's text (before: an extraction of the whole folder's text, then an archive
/// with nothing to pack).
#[test]
fn what_the_person_does_is_no_step() {
    check(&[(
        "Documents/Night school/Past papers is only PDFs that I rarely open; shrink it down into one compressed file",
        &["manage-files/find", "archive-files/create"],
        &[
            (0, "path", json!("Documents/Night school/Past papers")),
            (1, "source", json!("$step(1).nodes")),
        ],
    )]);
}
