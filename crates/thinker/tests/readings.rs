//! Requests read the way the person means them, through the shipped skills and the rule planner:
//! questions about the agent's skills, things said only as if, German word order, and where a
//! step takes its folder from. One case per reading that was once wrong (issue 19, dev6 set).

mod support;

use serde_json::Value;
use support::check_readings as check;

#[test]
fn a_question_naming_the_agents_skills_looks_them_up_and_asking_for_a_new_one_makes_it() {
    check(&[
        (
            "any skil that can renmae fonts by famly name?",
            &["skill-search/search"],
            &[],
        ),
        (
            "ngl it'd be sick if u could OCR my scans — got a skill for that?",
            &["skill-search/search"],
            &[],
        ),
        (
            "kannst du auch Dateien verschlüsseln, oder gibt's dafür nix?",
            &["skill-search/search"],
            &[],
        ),
        (
            "I'd like a new ability, font-inventory, that reports which fonts in Fonts/Collection are installed",
            &["skill-create/create"],
            &[(0, "name", Value::from("font-inventory"))],
        ),
        // "if not" has no action of its own: the step after it is the making.
        (
            "is there already a skill that renames game screenshots after the game? if not, create one called screenshot-titler",
            &["skill-search/search", "skill-create/create"],
            &[(1, "name", Value::from("screenshot-titler"))],
        ),
    ]);
}

#[test]
fn said_only_as_if_a_change_is_previewed() {
    check(&[
        (
            "purely hypothetical tally per file category for Downloads/Teams, nothing gets moved",
            &["organize-by-type/preview_categories"],
            &[(0, "path", Value::from("Downloads/Teams"))],
        ),
        (
            "before I commit — how many files of each kind would Downloads/Zoom end up with if you sorted it? nothing moves yet",
            &["organize-by-type/preview_categories"],
            &[],
        ),
        (
            "Probelauf für Schriftarten/Eingang: welche Kategorien kämen beim Sortieren nach Dateityp raus? bewegt wird noch nichts",
            &["organize-by-type/preview_categories"],
            &[(0, "path", Value::from("Schriftarten/Eingang"))],
        ),
        // The condition after the question is what it supposes, not a sort of its own.
        (
            "wie würde sich Downloads/Firefox aufteilen, wenn du nach Dateityp sortierst? erstmal nix verschieben",
            &["organize-by-type/preview_categories"],
            &[],
        ),
        // Asking which category each file would go into is still classifying them.
        (
            "which category would each file in Inbox/Paper go into? don't move anything yet",
            &["organize-by-content/classify"],
            &[],
        ),
    ]);
}

#[test]
fn german_word_order_and_casual_german_are_read() {
    check(&[
        // "pack … aus" ends before "und": an extraction, asking on clashes.
        (
            "pack Downloads/Steuer-Vorlagen.zip nach Steuer/Vorlagen aus und frag mich bei jedem Namenskonflikt",
            &["archive-files/extract"],
            &[
                (0, "target", Value::from("Steuer/Vorlagen")),
                (0, "on_conflict", Value::from("ask")),
            ],
        ),
        (
            "kannst du Downloads/Lohnsteuerbescheinigung 2024.pdf nach Steuer/2024 moven?",
            &["manage-files/move"],
            &[(0, "target", Value::from("Steuer/2024"))],
        ),
        (
            "Ablage/Eingang: die Briefe je nach Inhalt auf Strom, Kita und Kfz aufteilen",
            &["organize-by-content/classify", "organize-by-content/sort"],
            &[
                (0, "path", Value::from("Ablage/Eingang")),
                (0, "categories", Value::from("Strom, Kita, Kfz")),
            ],
        ),
        (
            "in E-Books/Neu soll jedes Wort im Dateinamen mit einem Großbuchstaben anfangen",
            &["manage-files/find", "batch-rename/rename"],
            &[(1, "case", Value::from("title"))],
        ),
    ]);
}

#[test]
fn a_sort_by_content_after_an_extraction_sorts_where_the_files_went() {
    check(&[(
        "extract Downloads/invoices-2024.tar.gz into Documents/Invoices, then split the invoices into Paid and Open by what they say",
        &[
            "archive-files/extract",
            "organize-by-content/classify",
            "organize-by-content/sort",
        ],
        &[
            (1, "path", Value::from("Documents/Invoices")),
            (1, "categories", Value::from("Paid, Open")),
        ],
    )]);
}

#[test]
fn what_a_place_is_full_of_and_things_said_over_and_over_are_duplicates() {
    check(&[
        (
            "Screenshots/Valorant is mad cluttered w dupes, bin em",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(0, "path", Value::from("Screenshots/Valorant"))],
        ),
        (
            "ugh, Screenshots/Apex: every screenshot's in there like twelve times",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(0, "path", Value::from("Screenshots/Apex"))],
        ),
        (
            "Audio/Sample Library: several packs ship identical one-shots. every path should stay valid, but the disk should hold each sound only a single time",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(1, "action", Value::from("hardlink"))],
        ),
        (
            "Ebooks holds the same books in Ebooks/Kindle and Ebooks/Misc; one of each is enough, ideally the one in Ebooks/Kindle survives",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(1, "priority", serde_json::json!(["Ebooks/Kindle"]))],
        ),
    ]);
}

#[test]
fn names_with_dates_times_and_lower_case_words_are_read_whole_and_put_there_is_a_move() {
    check(&[
        (
            "Screenshots/Screenshot 2025-11-03 at 14.22.10.png is the bank transfer confirmation → stash it in Taxes/2025/Proof",
            &["manage-files/move"],
            &[
                (
                    0,
                    "source",
                    serde_json::json!(["Screenshots/Screenshot 2025-11-03 at 14.22.10.png"]),
                ),
                (0, "target", Value::from("Taxes/2025/Proof")),
            ],
        ),
        // "scan" in a file's name is no action, and the arrow after a name is what it does.
        (
            "Scans/Untitled scan 14.pdf → rename to birth-certificate-lena.pdf",
            &["manage-files/rename"],
            &[(0, "path", Value::from("Scans/Untitled scan 14.pdf"))],
        ),
        (
            "Invoices/2025 Inbox: sort every invoice into Clients, Software or Travel depending on what it's for",
            &["organize-by-content/classify", "organize-by-content/sort"],
            &[(0, "path", Value::from("Invoices/2025 Inbox"))],
        ),
        (
            "Photos/Scans 1998-2005: how old is all of this, year by year?",
            &["analyze-directory/analyze"],
            &[(0, "path", Value::from("Photos/Scans 1998-2005"))],
        ),
        (
            "put Screenshots/a.png in Taxes/Proof",
            &["manage-files/move"],
            &[(0, "target", Value::from("Taxes/Proof"))],
        ),
        // Into an archive's name is still packing, and a format after "as" is no part of a name.
        (
            "what are the 5 heaviest files in Video Editing/Renders? afterwards put those into Archive/renders-big.tar.zst and drop the originals",
            &["analyze-directory/analyze", "archive-files/create"],
            &[],
        ),
        (
            "compress USB/Thesis as tar.gz",
            &["archive-files/create"],
            &[(0, "source", serde_json::json!(["USB/Thesis"]))],
        ),
    ]);
}

#[test]
fn what_a_place_has_what_a_copy_is_of_and_where_things_should_sit() {
    check(&[
        (
            "lmao Lab/Old Runs has a ton of empty dirs, yeet em",
            &["search-files/find", "manage-files/delete"],
            &[(0, "path", Value::from("Lab/Old Runs"))],
        ),
        (
            "Fonts/Downloaded has dupliactes — kepp the oldset of every set",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(0, "path", Value::from("Fonts/Downloaded"))],
        ),
        (
            "Fonts needs a new Client Brand Kit folder; put a copy of Downloads/Montserrat.zip in it afterwards",
            &["manage-files/create", "manage-files/copy"],
            &[
                (0, "name", Value::from("Client Brand Kit")),
                (1, "source", serde_json::json!(["Downloads/Montserrat.zip"])),
            ],
        ),
        (
            "Drone/Raw is eating my SSD; whatever is 4 GB or larger should sit on External/Drone instead",
            &["search-files/find", "manage-files/move"],
            &[(1, "target", Value::from("External/Drone"))],
        ),
        (
            "the band's only copy of Music Production/Album 2 Sessions lives on this SSD — clone it onto NAS/Music so there's a spare",
            &["manage-files/copy"],
            &[(
                0,
                "source",
                serde_json::json!(["Music Production/Album 2 Sessions"]),
            )],
        ),
    ]);
}

#[test]
fn words_that_choose_values_in_passing() {
    check(&[
        (
            "create a skill named stem-collector (tags: audio, stems) that gathers each song's stem WAVs from Audio/Bounces into one folder per song",
            &["skill-create/create"],
            &[(0, "tags", Value::from("audio, stems"))],
        ),
        (
            "Games/Saves/Old Consoles → Archive/old-console-saves.zip, and once it's packed the folder itself can disappear",
            &["archive-files/create"],
            &[(0, "delete_originals", Value::from(true))],
        ),
        (
            "dedupe Audio/Stems and everything beneath it",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(0, "recursive", Value::from(true))],
        ),
        (
            "Lab/Sequencing/FASTQ — I need a plain-text report of identical files, hashed with sha256",
            &["remove-duplicates/scan"],
            &[
                (0, "format", Value::from("text")),
                (0, "hash", Value::from("sha256")),
            ],
        ),
    ]);
}

/// `makes` in SKILL.md: where things go, named as an archive, is an archive to make.
#[test]
fn where_things_go_named_as_an_archive_is_packed_into() {
    check(&[
        (
            "the stuff in Teaching/Old Courses I haven't touched since 2020 could live in Archive/courses-pre2020.tar.gz instead",
            &["search-files/find", "archive-files/create"],
            &[(1, "target", Value::from("Archive/courses-pre2020.tar.gz"))],
        ),
        (
            "Lab/Microscopy belongs in Lab/Archive/microscopy-old.tar.gz now",
            &["archive-files/create"],
            &[(0, "source", serde_json::json!(["Lab/Microscopy"]))],
        ),
        // Into a folder it is still a move.
        (
            "move Reports to Backup/Old Reports",
            &["manage-files/move"],
            &[],
        ),
    ]);
}

#[test]
fn copy_numbers_counts_in_words_and_what_weighs_the_most() {
    check(&[
        (
            "Games/Saves/Stardew Valley/Farm_old_backup (2) can go. the real farm is in the other folder",
            &["manage-files/delete"],
            &[(
                0,
                "path",
                serde_json::json!(["Games/Saves/Stardew Valley/Farm_old_backup (2)"]),
            )],
        ),
        (
            "Video/Wedding Edit/Exports — rank its seven heaviest files for me",
            &["analyze-directory/analyze"],
            &[(0, "top_n", Value::from(7))],
        ),
        (
            "Video/Client Reels: which 3 files weigh the most? bundle just those into Archive/reels-biggest.zip and delete the loose copies",
            &["analyze-directory/analyze", "archive-files/create"],
            &[
                (0, "top_n", Value::from(3)),
                (1, "delete_originals", Value::from(true)),
            ],
        ),
    ]);
}

#[test]
fn every_folder_of_a_name_and_everything_in_the_subfolders() {
    check(&[
        (
            "nuke every node_modules folder under Code/old-projects, they're like 9 gigs fr",
            &["manage-files/find", "manage-files/delete"],
            &[
                (0, "path", Value::from("Code/old-projects")),
                (0, "name", Value::from("node_modules")),
                (0, "kind", Value::from("dir")),
            ],
        ),
        // Regression: "every empty folder" looked for folders named "empty".
        (
            "clear every empty folder out of Pictures/Phone imports",
            &["search-files/find", "manage-files/delete"],
            &[
                (0, "name", Value::Null),
                (0, "empty", Value::from(true)),
                (0, "kind", Value::from("dir")),
            ],
        ),
        (
            "zeig mir Steuer/2024 komplett, mit allem was in den Unterordnern steckt",
            &["manage-files/list"],
            &[(0, "recursive", Value::from(true))],
        ),
    ]);
}

/// Regression: a look, then a step done on a condition with a remark on clashes after it, was
/// one step (the listing), the unpacking lost.
#[test]
fn a_step_done_if_a_look_is_fine_is_planned_after_the_look() {
    check(&[
        (
            "check what's in Backups/dotfiles-2023.tar.gz, and if nothing looks weird unpack it into Dev/dotfiles-restore, skipping files that already exist",
            &["archive-files/list", "archive-files/extract"],
            &[
                (1, "target", Value::from("Dev/dotfiles-restore")),
                (1, "on_conflict", Value::from("skip")),
            ],
        ),
        (
            "peek inside Mail/Attachments/site-photos.zip and if it looks ok unpack into Web/Client Site/img — ask me about any clash",
            &["archive-files/list", "archive-files/extract"],
            &[(1, "on_conflict", Value::from("ask"))],
        ),
    ]);
}

#[test]
fn which_one_of_what_a_header_says_is_there_is_a_content_search() {
    check(&[
        (
            "somewhere in Cooking there's a recipe that uses leftover rice and kimchi, which one?",
            &["search-files/search"],
            &[(0, "path", Value::from("Cooking"))],
        ),
        (
            "somewhere in Documents there's a letter about my refund, which one?",
            &["search-files/search"],
            &[(0, "query", Value::from("my refund"))],
        ),
        (
            "smoked paprika: which notes in Cooking/Notebook use it? best 3 hits only",
            &["search-files/search"],
            &[(0, "top_k", Value::from(3))],
        ),
        // "identical" says the scan a removal runs: the dedupe, not a size filter.
        (
            "look for identical videos in Videos, ignore anything under 100 MB and use sha256",
            &["remove-duplicates/scan"],
            &[(0, "hash", Value::from("sha256"))],
        ),
    ]);
}

#[test]
fn later_parts_after_a_comma_lead_questions_then_names_and_capability_questions() {
    check(&[
        (
            "dedupe Sheet Music including every subfolder; afterwards, what's taking up the room there, broken down by format?",
            &[
                "remove-duplicates/scan",
                "remove-duplicates/remove",
                "analyze-directory/analyze",
            ],
            &[(0, "recursive", Value::from(true))],
        ),
        // After a question, "call it X" renames what was asked about.
        (
            "what camera shot Camera/Keepers/IMG_4471.JPG? and call it heron-lake.jpg after that",
            &["parse-content/metadata", "manage-files/rename"],
            &[(1, "new_name", Value::from("heron-lake.jpg"))],
        ),
        (
            "got anything that files my band's tour receipts by city? no? then set one up named receipts-by-city",
            &["skill-search/search", "skill-create/create"],
            &[(1, "name", Value::from("receipts-by-city"))],
        ),
        (
            "mark Medical/Bloodwork/2026-03 lipid panel.pdf with Cardiology and Follow-up as tags",
            &["manage-files/tag"],
            &[(0, "add", Value::from("Cardiology, Follow-up"))],
        ),
        // "number of files" counts them; it numbers nothing.
        (
            "Weddings/Our Wedding 2026/Vendor Contracts – total size + number of files?",
            &["analyze-directory/analyze"],
            &[],
        ),
        (
            "Astrophotography/Raw Stacks: which 4 files are the heaviest? bundle those into Archive/stacks-biggest.tar.gz, then the loose copies can go",
            &["analyze-directory/analyze", "archive-files/create"],
            &[(1, "delete_originals", Value::from(true))],
        ),
    ]);
}

#[test]
fn names_with_versions_titles_and_dashes_are_read_whole() {
    check(&[
        (
            "list Mods/Skyrim/Requiem 5.4.1 [hotfix].zip",
            &["archive-files/list"],
            &[(
                0,
                "path",
                Value::from("Mods/Skyrim/Requiem 5.4.1 [hotfix].zip"),
            )],
        ),
        (
            "which 20 files hog the most room in Games/Modpacks/All The Mods 9?",
            &["analyze-directory/analyze"],
            &[
                (0, "path", Value::from("Games/Modpacks/All The Mods 9")),
                (0, "top_n", Value::from(20)),
            ],
        ),
        (
            "gist of PhD/Literature/Nguyen 2024 - soil microbiome.pdf in 2 sentences?",
            &["parse-content/summarize"],
            &[(
                0,
                "path",
                Value::from("PhD/Literature/Nguyen 2024 - soil microbiome.pdf"),
            )],
        ),
        // "keep it packed" says not to unpack: the look at the archive is all.
        (
            "curious what's bundled in Games/Mods/skyui-5.2.zip — keep it packed though",
            &["archive-files/list"],
            &[],
        ),
    ]);
}

#[test]
fn more_german_and_casual_readings() {
    check(&[
        (
            "check mal die EXIF von Kamera/RAW/_MG_2231.CR3 – welches Objektiv war drauf?",
            &["parse-content/metadata"],
            &[(0, "path", Value::from("Kamera/RAW/_MG_2231.CR3"))],
        ),
        // "everything" after a step in a folder is everything there.
        (
            "lösch erst die leeren Ordner in Hausaufgaben, danach bitte alles nach Dateityp sortieren",
            &[
                "search-files/find",
                "manage-files/delete",
                "organize-by-type/organize",
            ],
            &[(2, "path", Value::from("Hausaufgaben"))],
        ),
        (
            "was steckt alles in Hochzeit/Planung drin? auch in den Unterordnern bitte",
            &["manage-files/list"],
            &[(0, "recursive", Value::from(true))],
        ),
        (
            "Musik/Proberaum: Großbuchstaben raus aus allen Dateinamen, alles kleinschreiben",
            &["manage-files/find", "batch-rename/rename"],
            &[(1, "case", Value::from("lower"))],
        ),
        (
            "Podcast/Folgen: überall in den Dateinamen Leerzeichen durch Unterstriche ersetzen",
            &["manage-files/find", "batch-rename/rename"],
            &[
                (1, "find", Value::from(" ")),
                (1, "replace", Value::from("_")),
            ],
        ),
        (
            "entpack Downloads/Modpack-1.20.zip nach Spiele/Minecraft/Mods; gibt's den Namen schon, beide behalten",
            &["archive-files/extract"],
            &[(0, "on_conflict", Value::from("rename"))],
        ),
        (
            // Why a folder is big is the full breakdown (what takes the room), not its totals.
            "why is Podcast/Raw Takes so enormous?",
            &["analyze-directory/analyze"],
            &[],
        ),
        (
            "3D Printing/Downloads has become a swamp. have at it",
            &["organize-by-type/organize"],
            &[(0, "path", Value::from("3D Printing/Downloads"))],
        ),
    ]);
}

#[test]
fn capability_questions_spares_and_everyday_words_kept() {
    check(&[
        // "tabs" is a word, never "corrected" into "tags".
        (
            "is turning guitar tabs into sheet music among the things you already know how to do?",
            &["skill-search/search"],
            &[],
        ),
        (
            "could you grow a homework-sorter capability? it'd drop each kid's worksheets in a folder per school subject",
            &["skill-create/create"],
            &[(0, "name", Value::from("homework-sorter"))],
        ),
        (
            "Games/Modpacks has the same jars in five packs. every pack has to keep working, but the disk should store each jar only once",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(1, "action", Value::from("hardlink"))],
        ),
        (
            "which homework in School/Mia/Year 7 was about the water cycle?",
            &["search-files/search"],
            &[(0, "path", Value::from("School/Mia/Year 7"))],
        ),
    ]);
}

/// This session's general readings: other languages read as theirs, a part opening with a noun
/// that asks for its action, a phrasal verb around its pronoun, a tool found by its keywords.
#[test]
fn other_languages_action_nouns_phrasal_verbs_and_keywords() {
    use serde_json::json;
    check(&[
        (
            "mueve Descargas/factura-marzo.pdf a Negocio/Facturas 2026, porfa",
            &["manage-files/move"],
            &[(0, "target", json!("Negocio/Facturas 2026"))],
        ),
        (
            "quels sont les 10 plus gros fichiers in Jeux/Mods? merci beaucoup",
            &["analyze-directory/analyze"],
            &[(0, "top_n", json!(10))],
        ),
        (
            "skopiuj Zdjęcia/Wesele do Backup/Zdjęcia",
            &["manage-files/copy"],
            &[(0, "target", json!("Backup/Zdjęcia"))],
        ),
        (
            "a short summary of each quote in House/Quotes, then put the tag Shortlist on \
             House/Quotes/Bauer.pdf",
            &["parse-content/summarize", "manage-files/tag"],
            &[(1, "add", json!("Shortlist"))],
        ),
        (
            "Car/Service Records: the files older than five years → External/Car Archive. after \
             that I'd like a breakdown of Car",
            &[
                "search-files/find",
                "manage-files/move",
                "analyze-directory/analyze",
            ],
            &[(1, "target", json!("External/Car Archive"))],
        ),
        (
            "find the tax pdfs in Docs and back them up to Backup/Tax",
            &["manage-files/find", "manage-files/copy"],
            &[(1, "target", json!("Backup/Tax"))],
        ),
        (
            "Band/Setlists: I want every file name in CAPITALS",
            &["manage-files/find", "batch-rename/rename"],
            &[
                (0, "path", json!("Band/Setlists")),
                (1, "case", json!("upper")),
            ],
        ),
        (
            "Audio/Stems/Track04_Vocals.wav: duration + bitrate, quick",
            &["parse-content/metadata"],
            &[(0, "path", json!("Audio/Stems/Track04_Vocals.wav"))],
        ),
    ]);
}

/// Clashes said as a condition or a remark set how the step behaves; a remark after a dash keeps
/// the action before it; what to preview, then do; German words for putting, every level and
/// keeping the newest (regressions from eval/plans-dev8.jsonl).
#[test]
fn clashes_remarks_previews_and_more_german() {
    use serde_json::json;
    check(&[
        (
            "copy Knitting/Patterns/Aran Cardigan v2.pdf to Knitting/On the Needles; if a file \
             with that name is already in there keep both",
            &["manage-files/copy"],
            &[
                (0, "target", json!("Knitting/On the Needles")),
                (0, "on_conflict", json!("rename")),
            ],
        ),
        (
            "extract Downloads/GPX Tracks – Alps 2026.zip to Cycling/Tracks/Alps, and if a track \
             with the same name is already there, ask me which to keep",
            &["archive-files/extract"],
            &[
                (0, "path", json!("Downloads/GPX Tracks – Alps 2026.zip")),
                (0, "on_conflict", json!("ask")),
            ],
        ),
        (
            "Teaching/Downloads — show me how a sort by type would split it, then go ahead and do \
             it; skip any file whose name is already taken",
            &[
                "organize-by-type/preview_categories",
                "organize-by-type/organize",
            ],
            &[(1, "on_conflict", json!("skip"))],
        ),
        (
            "roll Game Dev/Builds/v0.9.3-beta (Steam) into Game Dev/Builds/old/v0.9.3-beta.tar — \
             plain tar, no compression",
            &["archive-files/create"],
            &[
                (0, "target", json!("Game Dev/Builds/old/v0.9.3-beta.tar")),
                (0, "format", json!("tar")),
            ],
        ),
        (
            "leg Downloads/Buchungsbestätigung Ferienwohnung Sylt.pdf bitte nach Reisen/Sylt 2027",
            &["manage-files/move"],
            &[(0, "target", json!("Reisen/Sylt 2027"))],
        ),
        (
            "Fotografie/Exporte: doppelte Bilder rauswerfen und anschließend alles in Unterordner \
             je Dateiformat packen",
            &[
                "remove-duplicates/scan",
                "remove-duplicates/remove",
                "organize-by-type/organize",
            ],
            &[(2, "path", json!("Fotografie/Exporte"))],
        ),
        (
            "in Fahrrad/Touren soll in allen Dateinamen 'Aktivität' durch 'Tour' ersetzt werden",
            &["manage-files/find", "batch-rename/rename"],
            &[
                (1, "find", json!("Aktivität")),
                (1, "replace", json!("Tour")),
            ],
        ),
    ]);
}

/// A name's ending said with an example, text to write, tags after "all of them", a search's
/// find read on, an archive looked at then unpacked, typos of swapped letters, a remark about the
/// past left out, a folder in disorder tidied and what "can go" deleted (regressions from
/// eval/plans-dev8.jsonl).
#[test]
fn examples_contents_tags_and_what_was_found() {
    use serde_json::json;
    check(&[
        (
            "every file in Translation/Deliveries should end in _EN just before the extension, \
             e.g. contract_EN.docx",
            &["manage-files/find", "batch-rename/rename"],
            &[
                (0, "path", json!("Translation/Deliveries")),
                (1, "pattern", json!("{name}_EN.{ext}")),
            ],
        ),
        (
            "Photography/Iceland 2026/Exports: rename each jpg to when it was shot, e.g. \
             2026-03-14_1422.jpg",
            &["manage-files/find", "batch-rename/rename"],
            &[
                (0, "path", json!("Photography/Iceland 2026/Exports")),
                (1, "pattern", json!("{exif.date:%Y-%m-%d_%H%M}.{ext}")),
            ],
        ),
        (
            "read Garden/Journal/seed-list.md, then write Garden/Journal/to-buy.txt with \
             'borage, calendula, bush beans'",
            &["parse-content/extract_text", "manage-files/create"],
            &[
                (1, "path", json!("Garden/Journal")),
                (1, "content", json!("borage, calendula, bush beans")),
            ],
        ),
        (
            "number the PDF proofs in Print Shop/Proofs/Hartmann Wedding proof_01.pdf, \
             proof_02.pdf and so on, then tag all of them Awaiting Approval",
            &[
                "manage-files/find",
                "batch-rename/rename",
                "manage-files/tag",
            ],
            &[(2, "add", json!("Awaiting Approval"))],
        ),
        (
            "somewhere in Rentals/Elm Street 14 is the tenant's email about the boiler leaking — \
             find it and give me the gist in two sentences",
            &["search-files/search", "parse-content/summarize"],
            &[(1, "path", json!("$step(1).paths[0]"))],
        ),
        (
            "the alto section sent Downloads/choir-christmas-scores.zip — list its entries, and \
             unless something's off, unpack into Choir/Scores/Christmas 2026",
            &["archive-files/list", "archive-files/extract"],
            &[(1, "path", json!("Downloads/choir-christmas-scores.zip"))],
        ),
        (
            "Knitting/Charts has dupliactes, kepe the olderst one of each",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(1, "keep", json!("oldest"))],
        ),
        (
            "summrise Nonprofit/Reports/annual-report-2025.pdf in fuor sentences",
            &["parse-content/summarize"],
            &[(0, "sentences", json!(4))],
        ),
        (
            "glossary_medical_DE-EN.tbx — where is it? I had it open for the Kaufmann job",
            &["search-files/find"],
            &[],
        ),
        (
            "Print Shop/Desktop Dump is pure chaos. go",
            &["organize-by-type/organize"],
            &[(0, "path", json!("Print Shop/Desktop Dump"))],
        ),
        (
            "Games/Saves/Stardew Valley/Farm_old_backup (2) can go. the real farm is in the other \
             folder",
            &["manage-files/delete"],
            &[],
        ),
        (
            "Photography/RAW 2025: which five shots weigh most? bundle those into \
             Archive/raw-2025-big.tar.zst — no need to keep the unpacked versions",
            &["analyze-directory/analyze", "archive-files/create"],
            &[(0, "top_n", json!(5)), (1, "delete_originals", json!(true))],
        ),
    ]);
}

/// A clause that opens with a change is that change, with the look-up that selects for it, not
/// only the look-up (regression from eval/plans-dev8.jsonl m091: "remvoe the emtpy folders" only
/// found them).
#[test]
fn a_change_said_first_is_done_not_only_looked_up() {
    use serde_json::json;
    check(&[
        (
            "Teaching/Old Classes: remvoe the emtpy folders",
            &["search-files/find", "manage-files/delete"],
            &[(0, "empty", json!(true)), (0, "kind", json!("dir"))],
        ),
        (
            "remove empty files in Downloads",
            &["search-files/find", "manage-files/delete"],
            &[(0, "kind", json!("file"))],
        ),
        (
            "remove the files older than a year in Temp",
            &["search-files/find", "manage-files/delete"],
            &[(0, "path", json!("Temp"))],
        ),
        (
            "find the empty folders in Projects",
            &["search-files/find"],
            &[(0, "empty", json!(true))],
        ),
        // "nearly identical" is similar (m080).
        (
            "dedupe the nearly identical photos in Pictures/Bursts",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(0, "similar", json!(true))],
        ),
    ]);
}
