//! Tests of parameter extraction: one request per row, the filled slots rendered as text.

use expect_test::{Expect, expect};

use super::{Grounding, extract};

mod paths_and_names;
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
        said: Vec::new(),
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

/// A path with spaces ends where the folder that exists ends (regression: with "Projects/garden
/// planner" on disk, "list Projects/garden planner" listed "Projects/garden").
#[test]
fn a_path_with_spaces_is_read_as_far_as_the_folder_that_exists() {
    let g = Grounding {
        root_name: Some("home".into()),
        entries: vec![
            "Projects".into(),
            "Projects/garden planner".into(),
            "External drive".into(),
            "External drive/Videos".into(),
            "Videos".into(),
            "Documents".into(),
            "Documents/From the bank".into(),
        ],
        said: Vec::new(),
    };
    let read = |text: &str| {
        let s = extract(text, &g);
        format!("{:?} {:?} {:?}", s.locations, s.objects, s.targets)
    };
    expect![[r#"["Projects/garden planner"] [] []"#]].assert_eq(&read(
        "I forgot what I saved in Projects/garden planner, can you list it for me?",
    ));
    expect![[r#"["Videos"] [] ["External drive/Videos"]"#]].assert_eq(&read(
        "move every video out of Videos and onto External drive/Videos",
    ));
    expect![[r#"["Documents/From the bank"] [] []"#]].assert_eq(&read(
        "the letters in Documents/From the bank all have meaningless names",
    ));
    // A name the folder does not have is still read by its shape.
    expect![[r#"[] ["Projects/Robot Kit"] []"#]].assert_eq(&read("list Projects/Robot Kit"));
}

/// With no folder to go by, words in lower case go on a name when it plainly ends after them
/// (regression: "Projects/garden planner" was read as "Projects/garden"), and not when they
/// may be a verb said of the folder.
#[test]
fn names_with_words_in_lower_case_end_where_the_sentence_goes_on() {
    let g = Grounding {
        root_name: None,
        entries: Vec::new(),
        said: Vec::new(),
    };
    let read = |text: &str| {
        let s = extract(text, &g);
        format!("{:?} {:?} {:?}", s.locations, s.objects, s.targets)
    };
    let cases = [
        "I forgot what I saved in Projects/garden planner, can you list it?",
        "delete the folder Downloads/Old printer drivers, I don't need them",
        "the Pictures/Phone backup folder holds pictures",
        "a copy of Music/Wedding playlist needs to go to Backup/Music too",
        "move the extra copies to Videos/Extra copies instead of deleting them",
        "which document in Work/Clients mentions the late payment penalty",
        "what does config.yaml in Projects/site say",
        "everything in Downloads/Mac belongs on External/Big Files",
        "how big is Unity/Projects total size?",
        // The end of a part ends a name in lower case ("… and then compress that folder").
        "delete every .bak file in Projects/photo booth",
        // A verb said of the folder ends it, with a file named after it.
        "the files in Documents/Inbox are all named like scan_0043.pdf",
        // A format after "into a" is the archive to make; the name after it is where.
        "please put Documents/School/Year 10 into a zip file, Backup/year-10.zip",
        // A misspelt common folder is the nearest one (not Documentos).
        "list everything in Documets/School",
        // A plural after "Year 9" names when the name plainly ends after it ("so").
        "zip up Documents/School/Year 9 projects so I can send it to my teacher",
        "change the names of the .png files in Pictures/Blog images to lowercase",
        "find files in Documents/Work stuff older than two years and delete them",
        "any file in Documents/Shared family that has zero bytes in it should go",
        "move those to External drive/Old videos afterwards",
        "copy Pictures/Grandpa 80th to Backup, then zip it",
        "what's in Downloads/Setup files? show me",
        "Backup/Phone backups swallowed half my drive",
        "give me an overview of Backup/Phone backups first",
        "turn Documents/Tax papers 2023 into a single compressed file",
    ];
    let got: Vec<String> = cases
        .iter()
        .map(|c| format!("{c}\n  {}", read(c)))
        .collect();
    expect![[r#"
        I forgot what I saved in Projects/garden planner, can you list it?
          ["Projects/garden planner"] [] []
        delete the folder Downloads/Old printer drivers, I don't need them
          [] ["Downloads/Old printer drivers"] []
        the Pictures/Phone backup folder holds pictures
          [] ["Pictures/Phone backup"] []
        a copy of Music/Wedding playlist needs to go to Backup/Music too
          [] ["Music/Wedding playlist"] ["Backup/Music"]
        move the extra copies to Videos/Extra copies instead of deleting them
          [] [] ["Videos/Extra copies"]
        which document in Work/Clients mentions the late payment penalty
          ["Work/Clients"] [] []
        what does config.yaml in Projects/site say
          ["Projects/site"] ["config.yaml"] []
        everything in Downloads/Mac belongs on External/Big Files
          ["Downloads/Mac", "External/Big Files"] [] []
        how big is Unity/Projects total size?
          [] ["Unity/Projects"] []
        delete every .bak file in Projects/photo booth
          ["Projects/photo booth"] [] []
        the files in Documents/Inbox are all named like scan_0043.pdf
          ["Documents/Inbox"] ["scan_0043.pdf"] []
        please put Documents/School/Year 10 into a zip file, Backup/year-10.zip
          [] ["Documents/School/Year 10"] ["Backup/year-10.zip"]
        list everything in Documets/School
          ["Documents/School"] [] []
        zip up Documents/School/Year 9 projects so I can send it to my teacher
          [] ["Documents/School/Year 9 projects"] []
        change the names of the .png files in Pictures/Blog images to lowercase
          ["Pictures/Blog images"] [] []
        find files in Documents/Work stuff older than two years and delete them
          ["Documents/Work stuff"] [] []
        any file in Documents/Shared family that has zero bytes in it should go
          ["Documents/Shared family"] [] []
        move those to External drive/Old videos afterwards
          [] [] ["External drive/Old videos"]
        copy Pictures/Grandpa 80th to Backup, then zip it
          [] ["Pictures/Grandpa 80th"] ["Backup"]
        what's in Downloads/Setup files? show me
          ["Downloads/Setup"] [] []
        Backup/Phone backups swallowed half my drive
          [] ["Backup/Phone backups"] []
        give me an overview of Backup/Phone backups first
          ["Backup/Phone backups"] [] []
        turn Documents/Tax papers 2023 into a single compressed file
          [] ["Documents/Tax papers 2023"] []"#]]
    .assert_eq(&got.join("\n"));
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
    // A bare year after "before" or "after" (regression from plain5).
    check(
        "the statements in Documents/Bank statements from before 2020 could be tucked away",
        expect![[r#"
            locations=["Documents/Bank statements"]
            modified_before=Some("2020-01-01")"#]],
    );
    check(
        "anything in Documents/Football club nobody has edited since before 2023",
        expect![[r#"
            locations=["Documents/Football club"]
            modified_before=Some("2023-01-01")"#]],
    );
    check(
        "the photos taken after 2021",
        expect![[r#"
        extensions=["jpg", "jpeg", "png", "gif", "bmp", "tif", "tiff", "webp", "heic", "heif", "svg", "ico", "raw", "cr2", "cr3", "nef", "arw", "dng", "orf", "rw2", "psd", "xcf", "avif"]
        modified_after=Some("2022-01-01")"#]],
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
    // Regression: "or heavier" after a size was no threshold.
    check(
        "is even one of the scans in Surveying/Raw 2 GB or heavier?",
        expect![[r#"
        locations=["Surveying/Raw"]
        min_size=Some("2GB")"#]],
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
    // The request is read in its language first ("de" is "from" in French and Spanish only).
    let read = |text: &str| {
        crate::rules::lexicon::lexicon()
            .to_english(text, |_| false)
            .map(|(_, english)| english)
            .unwrap()
    };
    check(
        &read("trie les fichiers de Téléchargements par type"),
        expect![[r#"locations=["Téléchargements"]"#]],
    );
    check(
        &read("haz un zip de Facturas"),
        expect![[r#"
            objects=["Facturas"]
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
