//! Tests of what a request says in passing: a new file's text, where a copy goes, the master
//! copies, questions about the agent, headers that are only a name, examples of names, a name of
//! words ending in a file type, a place a story comes from, where things went before.

use expect_test::expect;

use super::check;

#[test]
fn what_a_new_file_says() {
    check(
        "make a note called vendors.txt in Wedding/Planning that just says 'call florist by friday'",
        expect![[r#"
            locations=["Wedding/Planning"]
            name=Some("vendors.txt")
            content=Some("call florist by friday")"#]],
    );
    check(
        "write Recipes/shopping.txt with 'rye flour, salt' in it",
        expect![[r#"
            objects=["Recipes/shopping.txt"]
            content=Some("rye flour, salt")"#]],
    );
}

#[test]
fn asking_what_the_agent_can_do() {
    // "that" after an unnamed thing points at nothing in particular.
    check(
        "yo do u have smth that can compress vids for discord?",
        expect![[r#"
            query=Some("discord")
            asks_ability=true"#]],
    );
    check(
        "do you already have something for renaming podcast episodes from their ID3 tags?",
        expect![[r#"
            query=Some("renaming podcast episodes")
            refers_back=true
            asks_ability=true"#]],
    );
    // A skill to make is no question.
    check(
        "can you make a skill that sorts invoices by year",
        expect![[r#""#]],
    );
}

#[test]
fn originals_that_stay_put_choose_no_copy_to_keep() {
    check(
        "copy Music/Live Sets over to Backup/Drive B, originals stay put",
        expect![[r#"
            objects=["Music/Live Sets"]
            targets=["Backup/Drive B"]"#]],
    );
    check(
        "dedupe Music, the originals survive",
        expect![[r#"
            objects=["Music"]
            keep=Some("oldest")"#]],
    );
}

#[test]
fn a_name_with_a_capital_before_folder_opening_a_request() {
    check(
        "VMs folder: top fifteen heaviest items please",
        expect![[r#"
        objects=["VMs"]
        limit=Some(15)"#]],
    );
    check(
        "Steam Library: which 8 files are the fattest?",
        expect![[r#"
        objects=["Steam Library"]
        limit=Some(8)"#]],
    );
}

#[test]
fn how_much_to_read_said_as_one_unit() {
    check(
        "Server/logs/auth.log.1 is huge, dump just its opening kilobyte",
        expect![[r#"
            objects=["Server/logs/auth.log.1"]
            max_bytes=Some(1024)"#]],
    );
}

#[test]
fn the_master_copies_and_the_ones_to_prefer() {
    check(
        "in Backup/Devices only one of each file should survive, and Backup/Devices/Laptop is the master",
        expect![[r#"
            locations=["Backup/Devices"]
            exclude=["Backup/Devices/Laptop"]"#]],
    );
    check(
        "dedupe Music/Samples with Music/Samples/Originals as the untouchable reference",
        expect![[r#"
            objects=["Music/Samples"]
            exclude=["Music/Samples/Originals"]"#]],
    );
    check(
        "clear doubled epubs, favouring whichever copy sits in Calibre Library/Main",
        expect![[r#"
            extensions=["epub"]
            priority=["Calibre Library/Main"]"#]],
    );
    check(
        "in Photography I only want one of each picture, preferring whatever lives in Photography/Masters",
        expect![[r#"
            locations=["Photography"]
            priority=["Photography/Masters"]"#]],
    );
}

#[test]
fn categories_listed_after_under() {
    check(
        "Lab Notebook/Papers: every pdf belongs under Proteomics, Imaging or Methods — judge by the topic",
        expect![[r#"
            objects=["Lab Notebook/Papers"]
            extensions=["pdf"]
            categories=["Proteomics", "Imaging", "Methods"]"#]],
    );
}

#[test]
fn an_example_of_the_names_is_no_file_to_act_on() {
    check(
        "Comics/CBZ names look like saga_vol_01.cbz — swap every underscore out for a blank space",
        expect![[r#"
            objects=["Comics/CBZ"]
            find=Some("_")
            replace=Some(" ")
            query=Some("a blank space")"#]],
    );
    check(
        "Contracts/Signed is all DocuSign_8f3a.pdf-style names",
        expect![[r#"objects=["Contracts/Signed"]"#]],
    );
}

#[test]
fn the_new_name_after_rename_it() {
    check(
        "then rename it tokyo-crossing.jpg",
        expect![[r#"
            name=Some("tokyo-crossing.jpg")
            refers_back=true"#]],
    );
}

#[test]
fn a_name_with_a_capital_inside_goes_on_with_the_path() {
    check(
        "Downloads/Old MacBook: sort it all by file type",
        expect![[r#"
            objects=["Downloads/Old MacBook"]
            refers_back=true"#]],
    );
}

#[test]
fn files_of_0_kb_are_empty() {
    check(
        "wipe the 0 KB files out of Dev/api-server/logs",
        expect![[r#"
        locations=["Dev/api-server/logs"]
        empty=true
        kind=Some("file")"#]],
    );
}

#[test]
fn where_things_could_live_is_where_they_go_and_hollow_is_empty() {
    check(
        "Dashcam/Footage keeps filling up; clips heavier than 2 GB can live on External/Dashcam",
        expect![[r#"
            objects=["Dashcam/Footage"]
            targets=["External/Dashcam"]
            extensions=["mp4", "mkv", "mov", "avi", "wmv", "webm", "m4v", "mpg", "mpeg", "flv", "3gp", "srt", "vtt", "ass"]
            min_size=Some("2GB")"#]],
    );
    check(
        "Minecraft/mods-backup has a bunch of hollow dirs, bin em",
        expect![[r#"
        objects=["Minecraft/mods-backup"]
        empty=true
        kind=Some("dir")"#]],
    );
}

#[test]
fn a_name_of_words_that_ends_in_a_file_type() {
    check(
        "create a note called packing list.txt on the Desktop that says 'kitchen first'",
        expect![[r#"
            locations=["Desktop"]
            name=Some("packing list.txt")
            content=Some("kitchen first")"#]],
    );
}

/// Regression: the trip's days were sorted into folders in a folder "Portugal".
#[test]
fn a_place_the_story_comes_from_is_no_folder() {
    check(
        "we got back from Portugal with 900 shots in Pictures/Lisbon 2026",
        expect![[r#"locations=["Pictures/Lisbon 2026"]"#]],
    );
}

#[test]
fn every_subfolder_said_is_recursive() {
    check(
        "dedupe Photos/Scans including every subfolder",
        expect![[r#"
            objects=["Photos/Scans"]
            recursive=Some(true)"#]],
    );
    check(
        "list everything under Projects/woodworking, including what sits in its subfolders",
        expect![[r#"
            locations=["Projects/woodworking"]
            recursive=Some(true)
            whole_root=true"#]],
    );
}

#[test]
fn where_things_went_before_is_where_they_are() {
    check(
        "show me what got put into Desktop/Documents",
        expect![[r#"
            locations=["Desktop/Documents"]"#]],
    );
    check(
        "put the receipts into Desktop/Documents",
        expect![[r#"
            targets=["Desktop/Documents"]"#]],
    );
}
