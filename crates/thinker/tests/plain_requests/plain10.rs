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
