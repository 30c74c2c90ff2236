//! Regressions found reading plain6 (issue 19): an action said of nothing, what is kept and the
//! rest that goes, names that go on past a brand's word or a preposition, files saved twice.

use serde_json::json;

use super::check;

/// "delete nothing" is a negation, not a deletion; "keep the biggest and drop the rest" keeps
/// one of each group (before, the rest deleted the folder named in the header).
#[test]
fn nothing_deleted_and_the_rest_of_each_group() {
    check(&[
        (
            "Check Documents/Self assessment 2025 and all its subfolders for files saved more than once and hand me the result as a CSV; delete nothing",
            &["remove-duplicates/scan"],
            &[
                (0, "path", json!("Documents/Self assessment 2025")),
                (0, "format", json!("csv")),
                (0, "recursive", json!(true)),
            ],
        ),
        (
            "Pictures/Iceland 2025/Northern lights is full of bursts of almost the same aurora frame; in each group of lookalikes keep the biggest picture and drop the rest",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[
                (0, "path", json!("Pictures/Iceland 2025/Northern lights")),
                (0, "similar", json!(true)),
                (1, "keep", json!("largest")),
            ],
        ),
        (
            "Downloads has the same installer three times; keep the newest and delete the rest",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[
                (0, "path", json!("Downloads")),
                (1, "keep", json!("newest")),
            ],
        ),
        (
            "Unpack Downloads/iceland-shared-album.zip into Pictures/Iceland 2025 and then delete any photo that's now in there twice",
            &[
                "archive-files/extract",
                "remove-duplicates/scan",
                "remove-duplicates/remove",
            ],
            &[(1, "path", json!("Pictures/Iceland 2025"))],
        ),
    ]);
}

/// Names that go on: a word like "iPad", a noun before "at", "up", "not" or "older", and not
/// "somewhere"; a common folder misspelt in five letters ("Bakup").
#[test]
fn names_that_go_on_and_where_they_end() {
    check(&[
        (
            "if Backup/Old iPad were sorted into type folders, how many files would land in each?",
            &["organize-by-type/preview_categories"],
            &[(0, "path", json!("Backup/Old iPad"))],
        ),
        (
            "show me what's sitting in Documents/Book club at the moment",
            &["manage-files/list"],
            &[(0, "path", json!("Documents/Book club"))],
        ),
        (
            "the embassy appointment is next week, so bundle Documents/Visa application up as Backup/visa-2026.zip",
            &["archive-files/create"],
            &[(0, "source", json!(["Documents/Visa application"]))],
        ),
        (
            "the swim club papers from past seasons, meaning anything in Documents/Swim club not edited at all since the start of 2024, can be relocated to Archive/Swim club",
            &["search-files/find", "manage-files/move"],
            &[
                (0, "path", json!("Documents/Swim club")),
                (0, "modified_before", json!("2024-01-01")),
            ],
        ),
        (
            "i want Pictures/Pottery class compresed as Bakup/pottery.zip, thx",
            &["archive-files/create"],
            &[(0, "target", json!("Backup/pottery.zip"))],
        ),
        (
            "hunt out identical scans in Pictures/Dad's slides, put the spares into Pictures/Slide spares rather than deleting them",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(1, "target", json!("Pictures/Slide spares"))],
        ),
    ]);
}

/// What a part says it makes or wants: "set up <folder>", a text file "with the words …",
/// "tell me briefly what X says", "each line of X", twelve months, originals that can go.
#[test]
fn folders_set_up_files_written_and_what_is_read() {
    check(&[
        (
            "I'm revising for my theory test: set up Documents/Driving lessons/Theory, and move Downloads/highway code notes.pdf into it",
            &["manage-files/create", "manage-files/move"],
            &[
                (0, "path", json!("Documents/Driving lessons")),
                (0, "name", json!("Theory")),
                (1, "target", json!("$step(1).created[0]")),
            ],
        ),
        (
            "put a text file named plant list.txt in Documents/Allotment with the words 'garlic, broad beans, chard'",
            &["manage-files/create"],
            &[
                (0, "name", json!("plant list.txt")),
                (0, "content", json!("garlic, broad beans, chard")),
            ],
        ),
        (
            "before book club, tell me briefly what Documents/Book club/march reading guide.pdf says",
            &["parse-content/summarize"],
            &[],
        ),
        (
            "I need to see each line of Documents/Visa application/cover letter draft.docx before I send it off",
            &["parse-content/extract_text"],
            &[],
        ),
        (
            "trash every audiobook in Music older than twelve months",
            &["search-files/find", "manage-files/delete"],
            &[(0, "modified_before", json!("365days"))],
        ),
        (
            "Videos/GoPro/Kayak 2023 may become one tar.zst; the clips themselves can disappear after, space is tight",
            &["archive-files/create"],
            &[
                (0, "source", json!(["Videos/GoPro/Kayak 2023"])),
                (0, "delete_originals", json!(true)),
            ],
        ),
    ]);
}

/// After a copy, "the originals" are what was copied, where it still is; "within your powers"
/// asks what the agent can do.
#[test]
fn the_originals_after_a_copy_and_what_is_within_your_powers() {
    check(&[
        (
            "put a copy of Pictures/Camping Wales on Backup/Camping first, and after that split the originals into one folder per day",
            &["manage-files/copy", "organize-by-type/by_date"],
            &[
                (0, "target", json!("Backup/Camping")),
                (1, "path", json!("Pictures/Camping Wales")),
            ],
        ),
        (
            "is translating a Japanese PDF into English something within your powers?",
            &["skill-search/search"],
            &[],
        ),
    ]);
}

/// Where a heading says things went is where they are; what will be done later only says what
/// the rest is about; "everything inside should end up in" unpacks; "tuck them away inside" an
/// archive packs; "every folder inside opened up" goes down every level; names end before an
/// adverb and before "type folders".
#[test]
fn headings_that_say_where_things_went_and_what_comes_later() {
    check(&[
        (
            "I saved the visa forms to Downloads again and again. Clear out the repeats first, and then give the remaining files folders by type",
            &[
                "remove-duplicates/scan",
                "remove-duplicates/remove",
                "organize-by-type/organize",
            ],
            &[
                (0, "path", json!("Downloads")),
                (2, "path", json!("Downloads")),
            ],
        ),
        (
            "before I unzip Downloads/drama-scripts.zip, what's inside it?",
            &["archive-files/list"],
            &[(0, "path", json!("Downloads/drama-scripts.zip"))],
        ),
        (
            "the piano teacher's scales book arrived as Downloads/scales-book.zip; everything inside should end up in Documents/Piano sheets",
            &["archive-files/extract"],
            &[(0, "target", json!("Documents/Piano sheets"))],
        ),
        (
            "the bills in Documents/Energy bills older than 2021: tuck them away inside Archive/energy-old.zip",
            &["search-files/find", "archive-files/create"],
            &[(1, "target", json!("Archive/energy-old.zip"))],
        ),
        (
            "could you show me the full contents of Documents/Drama club, with every folder inside opened up too?",
            &["manage-files/list"],
            &[(0, "recursive", json!(true))],
        ),
        (
            "zip Documents/Flat share quickly into Backup/flat.zip",
            &["archive-files/create"],
            &[(0, "source", json!(["Documents/Flat share"]))],
        ),
        (
            "the scouts are back from camp: give Documents/Scouts/Summer camp type folders, and afterwards archive that folder as Backup/scout-camp.zip",
            &["organize-by-type/organize", "archive-files/create"],
            &[(0, "path", json!("Documents/Scouts/Summer camp"))],
        ),
    ]);
}

/// A word that only says which ("my Japanese course kit", "Grandpa's old computer") names no
/// folder; what a folder "needs doing" is asked of that folder.
#[test]
fn words_that_say_which_and_what_a_folder_needs() {
    check(&[
        (
            "my Japanese course kit arrived as a folder, Downloads/Japanese N5 kit; could it live under Documents/Japanese from now on?",
            &["manage-files/move"],
            &[
                (0, "source", json!(["Downloads/Japanese N5 kit"])),
                (0, "target", json!("Documents/Japanese")),
            ],
        ),
        // A capital after "my" before a word that links still names the folder.
        (
            "zip my Notes for the trip into notes.zip",
            &["archive-files/create"],
            &[(0, "source", json!(["Notes"]))],
        ),
        (
            "my uncle copied Grandpa's old computer into Documents/Grandpa's computer; give me a rundown of what sorts of files it holds",
            &["analyze-directory/analyze"],
            &[(0, "path", json!("Documents/Grandpa's computer"))],
        ),
        (
            "number the maths worksheets in Documents/Home school/Maths as maths_01.pdf, maths_02.pdf and so forth; once they're renamed, the folder needs copying onto USB/Home school",
            &[
                "manage-files/find",
                "batch-rename/rename",
                "manage-files/copy",
            ],
            &[
                (1, "pattern", json!("maths_{n:02}.{ext}")),
                (2, "source", json!(["Documents/Home school/Maths"])),
                (2, "target", json!("USB/Home school")),
            ],
        ),
        (
            "Documents/Solar panels: label each document with its topic, leaving everything where it is, and then put a copy of the folder on Backup/House",
            &[
                "organize-by-content/classify",
                "organize-by-content/tag",
                "manage-files/copy",
            ],
            &[
                (0, "path", json!("Documents/Solar panels")),
                (2, "source", json!(["Documents/Solar panels"])),
                (2, "target", json!("Backup/House")),
            ],
        ),
    ]);
}
