//! Regressions found reading plain10 (issue 19): no change read into a part that only names
//! things or tells what the person did, a month is when, and more.

use serde_json::json;

use super::check;
use super::support::{PlanningWorld, rule_plan};
use config::PipelineConfig;

/// "menu photos, till exports, supplier PDFs, the lot" names what a folder holds; "Back in June I
/// split it into type folders" tells what was done. Neither is a step (a list of kinds of file
/// planned a find and a delete of every picture and PDF), and "in June" is no folder.
#[test]
fn no_change_is_read_into_a_list_of_things_or_a_story() {
    check(&[
        (
            "the taco truck's tablet syncs into Documents/Taco truck/Synced: menu photos, till exports, supplier PDFs, the lot. Sort it by type again",
            &["organize-by-type/organize"],
            &[(0, "path", json!("Documents/Taco truck/Synced"))],
        ),
        (
            "Back in June I split Documents/Taco truck/Synced into type folders. Do that sort again",
            &["organize-by-type/organize"],
            &[(0, "path", json!("Documents/Taco truck/Synced"))],
        ),
        // A part with no verb still asks when it says where things go or what they become.
        (
            "PDFs into Documents",
            &["manage-files/find", "manage-files/move"],
            &[(1, "target", json!("Documents"))],
        ),
    ]);
}

/// A request that only names things is asked about: nothing is planned for it.
#[test]
fn a_request_that_only_names_things_plans_no_change() {
    let world = PlanningWorld::shipped(PipelineConfig::default());
    for text in [
        "supplier PDFs",
        "menu photos, till exports, supplier PDFs, the lot",
    ] {
        let steps = rule_plan(&world, text);
        assert!(steps.is_empty(), "{text}: {steps:?}");
    }
}

/// A name of two words goes on past a word in -ing that names a pastime ("Bell ringing",
/// "Wild swimming", "Puppy raising"), an ordinal ("Grandad 90th"), up to a conjunction ("before
/// it died"), and after "could you look … across X" as in a statement; a word in -ing before a
/// place says where the thing is ("Pictures/Best sitting on Backup/USB").
#[test]
fn names_go_on_past_a_pastime_an_ordinal_and_up_to_a_conjunction() {
    check(&[
        (
            "Documents/Bell ringing has a subfolder for each tower we ring at; show me every file in there",
            &["manage-files/list"],
            &[(0, "path", json!("Documents/Bell ringing"))],
        ),
        (
            "lowkey Pictures/Wild swimming is just dupes at this point, bin the copies",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(0, "path", json!("Pictures/Wild swimming"))],
        ),
        (
            "Could you look for identical files across Documents/Glacier thesis including every subfolder?",
            &["remove-duplicates/scan"],
            &[
                (0, "path", json!("Documents/Glacier thesis")),
                (0, "recursive", json!(true)),
            ],
        ),
        (
            "how did Videos/Grandad 90th reach 80 GB?",
            &["analyze-directory/summary"],
            &[(0, "path", json!("Videos/Grandad 90th"))],
        ),
        (
            "I want a second copy of Pictures/Best sitting on Backup/USB",
            &["manage-files/copy"],
            &[
                (0, "source", json!(["Pictures/Best"])),
                (0, "target", json!("Backup/USB")),
            ],
        ),
        // Not the question's verb after the name: "which lab report in Uni/Chem Lab talks …".
        (
            "which lab report in Uni/Chem Lab talks about titration errors?",
            &["search-files/search"],
            &[(0, "path", json!("Uni/Chem Lab"))],
        ),
        // A name between commas after "a folder" is the new folder's.
        (
            "Please add a folder, Phase two, under Documents/Puppy raising",
            &["manage-files/create"],
            &[
                (0, "path", json!("Documents/Puppy raising")),
                (0, "name", json!("Phase two")),
            ],
        ),
    ]);
}

/// Typos are fixed before a request is split: "get rid of tehm" refers back as "them" does (it
/// deleted the whole folder the empty folders were in), "fnd" opens a look-up as "find" does.
#[test]
fn typos_are_fixed_before_the_request_is_split() {
    check(&[
        (
            "Projects/Dolls house has emtpy foldres from rooms i scraped, get rid of tehm",
            &["search-files/find", "manage-files/delete"],
            &[
                (0, "path", json!("Projects/Dolls house")),
                (0, "empty", json!(true)),
                (1, "path", json!("$step(1).nodes")),
            ],
        ),
        (
            "mve the pdfs to Documents",
            &["manage-files/find", "manage-files/move"],
            &[(1, "target", json!("Documents"))],
        ),
        // "duplicate" before a plural with nowhere for copies to go says which files.
        (
            "duplcate photso in Pictures/Family, find em and get rid, keep teh largest",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(1, "keep", json!("largest"))],
        ),
    ]);
}

/// After a copy, "it" and a part naming nothing are what the copy left where it was: "copy X to
/// Backup/X, then delete it from here" deleted the copy just made. "Should be kept on Backup/X"
/// is a copy there.
#[test]
fn what_a_copy_left_behind_is_what_the_next_part_acts_on() {
    check(&[
        (
            "copy Documents/Caravan to Backup/Caravan, then delete it from here",
            &["manage-files/copy", "manage-files/delete"],
            &[(1, "path", json!(["Documents/Caravan"]))],
        ),
        (
            "copy the pdfs in Downloads to Backup/PDFs, then delete them",
            &[
                "manage-files/find",
                "manage-files/copy",
                "manage-files/delete",
            ],
            &[(2, "path", json!("$step(1).nodes"))],
        ),
        (
            "we handed the caravan keys over on Saturday. Its paperwork, Documents/Caravan, should be kept on Backup/Caravan and then removed from here",
            &["manage-files/copy", "manage-files/delete"],
            &[
                (0, "source", json!(["Documents/Caravan"])),
                (0, "target", json!("Backup/Caravan")),
                (1, "path", json!(["Documents/Caravan"])),
            ],
        ),
    ]);
}

/// "Videos/Open mic/2024 sets: turn the folder into a single tar.zst and delete the clips when
/// they're safely inside": the folder a verb acts on is the heading's (with its last word before
/// the colon), and the originals' removal belongs to the archive (it planned a duplicate scan
/// and removal).
#[test]
fn the_folder_a_verb_acts_on_is_the_headings_and_its_originals_go_with_the_archive() {
    check(&[
        (
            "Videos/Open mic/2024 sets: turn the folder into a single tar.zst and delete the clips when they're safely inside. I'm down to 4 GB free",
            &["archive-files/create"],
            &[
                (0, "source", json!(["Videos/Open mic/2024 sets"])),
                (0, "format", json!("tar.zst")),
                (0, "delete_originals", json!(true)),
            ],
        ),
        (
            "Videos/Open mic: zip the folder",
            &["archive-files/create"],
            &[(0, "source", json!(["Videos/Open mic"]))],
        ),
    ]);
}

/// "my old phone saved the pictures in Pictures/Terrariums as .jpeg; switch every one of them to
/// a .jpg ending and leave the rest of each name alone": "them" is what a verb in the past did
/// something to, "switch" is a change, "to a .jpg ending" the new extension and "leave the rest"
/// what not to do (it named each picture from its content).
#[test]
fn what_was_done_to_before_is_them_and_an_ending_said_with_an_article_is_the_new_extension() {
    check(&[(
        "my old phone saved the pictures in Pictures/Terrariums as .jpeg; switch every one of them to a .jpg ending and leave the rest of each name alone",
        &["manage-files/find", "batch-rename/rename"],
        &[
            (0, "path", json!("Pictures/Terrariums")),
            (1, "pattern", json!("{name}.jpg")),
        ],
    )]);
}

/// What someone else does ("they save to Downloads as .svg") tells, it asks for nothing (it
/// planned a step naming every picture from its content); "one of each would do" asks for the
/// duplicates to go.
#[test]
fn what_others_do_tells_and_one_of_each_would_do_removes_duplicates() {
    check(&[
        (
            "they save to Downloads as .svg. Round up all of those and put them in Documents/Stained glass designs",
            &["manage-files/find", "manage-files/move"],
            &[
                (0, "extension", json!("svg")),
                (1, "target", json!("Documents/Stained glass designs")),
            ],
        ),
        (
            "the league secretary sends the fixtures list every week whether it's changed or not, so Documents/Cricket club/Fixtures has pile-ups of the very same file. One of each would do",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(0, "path", json!("Documents/Cricket club/Fixtures"))],
        ),
    ]);
}

/// "I need an Invoices folder inside X; once it exists, move A and B into it": a folder needed
/// is one to make, named by the word before "folder" (it became a heading and nothing was made).
#[test]
fn a_folder_needed_is_one_to_make() {
    check(&[(
        "I need an Invoices folder inside Documents/Loft conversion; once it exists, move Downloads/scaffold invoice.pdf and Downloads/receipt.pdf into it",
        &["manage-files/create", "manage-files/move"],
        &[
            (0, "path", json!("Documents/Loft conversion")),
            (0, "name", json!("Invoices")),
            (1, "target", json!("$step(1).created[0]")),
        ],
    )]);
}

/// "when I've seen it" says when, no step (it planned a metadata look); "show me the recipe"
/// after a file is read asks to see what was read (it added a details step).
#[test]
fn when_ive_seen_it_and_show_me_the_recipe_are_no_steps() {
    check(&[
        (
            "list Documents/Cricket club/Old fixtures for me; when I've seen it, delete whatever in there is more than two years old",
            &[
                "manage-files/list",
                "search-files/find",
                "manage-files/delete",
            ],
            &[(1, "path", json!("Documents/Cricket club/Old fixtures"))],
        ),
        (
            "List Documents/Perfume notes, and then open 'vetiver accord.txt' in it and show me the recipe",
            &["manage-files/list", "parse-content/extract_text"],
            &[(
                1,
                "path",
                json!("Documents/Perfume notes/vetiver accord.txt"),
            )],
        ),
    ]);
}

/// "Backup/Canoe gets a copy of Pictures/Canoe trip first; after that, arrange the originals by
/// the day …": a copy said from where it goes is a copy (nothing was copied, and the backup was
/// sorted); the originals are the folder the copied files were chosen in.
#[test]
fn a_copy_said_from_where_it_goes_is_a_copy_and_the_originals_stay_the_place() {
    check(&[(
        "I'm nervous about losing the river photos, so Backup/Canoe gets a copy of Pictures/Canoe trip first; after that, arrange the originals by the day they were taken, a folder each",
        &[
            "manage-files/find",
            "manage-files/copy",
            "organize-by-type/by_date",
        ],
        &[
            (1, "target", json!("Backup/Canoe")),
            (2, "path", json!("Pictures/Canoe trip")),
        ],
    )]);
}
