//! Regressions found reading plain4 (issue 19): folder names, where a step's folders go, files
//! named beside a folder, casual words.

use serde_json::json;

use super::check;

/// Regressions of plain4: folders named past a kind of file or an ordinal, the folders a step
/// makes put elsewhere by a later part, a file read "from that folder", an archive that came
/// "as" a name, and what a folder "holds".
#[test]
fn folders_named_past_a_kind_and_where_a_steps_folders_go() {
    check(&[
        (
            "change the names of the .png files in Pictures/Blog images to lowercase, then list that folder so I can check them",
            &[
                "manage-files/find",
                "batch-rename/rename",
                "manage-files/list",
            ],
            &[
                (0, "path", json!("Pictures/Blog images")),
                (2, "path", json!("Pictures/Blog images")),
            ],
        ),
        (
            "copy Pictures/Grandpa 80th to Backup, then make a zip of the copy called Backup/grandpa-80th.zip",
            &["manage-files/copy", "archive-files/create"],
            &[(0, "source", json!(["Pictures/Grandpa 80th"]))],
        ),
        (
            "Backup/Phone backups swallowed half my drive. Break down what's in it by size for me",
            &["analyze-directory/analyze"],
            &[(0, "path", json!("Backup/Phone backups"))],
        ),
        (
            "we got back from Portugal with 900 shots in Pictures/Lisbon 2026; split them up so each day of the trip gets its own folder",
            &["organize-by-type/by_date"],
            &[(0, "path", json!("Pictures/Lisbon 2026"))],
        ),
        (
            "tidy Downloads into per-type folders, and make those folders live in Documents/Sorted downloads rather than inside Downloads itself",
            &["organize-by-type/organize"],
            &[
                (0, "path", json!("Downloads")),
                (0, "target", json!("Documents/Sorted downloads")),
            ],
        ),
        (
            "sort the loose files in Documents/Work laptop export by type, and build those type folders inside Backup/Old job instead",
            &["organize-by-type/organize"],
            &[(0, "target", json!("Backup/Old job"))],
        ),
        (
            "list what's in Projects/woodworking/plans; after that, read me 'workbench cut list.txt' from that folder",
            &["manage-files/list", "parse-content/extract_text"],
            &[(
                1,
                "path",
                json!("Projects/woodworking/plans/workbench cut list.txt"),
            )],
        ),
        (
            "the granny-square blanket pattern came as Downloads/crochet-blanket.zip; I'd like its contents laid out in Documents/Crochet",
            &["archive-files/extract"],
            &[
                (0, "path", json!("Downloads/crochet-blanket.zip")),
                (0, "target", json!("Documents/Crochet")),
            ],
        ),
        (
            "would you have a look at what Projects/blog holds, every level down?",
            &["manage-files/list"],
            &[(0, "recursive", json!(true))],
        ),
        (
            "create a note called packing list.txt on the Desktop that says 'kitchen first, books last'",
            &["manage-files/create"],
            &[(0, "name", json!("packing list.txt"))],
        ),
        (
            "there are dupes all over Books; keep the oldest of each",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(0, "path", json!("Books")), (1, "keep", json!("oldest"))],
        ),
        (
            "I'm curious which fifteen recordings hog Videos/Lectures the most; list them biggest first",
            &["analyze-directory/analyze"],
            &[(0, "top_n", json!(15))],
        ),
        (
            "cna you peek inot Backup/esports-replays-s3.tar.gz wihtout unpaking anything",
            &["archive-files/list"],
            &[(0, "path", json!("Backup/esports-replays-s3.tar.gz"))],
        ),
        (
            "Cider/Label Designs ngl has mad dupes rn, bin the clones",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(0, "path", json!("Cider/Label Designs"))],
        ),
        (
            "Stickerei/Muster: von mehrfach vorhandenen Stickdateien bitte immer nur das älteste Exemplar aufheben",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(1, "keep", json!("oldest"))],
        ),
        (
            "why does Pictures weigh so much — which types of file are to blame?",
            &["analyze-directory/analyze"],
            &[(0, "path", json!("Pictures"))],
        ),
        (
            "my laptop warns that the disk is nearly full; what in Downloads is responsible?",
            &["analyze-directory/analyze"],
            &[(0, "path", json!("Downloads"))],
        ),
        (
            "ugh, my Desktop has turned into a junk drawer once more",
            &["organize-by-type/organize"],
            &[(0, "path", json!("Desktop"))],
        ),
    ]);
}

/// Text quoted in an earlier part and named again as "that bit"; a folder said in brackets;
/// files "got rid of".
#[test]
fn text_quoted_before_and_a_folder_in_brackets() {
    check(&[
        (
            "the phone names every photo in Pictures/Camping 'IMG_'; swap that bit for 'camp_' in all the names",
            &["manage-files/find", "batch-rename/rename"],
            &[
                (0, "path", json!("Pictures/Camping")),
                (1, "find", json!("IMG_")),
                (1, "replace", json!("camp_")),
            ],
        ),
        (
            "every scan of my school reports (Documents/School reports) should start with 'report_'",
            &["manage-files/find", "batch-rename/rename"],
            &[(0, "path", json!("Documents/School reports"))],
        ),
        (
            "get rid of the .tmp files in Downloads",
            &["manage-files/find", "manage-files/delete"],
            &[(0, "path", json!("Downloads"))],
        ),
    ]);
}

/// The person's own categories ask for the files to be read; the verb a tool's description opens
/// with ("move each into …", "tag the letters …"); files described by what they are, then "them";
/// what is gone through is what "every one" means; a tag named before "afterwards".
#[test]
fn own_categories_and_files_described_before_them() {
    check(&[
        (
            "the bank letters in Documents/Letters: move each into Loans, Savings or Cards depending on what it's about",
            &["organize-by-content/classify", "organize-by-content/sort"],
            &[
                (0, "path", json!("Documents/Letters")),
                (0, "categories", json!("Loans, Savings, Cards")),
            ],
        ),
        (
            "Mail/Scans is filling up — go through the letters and move every one into Bills, Health or School based on its content",
            &["organize-by-content/classify", "organize-by-content/sort"],
            &[(0, "categories", json!("Bills, Health, School"))],
        ),
        (
            "tag the letters in Documents/Post by what they say",
            &["organize-by-content/classify", "organize-by-content/tag"],
            &[(0, "path", json!("Documents/Post"))],
        ),
        (
            "Scans/Deeds: renumber the scans deed_001.tif, deed_002.tif and so on, and label each of them Land Registry afterwards",
            &[
                "manage-files/find",
                "batch-rename/rename",
                "manage-files/tag",
            ],
            &[(2, "add", json!("Land Registry"))],
        ),
        (
            "the podcasts I saved are .mp3 files lying around in Downloads; move them to Music/Podcasts",
            &["manage-files/find", "manage-files/move"],
            &[
                (0, "path", json!("Downloads")),
                (0, "extension", json!("mp3")),
                (1, "target", json!("Music/Podcasts")),
            ],
        ),
    ]);
}
