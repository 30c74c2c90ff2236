//! What one clause says reaches the step it belongs to, and a plain rename stays a rename: the
//! categories of a letter-reading step said with the sorting, a pronoun for a quoted name, an
//! example name's date, text put on the front of names (issue 19, dev9 set).

mod support;

use serde_json::json;
use support::check_readings as check;

#[test]
fn what_a_later_clause_says_about_how_reaches_the_step_it_reads_from() {
    check(&[
        // The categories are said with the sorting, and the letters are read by the step
        // before it (n013).
        (
            "Vet Clinic/Inbox Scans — read each letter and split them into Lab Results, Referrals and Invoices",
            &["organize-by-content/classify", "organize-by-content/sort"],
            &[(0, "categories", json!("Lab Results, Referrals, Invoices"))],
        ),
        // A dash before the next clause ends the list (n030).
        (
            "Retirement/Letters/Scanned: the PDFs sorted by topic into Family, Bank and Doctor — then list what's left loose in Retirement/Letters/Scanned",
            &[
                "organize-by-content/classify",
                "organize-by-content/sort",
                "manage-files/list",
            ],
            &[(0, "categories", json!("Family, Bank, Doctor"))],
        ),
        // A word that chose a value filters nothing, and a clause that only says more of how
        // the last step is done joins it (n006).
        (
            "which .tif scans in Stamps/Scans are exact duplicates? csv report please, don't delete anything yet",
            &["remove-duplicates/scan"],
            &[(0, "extension", json!("tif")), (0, "format", json!("csv"))],
        ),
        (
            "report the duplicates in Stamps/Scans as csv",
            &["remove-duplicates/scan"],
            &[(0, "format", json!("csv"))],
        ),
        // A name that opens a path said is that folder, not the later path ending in it (n034).
        (
            "Fire Brigade/Rosters: anything older than 1 Jan 2023 goes to Archive/Fire Brigade, and then an overview of Fire Brigade please",
            &[
                "search-files/find",
                "manage-files/move",
                "analyze-directory/analyze",
            ],
            &[(2, "path", json!("Fire Brigade"))],
        ),
        // The archive made is not what "the folder" deletes (n051).
        (
            "Dorm Move-Out/Semester 1 Notes → Archive/sem1-notes.zip and delete the folder once zipped; after that list Dorm Move-Out",
            &["archive-files/create", "manage-files/list"],
            &[
                (0, "delete_originals", json!(true)),
                (1, "path", json!("Dorm Move-Out")),
            ],
        ),
    ]);
}

#[test]
fn renames_said_plainly_are_renames_with_their_pattern() {
    check(&[
        // "that" is the text quoted before; what the names start with now is no prefix (n018).
        (
            "lichess exports all start with 'lichess_pgn_' … in Chess Club/PGN/Autumn League swap that for 'autumn26_' on every file",
            &["manage-files/find", "batch-rename/rename"],
            &[
                (1, "find", json!("lichess_pgn_")),
                (1, "replace", json!("autumn26_")),
                (1, "pattern", json!("{name}")),
            ],
        ),
        // The example's date and time are the layout; "the moment it was taken" is the photo's
        // own date (n019).
        (
            "Food Blog/Shoots/Pumpkin Risotto — name every photo after the moment it was taken, e.g. 2026-10-30 18.42.jpg",
            &["manage-files/find", "batch-rename/rename"],
            &[
                (0, "path", json!("Food Blog/Shoots/Pumpkin Risotto")),
                (1, "pattern", json!("{exif.date:%Y-%m-%d %H.%M}.{ext}")),
            ],
        ),
        // "on the front of" puts text before every name (n078).
        (
            "yo slap WIP_ on the front of every file name in Comics/Issue 6/Pencils",
            &["manage-files/find", "batch-rename/rename"],
            &[(1, "pattern", json!("WIP_{name}.{ext}"))],
        ),
        // Nothing asks for the files to be read: no model reading, a rename that asks for its
        // pattern (n028).
        (
            "Comics/Issue 5/Pages — rename all of em",
            &["manage-files/find", "batch-rename/rename"],
            &[(0, "path", json!("Comics/Issue 5/Pages"))],
        ),
        // Said, the reading stays (plans.jsonl).
        (
            "give the files in Scans descriptive names",
            &["organize-by-content/name", "organize-by-content/rename"],
            &[(0, "path", json!("Scans"))],
        ),
    ]);
}

#[test]
fn every_file_so_named_and_what_a_file_holds() {
    check(&[
        // "every" before a file's name means every file so called, at any depth (n092, m097).
        (
            "zap every .DS_Store in DJ/Crates, mac junk is everywhere lol",
            &["manage-files/find", "manage-files/delete"],
            &[
                (0, "path", json!("DJ/Crates")),
                (0, "name", json!(".DS_Store")),
                (0, "recursive", json!(true)),
            ],
        ),
        (
            "delete Pictures/Thumbs.db",
            &["manage-files/delete"],
            &[(0, "path", json!(["Pictures/Thumbs.db"]))],
        ),
        // Minutes and pages are what a file's metadata says (n010, n062).
        (
            "Language/Polish/Audio/lekcja 12 – dialog.mp3, how many minutes is it",
            &["parse-content/metadata"],
            &[(
                0,
                "path",
                json!("Language/Polish/Audio/lekcja 12 – dialog.mp3"),
            )],
        ),
        (
            "Garage/Manuals/Haynes VW Golf Mk4 (1998-2004).pdf — the copy shop charges per page, so how many are there?",
            &["parse-content/metadata"],
            &[],
        ),
    ]);
}

#[test]
fn the_biggest_files_are_ranked_by_size_before_a_change() {
    check(&[
        // The three biggest, not the first three found (n036).
        (
            "delete the 3 largest files in Videos",
            &["analyze-directory/analyze", "manage-files/delete"],
            &[
                (0, "top_n", json!(3)),
                (1, "path", json!("$step(1).largest")),
            ],
        ),
        (
            "three fattest files in Video Work/Renders → External/renders-biggest.tar.zst; originals can go once they're in there",
            &["analyze-directory/analyze", "archive-files/create"],
            &[
                (0, "path", json!("Video Work/Renders")),
                (0, "top_n", json!(3)),
                (1, "source", json!("$step(1).largest")),
                (1, "delete_originals", json!(true)),
            ],
        ),
        // "over the last 48 hours" is how recent, not how old (n025).
        (
            "zip whatever changed in Docs over the last 48 hours into Backup/recent.zip",
            &["search-files/find", "archive-files/create"],
            &[(0, "modified_after", json!("48hours"))],
        ),
    ]);
}

#[test]
fn quoted_text_is_said_whole_and_a_preview_carried_out_by_its_verb() {
    check(&[
        // The comma inside the quote splits nothing; "jot '…' into" is the file's text (n048).
        (
            "read Brewery/Batch Sheets/Batch 113 – Hazy IPA.md first, then jot 'order Citra, check FG on day 10' into a new file Brewery/Batch Sheets/todo.txt",
            &["parse-content/extract_text", "manage-files/create"],
            &[
                (1, "name", json!("todo.txt")),
                (1, "content", json!("order Citra, check FG on day 10")),
            ],
        ),
        // "from 2 GB up" is a least size; "should be over on" moves (n064).
        (
            "the FITS captures are filling my internal drive; every one from 2 GB up in Astronomy/FITS should be over on External/Astro Raw instead",
            &["search-files/find", "manage-files/move"],
            &[
                (0, "min_size", json!("2GB")),
                (1, "target", json!("External/Astro Raw")),
            ],
        ),
        // "then actually sort it" after a preview carries it out (n054).
        (
            "Architecture/Downloads – gimme a type-by-type preview first, then actually sort it; if two names collide keep both",
            &[
                "organize-by-type/preview_categories",
                "organize-by-type/organize",
            ],
            &[(1, "on_conflict", json!("rename"))],
        ),
    ]);
}
