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
