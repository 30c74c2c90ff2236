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
