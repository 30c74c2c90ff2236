//! Regressions found reading plain11 (issue 19): asking for what no tool does is a question
//! about the agent's skills, and more.

use serde_json::json;

use super::check;
use super::support::{PlanningWorld, rule_plan};
use config::PipelineConfig;

/// "could you remove the wind noise from my helmet cam videos?" planned a find of every video and
/// a delete of them; "put subtitles on my salsa videos" the same. Taking something that is no
/// file out of files, putting something on files, and a verb no tool knows ("transcribe") ask
/// what the agent can do. Files named as what is taken out are still removed.
#[test]
fn asking_for_what_no_tool_does_looks_the_skills_up() {
    check(&[
        (
            "could you remove the wind noise from my helmet cam videos?",
            &["skill-search/search"],
            &[],
        ),
        (
            "would you manage to put subtitles on my salsa videos?",
            &["skill-search/search"],
            &[],
        ),
        (
            "can yuo remove the backround from product fotos?",
            &["skill-search/search"],
            &[],
        ),
        (
            "can u transcrbe my recordngs into notaton?",
            &["skill-search/search"],
            &[],
        ),
        (
            "can you post the bowls club's weekend results to our Facebook page?",
            &["skill-search/search"],
            &[],
        ),
        (
            "can you remove the duplicates from my photos?",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[],
        ),
        (
            "remove the PDFs from my downloads",
            &["manage-files/find", "manage-files/delete"],
            &[],
        ),
    ]);
}

/// "turn Videos/Volleyball into a tar.gz and get rid of the clips afterwards" planned only a
/// delete of the clips: "turn" is a verb, so the archive is a step; a format alone names no
/// archive ("into a tar.gz" is `Videos/Volleyball.tar.gz`, not a file called `tar.gz`); "delete
/// the source folder" is the archive's `delete_originals`, not a delete of a folder called
/// "source".
#[test]
fn an_archive_said_by_its_format_is_made_and_its_source_folder_deleted_by_it() {
    check(&[
        (
            "make Documents/Quiz into a tar.gz",
            &["archive-files/create"],
            &[
                (0, "target", json!("Documents/Quiz.tar.gz")),
                (0, "format", json!("tar.gz")),
            ],
        ),
        (
            "turn Videos/Volleyball into a tar.gz and get rid of the clips afterwards",
            &[
                "archive-files/create",
                "manage-files/find",
                "manage-files/delete",
            ],
            &[(0, "target", json!("Videos/Volleyball.tar.gz"))],
        ),
        (
            "compress Backup/Repairs to Backup/repairs.tar.zst and delete the source folder",
            &["archive-files/create"],
            &[(0, "delete_originals", json!(true))],
        ),
        // The place of the names stays said when a text in them is turned into another.
        (
            "Wallpapers/4K file names are full of %20 — turn those into real spaces",
            &["manage-files/find", "batch-rename/rename"],
            &[
                (0, "path", json!("Wallpapers/4K")),
                (1, "find", json!("%20")),
                (1, "replace", json!(" ")),
            ],
        ),
    ]);
}

/// "does any existing skill do that? otherwise create bridge-hand-pdf for it" planned a find of
/// a file called bridge-hand-pdf and a delete of it: "otherwise create X" after a skill search
/// is the new skill (a trigger in skill-create's SKILL.md).
#[test]
fn otherwise_create_after_a_skill_search_makes_the_skill() {
    check(&[(
        "bridge hand records → printable PDFs: does any existing skill do that? otherwise create bridge-hand-pdf for it",
        &["skill-search/search", "skill-create/create"],
        &[(1, "name", json!("bridge-hand-pdf"))],
    )]);
}

/// "Documents/Quartet parts has most of the Dvořák in triplicate. Get rid of the identical ones
/// and hold on to the most recent copy" scanned a folder called "Dvořák" for `.part` files twice
/// and kept any copy: a name after "of" beside a path is what the files are, "parts" is no
/// extension, the same steps said again are the steps before, and "the most recent" copy is
/// which copy stays (not files changed this week). "from Saturday's bout" is no folder either,
/// and "practically identical" is near-duplicates.
#[test]
fn the_same_duplicate_removal_said_twice_is_one_and_keeps_the_copy_said() {
    check(&[
        (
            "the quartet's parts get forwarded round by email, so Documents/Quartet parts has most of the Dvořák in triplicate. Get rid of the identical ones and hold on to the most recent copy",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[
                (0, "path", json!("Documents/Quartet parts")),
                (1, "keep", json!("newest")),
            ],
        ),
        (
            "Pictures/Roller derby is burst after burst from Saturday's bout and loads look practically identical. From every such group keep the highest-resolution frame, ditch the rest",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[
                (0, "path", json!("Pictures/Roller derby")),
                (0, "similar", json!(true)),
                (1, "keep", json!("largest")),
            ],
        ),
        (
            "delete the .part files in Downloads",
            &["manage-files/find", "manage-files/delete"],
            &[(0, "extension", json!("part"))],
        ),
    ]);
}

/// "Pictures/Llama trek: make a safety copy at Backup/Llama trek" copied the backup onto nothing:
/// "a safety copy at X" says where the copy goes, and what the first step sends there, naming
/// nothing, is the folder the request is about. "…, Pictures/Jigsaws/Venice 1000.jpg; could it
/// also sit on USB/Grandpa?" scanned the USB stick for duplicates: the path said last names what
/// "it" is, and where it also sits is where a copy goes.
#[test]
fn a_copy_said_by_where_it_sits_copies_the_folder_or_file_named() {
    check(&[
        (
            "Pictures/Llama trek: make a safety copy at Backup/Llama trek",
            &["manage-files/copy"],
            &[
                (0, "source", json!(["Pictures/Llama trek"])),
                (0, "target", json!("Backup/Llama trek")),
            ],
        ),
        (
            "Grandpa wants the finished Venice puzzle photo too, Pictures/Jigsaws/Venice 1000.jpg; could it also sit on USB/Grandpa?",
            &["manage-files/copy"],
            &[
                (0, "source", json!(["Pictures/Jigsaws/Venice 1000.jpg"])),
                (0, "target", json!("USB/Grandpa")),
            ],
        ),
    ]);
}

/// Names and conditions read from plain11: "Backup/Hills beforehand" ends before the adverb;
/// "Downloads/Zine issue 4" goes on to its number (not "past 8 GB"); "Move that whole folder
/// into X" moves the folder named before (it moved nothing); "asking me whenever a filename
/// clashes" asks on a clash; "where that name exists there already, keep both" keeps both.
#[test]
fn names_end_before_an_adverb_go_on_to_a_number_and_conditions_set_the_clash_rule() {
    check(&[
        (
            "IT are reimaging my laptop Monday. Duplicate Pictures/Munros onto Backup/Hills beforehand",
            &["manage-files/copy"],
            &[(0, "target", json!("Backup/Hills"))],
        ),
        (
            "my co-editor sent a folder of layouts, Downloads/Zine issue 4. Move that whole folder into Projects/Zine",
            &["manage-files/move"],
            &[
                (0, "source", json!(["Downloads/Zine issue 4"])),
                (0, "target", json!("Projects/Zine")),
            ],
        ),
        (
            "Mrs Hale's exam pieces arrived as Downloads/harp-exam-pieces.zip. Extract to Music/Harp, asking me whenever a filename clashes with something existing",
            &["archive-files/extract"],
            &[(0, "on_conflict", json!("ask"))],
        ),
        (
            "Half the lathe stuff already lives in type folders inside Projects/Woodturning since my spring clear-out, but bowl sketches, sanding videos and a timber-species chart have crept back in loose. Put each loose one in its category folder; where that name exists there already, keep both",
            &["organize-by-type/organize"],
            &[(0, "on_conflict", json!("rename"))],
        ),
    ]);
}

/// "The estate agent, the solicitor and the surveyor all send attachments, … Sort by file type,
/// but make the type folders in Documents/House sale instead" planned only a new skill (with the
/// whole request as its description): an agent with a noun before it is a person, not this
/// agent, so the sort is planned, into the folder said.
#[test]
fn an_estate_agent_is_no_request_for_a_skill() {
    let world = PlanningWorld::shipped(PipelineConfig::default());
    let steps = rule_plan(
        &world,
        "The estate agent, the solicitor and the surveyor all send attachments, so Downloads/House sale is a soup of PDFs, floor plans and photos. Sort by file type, but make the type folders in Documents/House sale instead",
    );
    assert!(
        steps.iter().all(|s| !s.skill.starts_with("skill-")),
        "{steps:?}"
    );
    let sort = steps
        .iter()
        .find(|s| s.skill == "organize-by-type" && s.tool == "organize")
        .expect("the sort is planned");
    assert_eq!(
        sort.params["target"],
        json!("Documents/House sale"),
        "{steps:?}"
    );
}

/// "every scan in X should start with bind_ and then whatever it's called now" made a folder
/// called "now"; "Pictures/Cat shows: number of photos plus total megabytes?" renamed every
/// photo with a number. The name a file has now is no part of its own, and "number of" counts.
#[test]
fn the_name_it_has_now_is_no_step_and_a_number_of_things_is_no_numbering() {
    check(&[(
        "every scan in Documents/Bookbinding/Templates should start with bind_ and then whatever it's called now",
        &["manage-files/find", "batch-rename/rename"],
        &[(1, "pattern", json!("bind_{name}.{ext}"))],
    )]);
    let world = PlanningWorld::shipped(PipelineConfig::default());
    let steps = rule_plan(
        &world,
        "Pictures/Cat shows: number of photos plus total megabytes?",
    );
    assert!(steps.iter().all(|s| s.skill != "batch-rename"), "{steps:?}");
}

/// "make a new folder in Documents" planned a find of every file in Documents and a delete of
/// them (and "make a folder" a delete of nothing yet): `manage-files/delete` is `asked_with`
/// its words, so a part that says none is never read as a delete. Casual words still ask.
#[test]
fn a_delete_is_planned_only_when_asked_for() {
    check(&[
        (
            "make a new folder in Documents",
            &["manage-files/create"],
            &[(0, "path", json!("Documents"))],
        ),
        (
            "the .tmp files in Downloads can go",
            &["manage-files/find", "manage-files/delete"],
            &[(0, "extension", json!("tmp"))],
        ),
        (
            "chuck the .log files in Downloads",
            &["manage-files/find", "manage-files/delete"],
            &[(0, "extension", json!("log"))],
        ),
    ]);
    let world = PlanningWorld::shipped(PipelineConfig::default());
    for text in ["make a folder", "create bridge-hand-pdf for it"] {
        let steps = rule_plan(&world, text);
        assert!(
            steps.iter().all(|s| s.tool != "delete"),
            "{text}: {steps:?}"
        );
    }
}

/// "Show me its text, and once I've seen it, shelve it in Documents/Judo" moved nothing;
/// "mark it with a Discussed tag" tagged it "a Discussed tag"; "set up a League subfolder"
/// made a folder with no name; "rank its ten heftiest files" searched for "heftiest".
#[test]
fn shelving_a_tag_said_with_an_article_a_named_subfolder_and_the_heftiest() {
    check(&[
        (
            "Sensei emailed Downloads/judo grading results.pdf. Show me its text, and once I've seen it, shelve it in Documents/Judo",
            &["parse-content/extract_text", "manage-files/move"],
            &[(1, "target", json!("Documents/Judo"))],
        ),
        (
            "mark Documents/Bowls club/green fees proposal.pdf with a Discussed tag",
            &["manage-files/tag"],
            &[(0, "add", json!("Discussed"))],
        ),
        (
            "Set up a League subfolder under Projects/Pinball and relocate all the CSVs sitting in Downloads to it",
            &[
                "manage-files/create",
                "manage-files/find",
                "manage-files/move",
            ],
            &[(0, "name", json!("League"))],
        ),
        (
            "Projects/Laser cutting: rank its ten heftiest files",
            &["analyze-directory/analyze"],
            &[(0, "top_n", json!(10))],
        ),
    ]);
}

/// "… came zipped as Downloads/parkrun-photos-march.zip. Unzip into Pictures/parkrun/March"
/// unzipped nothing: the file a heading says things became is the file the rest is about.
/// "…land in Downloads as .pdf files; collect the lot into X" moved the whole of Downloads:
/// "the lot" is what the heading names. "Backup/Old repair PC" goes on to its acronym.
#[test]
fn a_heading_that_names_a_file_or_files_is_what_the_rest_acts_on() {
    check(&[
        (
            "volunteer photographers' March parkrun shots came zipped as Downloads/parkrun-photos-march.zip. Unzip into Pictures/parkrun/March; afterwards daily folders please",
            &["archive-files/extract", "organize-by-type/by_date"],
            &[
                (0, "path", json!("Downloads/parkrun-photos-march.zip")),
                (1, "pattern", json!("{year}/{month}/{day}")),
            ],
        ),
        (
            "bought harp arrangements land in Downloads as .pdf files; collect the lot into Music/Harp/Sheets and afterwards check for duplicate sheets there",
            &[
                "manage-files/find",
                "manage-files/move",
                "remove-duplicates/scan",
            ],
            &[
                (0, "extension", json!("pdf")),
                (1, "target", json!("Music/Harp/Sheets")),
            ],
        ),
        (
            "my retro-repair desktop's old drive image sits at Backup/Old repair PC. How's it split across file kinds? Then compress it to Backup/old-repair-pc.tar.zst and delete the source folder",
            &["analyze-directory/analyze", "archive-files/create"],
            &[
                (0, "path", json!("Backup/Old repair PC")),
                (1, "delete_originals", json!(true)),
            ],
        ),
    ]);
}

/// "last modified prior to 1 March 2023" and "pre-2021" are dates (nothing was chosen by age),
/// and "don't leave the originals behind" deletes them once packed.
#[test]
fn prior_to_a_date_pre_a_year_and_originals_not_left_behind() {
    check(&[
        (
            "old babysitting-circle rotas: whatever in Documents/Babysitting circle was last modified prior to 1 March 2023 should relocate to Archive/Babysitting",
            &["search-files/find", "manage-files/move"],
            &[
                (0, "modified_before", json!("2023-03-01")),
                (1, "target", json!("Archive/Babysitting")),
            ],
        ),
        (
            "catch records pre-2021 in Documents/Catch log: pack them into Archive/catch-old.zip so they stop cluttering, and don't leave the originals behind",
            &["search-files/find", "archive-files/create"],
            &[
                (0, "modified_before", json!("2021-01-01")),
                (1, "delete_originals", json!(true)),
            ],
        ),
    ]);
}

/// "I need the upshot quickly" summarises; "keeps gobbling gigabytes; what's responsible?" asks
/// what takes the space.
#[test]
fn the_upshot_is_a_summary_and_gobbled_gigabytes_are_space() {
    check(&[
        (
            "Documents/Judo/new grading syllabus.pdf: I need the upshot quickly, no detail",
            &["parse-content/summarize"],
            &[(0, "path", json!("Documents/Judo/new grading syllabus.pdf"))],
        ),
        (
            "Videos/Skating keeps gobbling gigabytes; what's responsible?",
            &["analyze-directory/analyze"],
            &[(0, "path", json!("Videos/Skating"))],
        ),
    ]);
}

/// "anything 2 GB and up should go over to External drive/Snowboard" searched the text of the
/// files for "and up should to": where things "go over to" is where they are moved.
#[test]
fn what_should_go_over_to_a_place_is_moved_there() {
    check(&[(
        "anything 2 GB and up in Videos/Snowboard trip should go over to External drive/Snowboard",
        &["search-files/find", "manage-files/move"],
        &[
            (0, "min_size", json!("2GB")),
            (1, "target", json!("External drive/Snowboard")),
        ],
    )]);
}
