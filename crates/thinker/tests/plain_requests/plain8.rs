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
