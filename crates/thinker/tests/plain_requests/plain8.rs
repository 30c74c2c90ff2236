//! Regressions found reading plain8 (issue 19): names of two or three words whose last one is an
//! activity, a particle or a verb's plain form, and where such a name ends.

use serde_json::json;

use super::check;

/// Nouns after a name with a capital end at a particle ("trip across to"), a verb said of it
/// ("club goes onto"), an action on what follows ("claim put each paper"), a participle after
/// the inverted question ("were … transfers sorted"); an activity in -ing before a colon ("Soap
/// making:") and a verb's plain form at a stop ("Ukulele group;", "starter pack.") name.
#[test]
fn names_that_end_at_a_particle_a_verb_or_a_stop() {
    check(&[
        (
            "my phone's battery is swelling, so copy Pictures/Narrowboat trip across to Backup/Holidays while it still works",
            &["manage-files/copy"],
            &[
                (0, "source", json!(["Pictures/Narrowboat trip"])),
                (0, "target", json!("Backup/Holidays")),
            ],
        ),
        (
            "handing the laptop back tomorrow: Documents/Rowing club goes onto USB/Rowing as a copy",
            &["manage-files/copy"],
            &[(0, "source", json!(["Documents/Rowing club"]))],
        ),
        (
            "in Documents/Car accident claim put each paper under Police, Garage or Insurer according to what it deals with",
            &["organize-by-content/classify", "organize-by-content/sort"],
            &[(0, "path", json!("Documents/Car accident claim"))],
        ),
        (
            "do a dry run for me: were Videos/VHS transfers sorted into type folders, what would the tally per category be?",
            &["organize-by-type/preview_categories"],
            &[(0, "path", json!("Videos/VHS transfers"))],
        ),
        (
            "Documents/Soap making: list its contents, dotfiles too",
            &["manage-files/list"],
            &[(0, "path", json!("Documents/Soap making"))],
        ),
        (
            "unpack Downloads/ukulele-songbook-autumn.zip into Music/Ukulele group; any song clashing with one already there should simply be skipped",
            &["archive-files/extract"],
            &[
                (0, "target", json!("Music/Ukulele group")),
                (0, "on_conflict", json!("skip")),
            ],
        ),
        (
            "make all the file names in Music/Rock lowercase",
            &["manage-files/find", "batch-rename/rename"],
            &[(0, "path", json!("Music/Rock"))],
        ),
    ]);
}

/// "make <a path>" is a folder to make, not a new skill: a change that takes no place does not
/// act on the one the clause names, unless the clause speaks of the agent.
#[test]
fn making_a_named_folder_is_no_new_skill() {
    check(&[(
        "I'm in the improvers group now: make Videos/Salsa class/Improvers, then move each .mp4 from Downloads in there",
        &[
            "manage-files/create",
            "manage-files/find",
            "manage-files/move",
        ],
        &[
            (0, "path", json!("Videos/Salsa class")),
            (0, "name", json!("Improvers")),
            (1, "extension", json!("mp4")),
        ],
    )]);
}

/// A name before another's possessive is a person ("Aunt Margit's"), no folder; "old" before a
/// short name in capitals ("old PC") says which; "what sorts of files" asks what kinds there are.
#[test]
fn a_persons_name_is_no_folder() {
    check(&[
        (
            "Aunt Margit's old PC was copied into Backup/Aunt Margit PC before it went to the tip. What sorts of files did we end up with?",
            &["analyze-directory/analyze"],
            &[(0, "path", json!("Backup/Aunt Margit PC"))],
        ),
        (
            "zip Aunt Margit's letters",
            &["archive-files/create"],
            &[(0, "source", json!(null))],
        ),
    ]);
}

/// What a heading says of a folder whose name ends in a verb ("Montreal move is a heap of …")
/// acts on nothing; folders "created over in X" go to X, a place "rather than Downloads" is not
/// meant; a capital after "a folder?," starts a sentence, no name.
#[test]
fn where_things_go_and_what_is_not_meant() {
    check(&[
        (
            "Downloads/Montreal move is a heap of leases, flight receipts and campus maps. Sort by file type, with the category folders created over in Documents/Montreal exchange rather than Downloads",
            &["organize-by-type/organize"],
            &[
                (0, "path", json!("Downloads/Montreal move")),
                (0, "target", json!("Documents/Montreal exchange")),
            ],
        ),
        (
            "My cousin scanned everything from Aunt Margit's flat and it's lying loose in Documents/Aunt Margit flat: bank letters, photos of furniture, a couple of voice memos. Could every kind of file get a folder? If a name's already taken in one of them, skip that file",
            &["organize-by-type/organize"],
            &[
                (0, "path", json!("Documents/Aunt Margit flat")),
                (0, "on_conflict", json!("skip")),
            ],
        ),
    ]);
}

/// "since last Friday" is a date; "what has gone into X" asks what came in, no deletion; an
/// archive named after a comma ("into one archive, Backup/x.zip,") is the target; a plural
/// after a year's folder goes on its name ("2025 sessions"); "remove the clips themselves" and
/// "those old sheets deleted once they're inside" delete the originals.
#[test]
fn dates_targets_and_originals_said_plainly() {
    check(&[
        (
            "what has gone into Documents/Summer fair since last Friday? the committee is asking for the stall plan",
            &["search-files/find_recent"],
            &[
                (0, "path", json!("Documents/Summer fair")),
                (0, "modified_after", json!("14days")),
            ],
        ),
        (
            "pack Documents/Uni application into one archive, Backup/uni-application.zip, before I press submit",
            &["archive-files/create"],
            &[
                (0, "source", json!(["Documents/Uni application"])),
                (0, "target", json!("Backup/uni-application.zip")),
            ],
        ),
        (
            "make a tar.gz out of Videos/Bouldering/2025 sessions and remove the clips themselves once it's done, I need the room",
            &["archive-files/create"],
            &[
                (0, "source", json!(["Videos/Bouldering/2025 sessions"])),
                (0, "delete_originals", json!(true)),
            ],
        ),
        (
            "Documents/Gym log: sheets from earlier than 2022 can be squashed into Archive/gym-old.zip, and those old sheets deleted once they're inside",
            &["search-files/find", "archive-files/create"],
            &[(1, "delete_originals", json!(true))],
        ),
    ]);
}

/// A verb's form before a slash names ("Ukulele group/concert …"); "running time" asks a
/// file's metadata; "in full" is all of a file's text, no fullness; "begin with rowing_
/// followed by its present name" puts text in front of each name.
#[test]
fn a_files_length_text_and_name_in_front() {
    check(&[
        (
            "Music/Ukulele group/concert run-through.mp3 — what's its running time?",
            &["parse-content/metadata"],
            &[(
                0,
                "path",
                json!("Music/Ukulele group/concert run-through.mp3"),
            )],
        ),
        (
            "display Documents/Hens/coop cleaning guide.pdf in full, I'm mucking out tomorrow",
            &["parse-content/extract_text"],
            &[(0, "path", json!("Documents/Hens/coop cleaning guide.pdf"))],
        ),
        (
            "each clip in Videos/Rowing should begin with rowing_ followed by its present name",
            &["manage-files/find", "batch-rename/rename"],
            &[(1, "pattern", json!("rowing_{name}.{ext}"))],
        ),
    ]);
}

/// "remove <a folder>" deletes it (manage-files' delete carries its own triggers), after a copy
/// too; removing duplicates is asked with words for copies.
#[test]
fn removing_a_folder_deletes_it() {
    check(&[
        (
            "remove Documents/Rowing club",
            &["manage-files/delete"],
            &[(0, "path", json!(["Documents/Rowing club"]))],
        ),
        (
            "handing the club laptop back to the boathouse tomorrow: Documents/Rowing club goes onto USB/Rowing as a copy, after which remove Documents/Rowing club here",
            &["manage-files/copy", "manage-files/delete"],
            &[
                (0, "target", json!("USB/Rowing")),
                (1, "path", json!(["Documents/Rowing club"])),
            ],
        ),
        (
            "remove the duplicates in Documents/Rowing club",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(0, "path", json!("Documents/Rowing club"))],
        ),
    ]);
}

/// Files of one kind taken to a folder are moved there, not sorted into type folders: sorting
/// by type has its own topic words (SKILL.md `topic`), and a general verb ("tidy", German
/// "aufräumen") means what the other topic words say ("doppelt": duplicates).
#[test]
fn moving_files_of_a_kind_is_no_sorting() {
    check(&[
        (
            ".m4a recordings of my Korean conversation practice keep piling up in Downloads; round up every file with that extension and relocate them to Music/Korean exchange",
            &["manage-files/find", "manage-files/move"],
            &[
                (0, "extension", json!("m4a")),
                (1, "target", json!("Music/Korean exchange")),
            ],
        ),
        (
            "in Bilder/Urlaub gibt's Fotos doppelt – bitte aufräumen, das ältere Exemplar bleibt",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(1, "keep", json!("oldest"))],
        ),
        (
            "tidy up Downloads",
            &["organize-by-type/organize"],
            &[(0, "path", json!("Downloads"))],
        ),
    ]);
}

/// "!" ends a sentence: "my study permit came through! Create …" is a heading, then the steps.
#[test]
fn an_exclamation_mark_ends_a_sentence() {
    check(&[(
        "my study permit came through! Create Documents/Montreal exchange/Visa and move Downloads/study permit.pdf and Downloads/biometrics letter.pdf into it",
        &["manage-files/create", "manage-files/move"],
        &[
            (0, "name", json!("Visa")),
            (
                1,
                "source",
                json!([
                    "Downloads/study permit.pdf",
                    "Downloads/biometrics letter.pdf"
                ]),
            ),
            (1, "target", json!("$step(1).created[0]")),
        ],
    )]);
}

/// "hang on to the one with the most pixels and drop its siblings" keeps the largest of each
/// lookalike group and removes the rest, in one step; a name before a heading's colon ends in a
/// verb's form ("Music/Ukulele group:"), and a misspelt "hypens" are hyphens.
#[test]
fn which_copy_stays_and_what_a_name_holds() {
    check(&[
        (
            "Pictures/Cornwall surf is mostly burst shots of me falling off the board and loads are nearly the same. Of each lookalike bunch, hang on to the one with the most pixels and drop its siblings",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[
                (0, "path", json!("Pictures/Cornwall surf")),
                (0, "similar", json!(true)),
                (1, "keep", json!("largest")),
            ],
        ),
        (
            "Music/Ukulele group: replce the hypens in evry filename with spaces",
            &["manage-files/find", "batch-rename/rename"],
            &[
                (0, "path", json!("Music/Ukulele group")),
                (1, "find", json!("-")),
                (1, "replace", json!(" ")),
            ],
        ),
    ]);
}

/// "swap Voice for Jiwoo chat in each name": the new text goes on up to "in each name".
#[test]
fn new_text_of_two_words() {
    check(&[(
        "our call recordings in Music/Korean exchange are all 'Voice 001.m4a', 'Voice 002.m4a' and so on; swap Voice for Jiwoo chat in each name",
        &["manage-files/find", "batch-rename/rename"],
        &[
            (1, "find", json!("Voice")),
            (1, "replace", json!("Jiwoo chat")),
        ],
    )]);
}

/// "whose last change predates January 2024": a date, never a typo ("creates") nor a folder.
#[test]
fn a_date_said_with_predates() {
    check(&[(
        "Documents/Wine club still holds tasting sheets from the 2022 and 2023 seasons; move every file whose last change predates January 2024 to Archive/Wine club",
        &["search-files/find", "manage-files/move"],
        &[
            (0, "path", json!("Documents/Wine club")),
            (0, "modified_before", json!("2024-01-01")),
            (1, "target", json!("Archive/Wine club")),
        ],
    )]);
}

/// Safety: "list X, then delete the clips in it older than two weeks" deleted the whole folder
/// ("it" was the folder looked at, and the filter was dropped); now the old clips in it.
#[test]
fn files_chosen_in_a_folder_looked_at_are_what_goes() {
    check(&[(
        "list Videos/Doorbell camera/Motion for me, then delete the clips in it older than two weeks",
        &[
            "manage-files/list",
            "search-files/find",
            "manage-files/delete",
        ],
        &[
            (1, "path", json!("Videos/Doorbell camera/Motion")),
            (1, "modified_before", json!("14days")),
            (2, "path", json!("$step(2).nodes")),
        ],
    )]);
}

/// "a muddle of shift rotas" says what is there ("shift" after "of" names, it moves nothing),
/// and "File each by subject into Rotas, Donations and Emails" is a change of its own: the
/// heading is not joined to it, so its list of categories still closes it.
#[test]
fn a_heading_of_nouns_and_a_placing_verb_after_it() {
    check(&[(
        "Documents/Food bank rota is a muddle of shift rotas, donation lists and emails. File each by subject into Rotas, Donations and Emails; finally archive the whole folder as Backup/food-bank.zip",
        &[
            "organize-by-content/classify",
            "organize-by-content/sort",
            "archive-files/create",
        ],
        &[
            (0, "path", json!("Documents/Food bank rota")),
            (0, "categories", json!("Rotas, Donations, Emails")),
            (2, "target", json!("Backup/food-bank.zip")),
        ],
    )]);
}

/// "what kinds of file make X so heavy? … compress it … and delete the originals": an analysis
/// ("heavy" is its keyword), then "it" is the folder analysed, never the largest files the
/// analysis lists (those alone would have been packed and deleted).
#[test]
fn compressing_what_was_analysed_takes_the_folder() {
    check(&[(
        "what kinds of file make Backup/Old camera card so heavy? once you've reported, compress it as Backup/old-camera-card.tar.zst and delete the originals",
        &["analyze-directory/analyze", "archive-files/create"],
        &[
            (0, "path", json!("Backup/Old camera card")),
            (1, "source", json!(["Backup/Old camera card"])),
            (1, "delete_originals", json!(true)),
        ],
    )]);
}
