//! Regressions found reading plain11's last misses and plain12 (issue 19, 2026-11-30).

use serde_json::json;

use super::check;

/// "teh emty folders insde Pictures/Typewritters shoud go" found the empty folders and left them:
/// things that "should go" are deleted, as things that "can go" are; things that should go to a
/// place are moved there.
#[test]
fn what_should_go_is_deleted_unless_it_goes_somewhere() {
    check(&[
        (
            "teh emty folders insde Pictures/Typewritters shoud go",
            &["search-files/find", "manage-files/delete"],
            &[
                (0, "path", json!("Pictures/Typewritters")),
                (0, "empty", json!(true)),
            ],
        ),
        (
            "the PDFs should go to Documents/Tax",
            &["manage-files/find", "manage-files/move"],
            &[(1, "target", json!("Documents/Tax"))],
        ),
    ]);
}

/// "Pictures/Rabbits/IMG_2231.jpg is the one where Clover flopped over sideways; call it
/// clover-flop.jpg" searched for a file called clover-flop.jpg: a question word inside a part
/// ("the one where …") asks nothing, so "call it" is the part's action, and "call" is a change.
#[test]
fn a_file_said_to_be_the_one_where_something_happened_is_renamed_when_called_something() {
    check(&[(
        "Pictures/Rabbits/IMG_2231.jpg is the one where Clover flopped over sideways; call it clover-flop.jpg",
        &["manage-files/rename"],
        &[
            (0, "path", json!("Pictures/Rabbits/IMG_2231.jpg")),
            (0, "new_name", json!("clover-flop.jpg")),
        ],
    )]);
}

/// Names of words cut short: a word that no name goes on with after a noun ("any more",
/// "several times", "were", "these days") ends the name after the noun; an everyday noun
/// ("side"), a short word in -ing ("tying"), a verb's form where a preposition or a verb takes
/// the name ("in Projects/Amiga restore;", "duplicate Documents/Chimney sweep business onto")
/// and a word in -ing before a slash ("Documents/Yoga teaching/…") go on it, as do two words
/// and a number ("Downloads/Welsh course unit 4"). "How old are the
/// files in there" is a trigger of analyze-directory's analyze (it previewed a sort by type).
#[test]
fn names_of_words_go_on_to_where_they_plainly_end() {
    check(&[
        (
            "client session plans older than four years shouldn't be in Documents/Personal training any more; hunt them down and delete them",
            &["search-files/find", "manage-files/delete"],
            &[(0, "path", json!("Documents/Personal training"))],
        ),
        (
            "I exported the cake order forms into Downloads/Cake orders several times over. Weed out the duplicates",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(0, "path", json!("Downloads/Cake orders"))],
        ),
        (
            "my fly patterns in Pictures/Fly tying were typed in CAPITALS; lowercase every filename",
            &["manage-files/find", "batch-rename/rename"],
            &[(0, "path", json!("Pictures/Fly tying"))],
        ),
        (
            "nobody looks at Documents/Kendo/Old gradings these days; squash that folder into a compressed archive",
            &["archive-files/create"],
            &[(0, "source", json!(["Documents/Kendo/Old gradings"]))],
        ),
        (
            "our morris side has kept Documents/Morris side since we first danced out. How old are the files in there, grouped per year?",
            &["analyze-directory/analyze"],
            &[(0, "path", json!("Documents/Morris side"))],
        ),
        (
            "pls moev Downlods/chimney certificate template.docx to Documnets/Chimney sweep business",
            &["manage-files/move"],
            &[(0, "target", json!("Documents/Chimney sweep business"))],
        ),
        (
            "Downloads/Welsh course unit 4 is a whole folder of audio and worksheets; relocate it into Documents/Learning Welsh",
            &["manage-files/move"],
            &[(0, "source", json!(["Downloads/Welsh course unit 4"]))],
        ),
        (
            "archve Pictures/Pothole caving intto Backpu/caving.zip pleeze",
            &["archive-files/create"],
            &[(0, "source", json!(["Pictures/Pothole caving"]))],
        ),
        (
            "tag Documents/Yoga teaching/class waiver v3.pdf as Approved",
            &["manage-files/tag"],
            &[(
                0,
                "source",
                json!(["Documents/Yoga teaching/class waiver v3.pdf"]),
            )],
        ),
        // A verb said last after a place is a verb (a request read from German says it there).
        (
            "make all the file names in ~/Music/Rock lowercase",
            &["manage-files/find", "batch-rename/rename"],
            &[(0, "path", json!("~/Music/Rock"))],
        ),
    ]);
}

/// Everyday ways to ask (each planned something else before): "can be wiped" deletes, "what
/// kinds of file make up X" analyzes, "the running time of" a recording is its metadata, "boil it
/// down" summarizes, an archive's "contents belong in" a folder are unpacked there, "right now"
/// ends a folder's name, "so first duplicate X onto Y" copies, "nested sections too" lists every
/// level.
#[test]
fn everyday_ways_to_ask_read_as_what_they_ask() {
    check(&[
        (
            "Videos/Stand-up/Dead sets can be wiped entirely, nobody laughed once in any of those gigs",
            &["manage-files/delete"],
            &[(0, "path", json!(["Videos/Stand-up/Dead sets"]))],
        ),
        (
            "Videos/Samba band is apparently 150 GB. What kinds of file make up that lot?",
            &["analyze-directory/analyze"],
            &[(0, "path", json!("Videos/Samba band"))],
        ),
        (
            "what's the running time of Music/Barbershop/practice.m4a? we think it dragged on",
            &["parse-content/metadata"],
            &[(0, "path", json!("Music/Barbershop/practice.m4a"))],
        ),
        (
            "the citizenship test is soon and Documents/Citizenship/handbook.pdf is huge; boil it down for me",
            &["parse-content/summarize"],
            &[(0, "path", json!("Documents/Citizenship/handbook.pdf"))],
        ),
        (
            "the morris side's new dance notation arrived as Downloads/morris-dances-2026.zip; its contents belong in Documents/Morris side/Dances",
            &["archive-files/extract"],
            &[(0, "target", json!("Documents/Morris side/Dances"))],
        ),
        (
            "what's in Documents/Irish dancing/Feis entries right now?",
            &["manage-files/list"],
            &[(0, "path", json!("Documents/Irish dancing/Feis entries"))],
        ),
        (
            "Documents/Youth orchestra: show it all, nested sections and season folders too",
            &["manage-files/list"],
            &[(0, "recursive", json!(true))],
        ),
        (
            "first duplicate Documents/Work onto Backup/Work",
            &["manage-files/copy"],
            &[(0, "target", json!("Backup/Work"))],
        ),
    ]);
}

/// "once packed, bin the loose originals" planned a delete of the archive just made; it is the
/// archive's `delete_originals`. "on what day and at what location did I take it?" asks a
/// photo's metadata (it was read as a folder's summary).
#[test]
fn loose_originals_binned_and_a_photos_day_and_place() {
    check(&[
        (
            "poker results in Documents/Poker league/Results dated pre-2022 need packing into Archive/poker-old.zip; once packed, bin the loose originals",
            &["search-files/find", "archive-files/create"],
            &[(1, "delete_originals", json!(true))],
        ),
        (
            "Pictures/Fossils/DSC_2204.jpg: on what day and at what location did I take it?",
            &["parse-content/metadata"],
            &[(0, "path", json!("Pictures/Fossils/DSC_2204.jpg"))],
        ),
    ]);
}

/// "Documents/Weaving/Drafts holds draft1.pdf through draft60.pdf; zip the folder" zipped a
/// folder called "Drafts holds draft1.pdf": a verb said of a folder ("holds", "contains") is no
/// word of a file's name after it.
#[test]
fn a_verb_said_of_a_folder_is_no_word_of_a_file_name() {
    check(&[(
        "Documents/Weaving/Drafts holds draft1.pdf through draft60.pdf; zip the folder",
        &["archive-files/create"],
        &[(0, "source", json!(["Documents/Weaving/Drafts"]))],
    )]);
}

/// "Kannst du Dokumente/…/Exposé.pdf auf USB/Makler kopieren? Der Makler möchte es heute noch
/// haben" copied every file changed today to nowhere: "auf" before a path is "to" (the German
/// lexicon's `before_a_path`), and a day said as when someone needs a thing ("wants it today")
/// is no date of the files.
#[test]
fn a_copy_onto_a_stick_for_someone_who_needs_it_today() {
    check(&[
        (
            "Kannst du Dokumente/Hausverkauf/Exposé.pdf auf USB/Makler kopieren? Der Makler möchte es heute noch haben",
            &["manage-files/copy"],
            &[
                (0, "source", json!(["Dokumente/Hausverkauf/Exposé.pdf"])),
                (0, "target", json!("USB/Makler")),
            ],
        ),
        (
            "can you copy Documents/Exposé.pdf to USB/Makler? the agent wants it today",
            &["manage-files/copy"],
            &[(0, "source", json!(["Documents/Exposé.pdf"]))],
        ),
        (
            "copy the files from today to USB/Makler",
            &["search-files/find", "manage-files/copy"],
            &[(0, "modified_after", json!("1days"))],
        ),
    ]);
}

/// "show Documents/Pigeons/Race results, and after that bin …" showed the folder's details, not
/// what is in it: "show" right before a folder said alone lists it (the lexicon's
/// `verbs_before_a_folder`); a file is still read, and a folder with a filter after it searched.
#[test]
fn showing_a_folder_said_alone_lists_it() {
    check(&[
        (
            "show Documents/Pigeons/Race results, and after that bin any result sheet more than twelve months old",
            &[
                "manage-files/list",
                "search-files/find",
                "manage-files/delete",
            ],
            &[(0, "path", json!("Documents/Pigeons/Race results"))],
        ),
        (
            "show me Documents/Personal training/Old clients",
            &["manage-files/list"],
            &[(0, "path", json!("Documents/Personal training/Old clients"))],
        ),
        (
            "show Documents/report.pdf",
            &["parse-content/extract_text"],
            &[(0, "path", json!("Documents/report.pdf"))],
        ),
    ]);
}
