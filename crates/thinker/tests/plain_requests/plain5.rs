//! Regressions found reading plain5 (issue 19): folder names that go on with a noun, "those
//! repeats" after a header, affixes and tags named as such, "inside", German "namens".

use serde_json::json;

use super::check;

/// Folder names that go on with a noun in lower case ("Shop/Product photos", "Documents/Old
/// school reports") where the name plainly ends.
#[test]
fn folder_names_that_go_on_with_a_noun() {
    check(&[
        (
            "lowercase every .jpg name in Shop/Product photos; when done, list that folder for a quick check",
            &[
                "manage-files/find",
                "batch-rename/rename",
                "manage-files/list",
            ],
            &[
                (0, "path", json!("Shop/Product photos")),
                (2, "path", json!("Shop/Product photos")),
            ],
        ),
        (
            "the buyer collects the laptop on Saturday: copy Documents/Household bills onto USB/Household, and after that wipe Documents/Household bills from this machine",
            &["manage-files/copy", "manage-files/delete"],
            &[(1, "path", json!(["Documents/Household bills"]))],
        ),
        (
            "Documents/Old school reports came off Mum's computer; I'd like a breakdown by file type of what's in there",
            &["analyze-directory/analyze"],
            &[(0, "path", json!("Documents/Old school reports"))],
        ),
        (
            "Games/Minecraft/downloads belongs to my son and he'd be furious if things moved. Can you just preview the sorting by type, with counts per category?",
            &["organize-by-type/preview_categories"],
            &[(0, "path", json!("Games/Minecraft/downloads"))],
        ),
    ]);
}

/// What the words say beside the folder: "those repeats" after a header, "the prefix mc_", a
/// quoted tag before "tag", "inside" a folder just made, "a second one", German "namens".
#[test]
fn what_a_header_names_affixes_tags_and_inside() {
    check(&[
        (
            "Shop/Incoming has the same supplier invoices saved several times; remove those repeats, and after that group the loose files into folders by type",
            &[
                "remove-duplicates/scan",
                "remove-duplicates/remove",
                "organize-by-type/organize",
            ],
            &[
                (0, "path", json!("Shop/Incoming")),
                (2, "path", json!("Shop/Incoming")),
            ],
        ),
        (
            "give each picture in Pictures/Screenshots/Minecraft the prefix mc_ before its current name",
            &["manage-files/find", "batch-rename/rename"],
            &[(1, "pattern", json!("mc_{name}.{ext}"))],
        ),
        (
            "Documents/Insurance/contents policy 2026.pdf needs a 'Renewal due' tag",
            &["manage-files/tag"],
            &[(0, "add", json!("Renewal due"))],
        ),
        (
            "I'll keep Noah's birth papers in a new folder Documents/Baby/Birth certificate; create it and shift Downloads/birth-cert-scan.pdf plus Downloads/registration-letter.pdf inside",
            &["manage-files/create", "manage-files/move"],
            &[(1, "target", json!("$step(1).created[0]"))],
        ),
        (
            "the pet sitter also needs Documents/Pets/feeding plan.docx, so a second one in USB/Pet sitter please",
            &["manage-files/copy"],
            &[(0, "target", json!("USB/Pet sitter"))],
        ),
        (
            "ich brauche unter Dokumente einen Ordner namens Reisepässe, kannst du den erstellen?",
            &["manage-files/create"],
            &[(0, "name", json!("Reisepässe"))],
        ),
    ]);
}

/// Dates bounded by a bare year, a misspelt word read as the lexicon reads the right one, a
/// replacement said with "change … to", and a question about what the agent can do.
#[test]
fn bare_years_misspellings_and_what_the_agent_can_do() {
    check(&[
        (
            "the statements in Documents/Bank statements from before 2020 could be tucked away in Archive/statements-old.zip, and the loose originals removed",
            &["search-files/find", "archive-files/create"],
            &[
                (0, "path", json!("Documents/Bank statements")),
                (0, "modified_before", json!("2020-01-01")),
            ],
        ),
        (
            "sumarise Documents/Pets/hip xray report.pdf for me in plain wrds, the vet talked too fast",
            &["parse-content/summarize"],
            &[(0, "path", json!("Documents/Pets/hip xray report.pdf"))],
        ),
        (
            "Music/Band rehearsals: chnage evry space in the nmes to an undrscore",
            &["manage-files/find", "batch-rename/rename"],
            &[(1, "find", json!(" ")), (1, "replace", json!("_"))],
        ),
        (
            "I'd like to print my recipes as a little booklet. Is that something you can manage?",
            &["skill-search/search"],
            &[],
        ),
    ]);
}

/// Names read whole: a name cut short where another part says it in full, words of a file's
/// name with spaces, an ordinal in a name, a middle part in lower case, a possessive, a
/// misspelt common folder deeper in a path, a name after "file", pictures "of" someone.
#[test]
fn names_read_whole() {
    check(&[
        (
            "Music/Band admin mixes gig contracts, setlists and invoices; sort them by content into Gigs, Setlists and Money, and then archive Music/Band admin as Backup/band-admin.tar.gz",
            &[
                "organize-by-content/classify",
                "organize-by-content/sort",
                "archive-files/create",
            ],
            &[(0, "path", json!("Music/Band admin"))],
        ),
        (
            "Desktop/old listing photos.zip has served its purpose; please get rid of it",
            &["manage-files/delete"],
            &[(0, "path", json!(["Desktop/old listing photos.zip"]))],
        ),
        (
            "Pictures/Baby first year has about two thousand photos of Noah in one long list; I want one folder per month so I can find his first steps",
            &["organize-by-type/by_date"],
            &[
                (0, "path", json!("Pictures/Baby first year")),
                (0, "pattern", json!("{year}/{month}")),
            ],
        ),
        (
            "the product photos in Shop/Product photos/Mugs are IMG_5512.jpg, IMG_5513.jpg and so on; make them mug_01.jpg, mug_02.jpg, mug_03.jpg instead",
            &["manage-files/find", "batch-rename/rename"],
            &[
                (0, "path", json!("Shop/Product photos/Mugs")),
                (1, "pattern", json!("mug_{n:02}.{ext}")),
            ],
        ),
        (
            "the files copied off Dad's old PC into Documents/From Dad's PC are all in one heap; give each kind of file its own folder",
            &["organize-by-type/organize"],
            &[(0, "path", json!("Documents/From Dad's PC"))],
        ),
        (
            "plz orgnise Pictures/Screenshtos by wat kind of fil each one is",
            &["organize-by-type/organize"],
            &[(0, "path", json!("Pictures/Screenshots"))],
        ),
        (
            "on the Desktop, make a text file vet questions.txt containing 'ask about his limp and the ear drops'",
            &["manage-files/create"],
            &[
                (0, "path", json!("Desktop")),
                (0, "name", json!("vet questions.txt")),
            ],
        ),
        (
            "Downloads/Chat exports is twenty files all called chat (1).txt, chat (2).txt and so on; could each one be named after what the conversation is about?",
            &["organize-by-content/name"],
            &[(0, "path", json!("Downloads/Chat exports"))],
        ),
    ]);
}

/// What the words around the step say: originals named as such, deleting "the recordings once
/// they're packed", every subfolder said as "subfolder by subfolder", a dotfile given as an
/// example of hidden files, a kind the folder is named after, what a folder "wants".
#[test]
fn originals_subfolders_examples_and_wishes() {
    check(&[
        (
            "remove repeated recordings from Music/Band rehearsals, but the files in Music/Band rehearsals/Keepers are our originals and must not be changed",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(1, "reference", json!(["Music/Band rehearsals/Keepers"]))],
        ),
        (
            "Music/Band rehearsals/2024 can turn into one tar.gz file; delete the recordings once they're packed, the drive is almost full",
            &["archive-files/create"],
            &[(0, "delete_originals", json!(true))],
        ),
        (
            "list Writing/Novel completely, subfolder by subfolder, every chapter draft included",
            &["manage-files/list"],
            &[(0, "recursive", json!(true))],
        ),
        (
            "Shop/Website: list what's in there, hidden files such as .htaccess included",
            &["manage-files/list"],
            &[(0, "include_hidden", json!(true))],
        ),
        (
            "plese compres my lectur slides from Documents/Course/Slides into Bakcup/slides.zip",
            &["archive-files/create"],
            &[(0, "source", json!(["Documents/Course/Slides"]))],
        ),
        (
            "Pictures/Screenshots wants a folder for every year; when that's finished, squash Pictures/Screenshots/2023 into Backup/screenshots-2023.zip",
            &["organize-by-type/by_date", "archive-files/create"],
            &[(0, "pattern", json!("{year}"))],
        ),
        (
            "the language school emailed Downloads/unit-5-audio.zip. Could its files end up in Music/Spanish course?",
            &["archive-files/extract"],
            &[(0, "target", json!("Music/Spanish course"))],
        ),
        (
            "no time to read Documents/Spanish course/course handbook.pdf, so tell me briefly what it covers",
            &["parse-content/summarize"],
            &[],
        ),
        (
            "Writing/Novel/Old drafts is only text but takes ages to copy; turn it into one compressed file",
            &["archive-files/create"],
            &[(0, "source", json!(["Writing/Novel/Old drafts"]))],
        ),
        (
            "the storage bar turned red this morning. Could you work out what inside Videos/Baby eats all that room?",
            &["analyze-directory/analyze"],
            &[(0, "path", json!("Videos/Baby"))],
        ),
        (
            "is there a skill here for making a PDF out of a chat export? should there be none, set up chat-to-pdf to do that",
            &["skill-search/search", "skill-create/create"],
            &[(1, "name", json!("chat-to-pdf"))],
        ),
    ]);
}
