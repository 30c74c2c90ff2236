//! Tests of parameter extraction: one request per row, the filled slots rendered as text.

use expect_test::{Expect, expect};

use super::{Grounding, extract};

mod said_in_passing;

fn check(text: &str, expected: Expect) {
    let g = Grounding {
        root_name: Some("Downloads".into()),
        entries: vec![
            "Photos 2023".into(),
            "Photos".into(),
            "Temp".into(),
            "Archive".into(),
        ],
    };
    let s = extract(text, &g);
    let mut out = Vec::new();
    macro_rules! show {
        ($($field:ident),*) => {$(
            let v = format!("{:?}", s.$field);
            if !matches!(v.as_str(), "[]" | "None" | "false") {
                out.push(format!("{}={}", stringify!($field), v));
            }
        )*};
    }
    show!(
        locations,
        objects,
        targets,
        name,
        extensions,
        glob,
        min_size,
        max_size,
        modified_after,
        modified_before,
        keep,
        exclude,
        priority,
        format,
        pattern,
        find,
        replace,
        case,
        recursive,
        empty,
        kind,
        query,
        content,
        refers_back,
        there,
        delete_originals,
        whole_root,
        compression,
        level,
        sentences,
        max_bytes,
        tags,
        categories,
        limit,
        asks_ability
    );
    expected.assert_eq(&out.join("\n"));
}

#[test]
fn places_targets_and_the_root_name() {
    check(
        "move the PDFs from my Downloads folder into Archive",
        expect![[r#"
            locations=["."]
            targets=["Archive"]
            extensions=["pdf"]"#]],
    );
    check(
        "zip 'Photos 2023' into Backup/photos.zip and delete the originals",
        expect![[r#"
            objects=["Photos 2023"]
            targets=["Backup/photos.zip"]
            format=Some("zip")
            delete_originals=true"#]],
    );
    check(
        "find all .log files in temp and delete them",
        expect![[r#"
            locations=["Temp"]
            extensions=["log"]
            refers_back=true"#]],
    );
}

#[test]
fn sizes_dates_keep_and_exclusions() {
    check(
        "remove duplicate photos bigger than 2 MB in ~/Pictures keeping the oldest, except Pictures/Originals",
        expect![[r#"
            locations=["~/Pictures"]
            extensions=["jpg", "jpeg", "png", "gif", "bmp", "tif", "tiff", "webp", "heic", "heif", "svg", "ico", "raw", "cr2", "cr3", "nef", "arw", "dng", "orf", "rw2", "psd", "xcf", "avif"]
            min_size=Some("2MB")
            keep=Some("oldest")
            exclude=["Pictures/Originals"]"#]],
    );
    check(
        "files in Temp not modified in the last 3 months",
        expect![[r#"
            locations=["Temp"]
            modified_before=Some("90days")"#]],
    );
    check(
        "find files changed in the last week and anything under 10kb",
        expect![[r#"
            max_size=Some("10KB")
            modified_after=Some("7days")"#]],
    );
}

#[test]
fn rename_patterns_and_case() {
    check(
        "rename the jpgs in Temp to IMG_{n:03}",
        expect![[r#"
            locations=["Temp"]
            extensions=["jpg"]
            pattern=Some("IMG_{n:03}")"#]],
    );
    check(
        "replace spaces with underscores and make the names lowercase",
        expect![[r#"
            find=Some(" ")
            replace=Some("_")
            case=Some("lower")"#]],
    );
}

#[test]
fn named_and_misspelt_folders_formats_and_negated_ages() {
    // Regressions from the planner eval: each line once read a place or a format wrongly.
    check(
        "orgnaize my dekstop by file tpye",
        expect![[r#"objects=["Desktop"]"#]],
    );
    check(
        "turn the Thesis folder into one compressed file",
        expect![[r#"objects=["Thesis"]"#]],
    );
    check(
        "zip up the tax stuff in Documents/Taxes",
        expect![[r#"
        locations=["Documents/Taxes"]
        format=Some("zip")"#]],
    );
    check(
        "extract it into Restore/backup",
        expect![[r#"
        targets=["Restore/backup"]
        refers_back=true"#]],
    );
    check(
        "tar.gz the logs folder and nuke the originals",
        expect![[r#"
        objects=["logs"]
        format=Some("tar.gz")
        delete_originals=true"#]],
    );
    check(
        "zpi the Photos 2023 foldr into photos.zip",
        expect![[r#"
        objects=["Photos 2023"]
        targets=["photos.zip"]
        format=Some("zip")"#]],
    );
    check(
        "which of your skills would sort my photos into folders by month",
        expect![[r#"
        extensions=["jpg", "jpeg", "png", "gif", "bmp", "tif", "tiff", "webp", "heic", "heif", "svg", "ico", "raw", "cr2", "cr3", "nef", "arw", "dng", "orf", "rw2", "psd", "xcf", "avif"]
        kind=Some("dir")
        asks_ability=true"#]],
    );
    check(
        "get rid of every file in Temp that hasn't been touched for 90 days",
        expect![[r#"
        locations=["Temp"]
        modified_before=Some("90days")"#]],
    );
    check(
        "find the files in Work/Clients not modified since 2022",
        expect![[r#"
        locations=["Work/Clients"]
        modified_before=Some("2022-01-01")"#]],
    );
    // Regression: a denied date ("haven't opened since") selected files changed after it.
    check(
        "move the files in Work/Inbox I haven't opened since last year to Stale",
        expect![[r#"
            locations=["Work/Inbox"]
            targets=["Stale"]
            modified_before=Some("365days")"#]],
    );
    check(
        "the logs I haven't opened in the last month",
        expect![[r#"modified_before=Some("30days")"#]],
    );
    check(
        "stuff in Work/Reports nobody's modified since 2023 should end up in Archive/Reports",
        expect![[r#"
            locations=["Work/Reports", "Archive/Reports"]
            modified_before=Some("2023-01-01")"#]],
    );
    // A capitalised folder name going on with a capitalised word is one name.
    check(
        "which kinds of files in Home Videos weigh the most",
        expect![[r#"locations=["Home Videos"]"#]],
    );
    // Sizes in words, "this past week", "which 3 of".
    check(
        "everything over a gig in Downloads/Mac",
        expect![[r#"
        locations=["Downloads/Mac"]
        min_size=Some("1GB")
        whole_root=true"#]],
    );
    check(
        "whatever I edited this past week in Projects",
        expect![[r#"
        locations=["Projects"]
        modified_after=Some("7days")"#]],
    );
    check(
        "which 3 of your skills come closest to merging PDFs",
        expect![[r#"
        extensions=["pdf"]
        limit=Some(3)
        asks_ability=true"#]],
    );
    // Regression: a year right after "folder" is the folder's name, not a date.
    check(
        "new dir 2023 under Archive",
        expect![[r#"
        locations=["Archive"]
        objects=["2023"]"#]],
    );
    check(
        "Work/Reports stuff untouched since 2022",
        expect![[r#"
            objects=["Work/Reports"]
            modified_before=Some("2022-01-01")"#]],
    );
}

/// Regression: "copy the text files" found no type and the clause went to remove-duplicates.
#[test]
fn kind_words_narrower_than_a_category() {
    check(
        "copy the text files to Backup",
        expect![[r#"
            targets=["Backup"]
            extensions=["txt", "md", "markdown", "rst", "org"]"#]],
    );
    check(
        "delete the subtitles in Temp",
        expect![[r#"
            locations=["Temp"]
            extensions=["srt", "vtt", "ass", "ssa", "sub"]"#]],
    );
    // "word" without a file noun after it is just a word.
    check("rename the word list", expect![[r#""#]]);
    // A kind word that is also an extension names the kind: "the markdown files" are mostly .md
    // (regression: only `*.markdown` was selected), "raw files" every camera's raw format.
    check(
        "copy the markdown files in Notes to Backup",
        expect![[r#"
        locations=["Notes"]
        targets=["Backup"]
        extensions=["md", "markdown"]"#]],
    );
    check(
        "move the raw files to Pictures/Raw",
        expect![[r#"
        targets=["Pictures/Raw"]
        extensions=["raw", "cr2", "cr3", "nef", "arw", "dng", "orf", "rw2"]"#]],
    );
}

#[test]
fn its_entries_are_the_step_befores() {
    // "its entries" after making an archive are the archive's (regression: listed the folder).
    check("afterwards show its entries", expect!["refers_back=true"]);
    check("and list its contents", expect!["refers_back=true"]);
}

#[test]
fn borrowed_place_words_are_prepositions() {
    check(
        "trie les fichiers de Téléchargements par type",
        expect![[r#"locations=["Téléchargements"]"#]],
    );
    check(
        "haz un zip de Facturas",
        expect![[r#"
        locations=["Facturas"]
        format=Some("zip")"#]],
    );
}

#[test]
fn zstd_archives() {
    check(
        "compress Temp as tar.zst",
        expect![[r#"
            objects=["Temp"]
            format=Some("tar.zst")"#]],
    );
    check(
        "pack Archive with zstd",
        expect![[r#"
            objects=["Archive"]
            format=Some("tar.zst")"#]],
    );
}

/// Regression: "compress Photos" with a folder called Photos found every image instead.
#[test]
fn a_capitalised_category_word_naming_a_folder_is_that_folder() {
    check(
        "compress Photos as tar.zst",
        expect![[r#"
        objects=["Photos"]
        format=Some("tar.zst")"#]],
    );
    check(
        "delete the photos in Temp",
        expect![[r#"
        locations=["Temp"]
        extensions=["jpg", "jpeg", "png", "gif", "bmp", "tif", "tiff", "webp", "heic", "heif", "svg", "ico", "raw", "cr2", "cr3", "nef", "arw", "dng", "orf", "rw2", "psd", "xcf", "avif"]"#]],
    );
}

#[test]
fn how_much_to_read_how_hard_to_compress_and_the_date_a_photo_was_taken() {
    check(
        "only the first 8 KB of Logs/app.log",
        expect![[r#"
            objects=["Logs/app.log"]
            max_bytes=Some(8192)"#]],
    );
    check(
        "zip Temp with maximum compression",
        expect![[r#"
            objects=["Temp"]
            format=Some("zip")
            compression=Some("max")"#]],
    );
    check(
        "rename the photos in Archive by the date they were taken",
        expect![[r#"
            locations=["Archive"]
            extensions=["jpg", "jpeg", "png", "gif", "bmp", "tif", "tiff", "webp", "heic", "heif", "svg", "ico", "raw", "cr2", "cr3", "nef", "arw", "dng", "orf", "rw2", "psd", "xcf", "avif"]
            pattern=Some("{exif.date:%Y-%m-%d_%H%M%S}")
            refers_back=true"#]],
    );
    check(
        "add the date taken to the file names of the photos in Archive",
        expect![[r#"
            locations=["Archive"]
            extensions=["jpg", "jpeg", "png", "gif", "bmp", "tif", "tiff", "webp", "heic", "heif", "svg", "ico", "raw", "cr2", "cr3", "nef", "arw", "dng", "orf", "rw2", "psd", "xcf", "avif"]
            pattern=Some("{exif.date:%Y-%m-%d}_{name}.{ext}")"#]],
    );
}

#[test]
fn a_numbering_given_by_example_is_a_pattern() {
    let g = Grounding::default();
    let s = extract(
        "rename the photos in Trips/Paris to paris_001.jpg, paris_002.jpg, ...",
        &g,
    );
    assert_eq!(s.pattern.as_deref(), Some("paris_{n:03}.{ext}"));
    assert_eq!(s.start, None);
    assert!(
        s.objects
            .iter()
            .chain(&s.targets)
            .all(|o| !o.contains("paris_0")),
        "{s:?}"
    );
    let s = extract("number the scans as scan7.pdf, scan8.pdf", &g);
    assert_eq!(s.pattern.as_deref(), Some("scan{n}.{ext}"));
    assert_eq!(s.start, Some(7));
    // Not consecutive, or not the same stem: two file names, no pattern.
    assert_eq!(extract("copy a1.txt, b2.txt to Backup", &g).pattern, None);
    assert_eq!(extract("copy a1.txt, a5.txt to Backup", &g).pattern, None);
}

/// Paths and file names are names: the words inside them are not dates, extensions or folders,
/// and a file named after a preposition is what the clause acts on (regressions from
/// eval/plans.jsonl: p206, p311, p079, p162, p220).
#[test]
fn paths_and_file_names_are_read_whole() {
    check(
        "find the files in Work I changed in the last 3 days and zip them into Work/recent.zip",
        expect![[r#"
            locations=["Work"]
            targets=["Work/recent.zip"]
            modified_after=Some("3days")
            format=Some("zip")
            refers_back=true"#]],
    );
    check(
        "give me the gist of report.pdf in Downloads",
        expect![[r#"
            locations=["."]
            objects=["report.pdf"]"#]],
    );
    check(
        "let me see the text of meeting-notes.md in Documents",
        expect![[r#"
            locations=["Documents"]
            objects=["meeting-notes.md"]"#]],
    );
    check(
        "peek at the top of Projects/api/server.py, 2 KB of it is enough",
        expect![[r#"
            objects=["Projects/api/server.py"]
            max_bytes=Some(2048)"#]],
    );
    check(
        "pack them into Archive/big.tar.gz, deleting the originals",
        expect![[r#"
            targets=["Archive/big.tar.gz"]
            format=Some("tar.gz")
            refers_back=true
            delete_originals=true"#]],
    );
    check(
        "delete old.log and recent.txt",
        expect![[r#"objects=["old.log", "recent.txt"]"#]],
    );
    check(
        "remove *.tmp files in Temp",
        expect![[r#"
        locations=["Temp"]
        extensions=["tmp"]"#]],
    );
}

#[test]
fn sizes_left_out_tags_after_with_and_names_after_as() {
    check(
        "look for identical videos in Videos, ignore anything under 100 MB and use sha256",
        expect![[r#"
            locations=["Videos"]
            extensions=["mp4", "mkv", "mov", "avi", "wmv", "webm", "m4v", "mpg", "mpeg", "flv", "3gp", "srt", "vtt", "ass"]
            min_size=Some("100MB")
            query=Some("identical videos")"#]],
    );
    check(
        "make me a skill called weekly-report that zips the files I changed in Work, with tags work, backup",
        expect![[r#"
            locations=["Work"]
            name=Some("weekly-report")
            extensions=["zip"]
            format=Some("zip")
            tags=["work", "backup"]"#]],
    );
    check(
        "zip the whole folder as taxes.tar.gz",
        expect![[r#"
            targets=["taxes.tar.gz"]
            format=Some("tar.gz")
            whole_root=true"#]],
    );
    check(
        "zip Backup/Clients 2022 into clients-2022.zip",
        expect![[r#"
        objects=["Backup/Clients 2022"]
        targets=["clients-2022.zip"]
        format=Some("zip")"#]],
    );
    check(
        "copy the photos I added to Pictures this week to Shared/Family",
        expect![[r#"
            locations=["Pictures"]
            targets=["Shared/Family"]
            extensions=["jpg", "jpeg", "png", "gif", "bmp", "tif", "tiff", "webp", "heic", "heif", "svg", "ico", "raw", "cr2", "cr3", "nef", "arw", "dng", "orf", "rw2", "psd", "xcf", "avif"]
            modified_after=Some("7days")"#]],
    );
    check(
        "nuke all the .DS_Store files in Projects",
        expect![[r#"
        locations=["Projects"]
        name=Some(".DS_Store")"#]],
    );
}

#[test]
fn dates_in_words_folders_misspelt_in_paths_and_formats_of_the_archive_to_make() {
    check(
        "show the spreadsheets in Finance I've edited since 1 March 2025",
        expect![[r#"
            locations=["Finance"]
            extensions=["csv", "tsv", "json", "jsonl", "ndjson", "xml", "yaml", "yml", "toml", "ini", "parquet", "sqlite", "db", "avro", "arrow", "geojson"]
            modified_after=Some("2025-03-01")"#]],
    );
    check(
        "dleete Downlaods/old-setup.dmg",
        expect![[r#"objects=["Downloads/old-setup.dmg"]"#]],
    );
    check(
        "which files are packed in Backup/mail-2019.tar.zst? don't unpack it",
        expect![[r#"locations=["Backup/mail-2019.tar.zst"]"#]],
    );
    check(
        "zip Documents into Backup/docs.tar.gz",
        expect![[r#"
            objects=["Documents"]
            targets=["Backup/docs.tar.gz"]
            format=Some("tar.gz")"#]],
    );
}

#[test]
fn a_path_goes_on_past_a_space_in_a_name_written_with_capitals() {
    check(
        "is there duplicate junk in ~/Music/Live Sets? only files over 20 MB matter",
        expect![[r#"
            locations=["~/Music/Live Sets"]
            min_size=Some("20MB")
            there=true"#]],
    );
    check(
        "move Desktop/screenshots/Screen Shot 2024-02-11.png to Pictures/Keep",
        expect![[r#"
            objects=["Desktop/screenshots/Screen Shot 2024-02-11.png"]
            targets=["Pictures/Keep"]"#]],
    );
    check(
        "dedupe Pictures/Phone Dump keeping the oldest copy",
        expect![[r#"
            objects=["Pictures/Phone Dump"]
            keep=Some("oldest")"#]],
    );
    // A year goes on past the next slash too, and lower-case words up to the file they end in;
    // one capital letter ends a name.
    check(
        "delete the file Documents/Taxes 2024/draft return (old).pdf",
        expect![[r#"objects=["Documents/Taxes 2024/draft return (old).pdf"]"#]],
    );
    check(
        "summarise Documents/Taxes 2024/irs-letter.pdf in two sentences",
        expect![[r#"
            objects=["Documents/Taxes 2024/irs-letter.pdf"]
            sentences=Some(2)"#]],
    );
    check(
        "copy Music/Live Sets over to Backup/Drive B",
        expect![[r#"
        objects=["Music/Live Sets"]
        targets=["Backup/Drive B"]"#]],
    );
    // ... and past the next slash, even when the next part is an everyday folder's name
    // ("Choir/Sheet Music/Advent"): two paths are not written side by side without a word
    // between them.
    check(
        "pull the metadata of Music/Live Sets/berlin-2019.flac",
        expect![[r#"objects=["Music/Live Sets/berlin-2019.flac"]"#]],
    );
    check(
        "copy Pictures/Best Documents/old.txt",
        expect![[r#"objects=["Pictures/Best Documents/old.txt"]"#]],
    );
    check(
        "tag everything in Choir/Sheet Music/Advent",
        expect![[r#"
            locations=["Choir/Sheet Music/Advent"]
            whole_root=true"#]],
    );
    // A name with a space before its first slash: capitalised words before the path, not a
    // verb or a preposition ("Zip Photos/2023" stays).
    check(
        "unpack Calibre Library/imports/humble.zip into Calibre Library/Humble",
        expect![[r#"
            objects=["Calibre Library/imports/humble.zip"]
            targets=["Calibre Library/Humble"]"#]],
    );
    check(
        "bundle 3D Prints/STL and Old PC/Downloads",
        expect![[r#"objects=["3D Prints/STL", "Old PC/Downloads"]"#]],
    );
    check(
        "Zip Photos/2023 into Backup/p.zip",
        expect![[r#"
            objects=["Photos/2023"]
            targets=["Backup/p.zip"]
            format=Some("zip")"#]],
    );
    // "under" after a verb of going says where things go.
    check(
        "sort Mom's Laptop/Desktop, the folders go under Mom's Laptop/Sorted",
        expect![[r#"
            objects=["Mom's Laptop/Desktop"]
            targets=["Mom's Laptop/Sorted"]
            kind=Some("dir")"#]],
    );
    // So does the place after "a copy of X".
    check(
        "need a duplicate of Invoices/2024/INV-0042.pdf in Accountant/To Send too",
        expect![[r#"
            objects=["Invoices/2024/INV-0042.pdf"]
            targets=["Accountant/To Send"]"#]],
    );
    check(
        "my sister wants Genealogy/tree.ged as well, drop a copy in Shared/Sis",
        expect![[r#"
            objects=["Genealogy/tree.ged"]
            targets=["Shared/Sis"]"#]],
    );
    check(
        "Photography/Portfolio would be lost; keep a second one on External/Safe",
        expect![[r#"
            objects=["Photography/Portfolio"]
            targets=["External/Safe"]"#]],
    );
    // So do "in" and "with" after "belongs".
    check(
        "Car/Service/receipt.pdf belongs with Insurance/Claims/2025 actually",
        expect![[r#"
            objects=["Car/Service/receipt.pdf"]
            targets=["Insurance/Claims/2025"]"#]],
    );
    check(
        "Desktop/passport photo.jpg belongs in Documents/ID, move it there",
        expect![[r#"
            objects=["Desktop/passport photo.jpg"]
            targets=["Documents/ID"]
            refers_back=true
            there=true"#]],
    );
    check(
        "bundle Projects/thesis-latex as tar.gz at Backup/thesis.tar.gz",
        expect![[r#"
            objects=["Projects/thesis-latex"]
            targets=["Backup/thesis.tar.gz"]
            format=Some("tar.gz")"#]],
    );
    // A small number, a short word in capitals and a name with a capital inside go on too,
    // unless the number counts what follows.
    check(
        "tar.gz of Uni/Semester 3 pls, save it as Backup/sem3.tar.gz",
        expect![[r#"
            locations=["Uni/Semester 3"]
            targets=["Backup/sem3.tar.gz"]
            format=Some("tar.gz")
            refers_back=true"#]],
    );
    check(
        "tldr of Readings/Week 5/foucault-discipline.pdf? it's 80 pages",
        expect![[r#"
            objects=["Readings/Week 5/foucault-discipline.pdf"]
            refers_back=true"#]],
    );
    check(
        "dedupe Music/iTunes Import and Videos/Twitch VODs",
        expect![[r#"objects=["Music/iTunes Import", "Videos/Twitch VODs"]"#]],
    );
    check(
        "list Photos/Trip 2 files",
        expect![[r#"objects=["Photos/Trip"]"#]],
    );
    // A lowercase word after the path is no part of it.
    check(
        "zip Projects/app into app.zip",
        expect![[r#"
        objects=["Projects/app"]
        targets=["app.zip"]
        format=Some("zip")"#]],
    );
}

#[test]
fn a_misspelt_into_before_a_path_is_into() {
    check(
        "extrct Backup/dotfiles.tar.gz innto Config/Restored",
        expect![[r#"
            objects=["Backup/dotfiles.tar.gz"]
            targets=["Config/Restored"]"#]],
    );
    check(
        "extarct Backup/recipes.zip too Recipes/Restored",
        expect![[r#"
        objects=["Backup/recipes.zip"]
        targets=["Recipes/Restored"]"#]],
    );
}

#[test]
fn a_request_opening_with_a_folder_is_about_it() {
    check(
        "Pictures has dupes, handle it",
        expect![[r#"
        objects=["Pictures"]
        refers_back=true"#]],
    );
    check("Downloads needs a tidy", expect![[r#"objects=["."]"#]]);
    // A verb that is also a folder's name is the verb.
    check(
        "Archive the old logs in Music",
        expect![[r#"locations=["Music"]"#]],
    );
}

#[test]
fn old_files_are_no_old_extension() {
    check(
        "delete the old files in Downloads",
        expect![[r#"locations=["."]"#]],
    );
    check(
        "delete the .old files in Temp",
        expect![[r#"
        locations=["Temp"]
        extensions=["old"]"#]],
    );
}

#[test]
fn a_name_with_a_capital_after_the_verb_or_my_is_a_place() {
    check(
        "serach Notes for the recipe with chickpeas",
        expect![[r#"
        objects=["Notes"]
        query=Some("the recipe with chickpeas")"#]],
    );
    check(
        "ctrl+f my Notes for the router password",
        expect![[r#"
        objects=["Notes"]
        query=Some("the router password")"#]],
    );
    // Not a kind of file, not a word in capitals.
    check(
        "show PDFs over 10 MB",
        expect![[r#"
        extensions=["pdf"]
        min_size=Some("10MB")"#]],
    );
}

#[test]
fn summary_lengths_and_compression_levels_said_as_numbers() {
    check(
        "three-sentence summary of Research/grant.docx",
        expect![[r#"
        objects=["Research/grant.docx"]
        sentences=Some(3)"#]],
    );
    check(
        "sum up notes.md in 2 sentences",
        expect![[r#"
        objects=["notes.md"]
        sentences=Some(2)"#]],
    );
    check(
        "compress Logs to Archive/logs.tar.zst with zstd level 19",
        expect![[r#"
        objects=["Logs"]
        targets=["Archive/logs.tar.zst"]
        format=Some("tar.zst")
        level=Some(19)"#]],
    );
}

#[test]
fn a_verb_after_a_list_of_categories_is_no_part_of_the_last() {
    check(
        "the letters in Posteingang/Papier by topic into Versicherung, Schule and Finanzamt sort",
        expect![[r#"
            locations=["Posteingang/Papier"]
            categories=["Versicherung", "Schule", "Finanzamt"]"#]],
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
}

#[test]
fn ages_and_counts_written_as_words_past_twelve() {
    check(
        "Work/Drafts items untouched for eighteen months",
        expect![[r#"
            objects=["Work/Drafts"]
            modified_before=Some("540days")"#]],
    );
    check(
        "VMs folder: top fifteen heaviest items",
        expect![[r#"
            objects=["VMs"]
            limit=Some(15)"#]],
    );
    check(
        "zip Band/Setlists into Band/s.zip, wipe originals after",
        expect![[r#"
            objects=["Band/Setlists"]
            targets=["Band/s.zip"]
            format=Some("zip")
            delete_originals=true"#]],
    );
}

#[test]
fn a_dotted_word_of_no_known_type_is_an_extension() {
    check(
        "delete every .crdownload leftover from Downloads",
        expect![[r#"
        locations=["."]
        extensions=["crdownload"]"#]],
    );
    check(
        "remove every .partial leftover in Temp",
        expect![[r#"
        locations=["Temp"]
        extensions=["partial"]"#]],
    );
}

#[test]
fn a_case_written_with_a_slip_and_that_folder() {
    check(
        "mp3 nmaes in Music/Rips → all lowrcase pls",
        expect![[r#"
        locations=["Music/Rips"]
        extensions=["mp3"]
        case=Some("lower")"#]],
    );
    check("then sort that folder by file type", expect!["there=true"]);
}

#[test]
fn the_originals_can_go() {
    check(
        "zip Work/Reports as Archive/reports-old.zip, originals can go",
        expect![[r#"
        objects=["Work/Reports"]
        targets=["Archive/reports-old.zip"]
        format=Some("zip")
        delete_originals=true"#]],
    );
}

#[test]
fn a_negated_part_points_back_at_nothing() {
    check(
        "what's in Backup/old-phone.tar.gz, without unpacking it",
        expect![[r#"locations=["Backup/old-phone.tar.gz"]"#]],
    );
    check(
        "zip them into old.zip, without deleting anything",
        expect![[r#"
        targets=["old.zip"]
        format=Some("zip")
        refers_back=true"#]],
    );
}

#[test]
fn apostrophes_quote_nothing_and_single_quotes_still_do() {
    check(
        "what's eating my disk in Library/Caches, it's huge",
        expect![[r#"
            locations=["Library/Caches"]
            refers_back=true"#]],
    );
    check(
        "slap 'WIP_' in front of every file in Art/Commissions, don't touch 'Final Cut'",
        expect![[r#"
            locations=["Art/Commissions"]
            exclude=["Final Cut"]
            pattern=Some("WIP_{name}.{ext}")"#]],
    );
}

#[test]
fn a_name_asked_about_and_a_folder_looked_through_are_places() {
    check(
        "how much is Recordings hogging",
        expect![[r#"objects=["Recordings"]"#]],
    );
    check(
        "look through Journal for entries about the knee surgery",
        expect![[r#"
            locations=["Journal"]
            query=Some("entries about the knee surgery")"#]],
    );
}

#[test]
fn a_year_before_not_modified_and_a_word_cut_short() {
    // German word order read into English ("die seit 2023 nicht mehr geändert wurden").
    check(
        "files in Arbeit/Entwürfe, the since 2023 not modified were, please to Archiv/Entwürfe move",
        expect![[r#"
            locations=["Arbeit/Entwürfe"]
            targets=["Archiv/Entwürfe"]
            modified_before=Some("2023-01-01")"#]],
    );
    // "Jahr- und Monatsordner": a word ending in a hyphen is cut short, no name.
    check(
        "split Fotos/Hochzeit in year- and month folders",
        expect![[r#"
        objects=["Fotos/Hochzeit"]
        kind=Some("dir")"#]],
    );
}
