//! Tests of paths and names read whole: spaces, capitals, prepositions and misspellings inside
//! them, and a request that opens with a folder.

use super::*;

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

/// Names with a dash, brackets, a case's "v.", little words between capitals, a school year or a
/// company's "GmbH" are read whole (regressions from eval/plans-dev8.jsonl: m005, m004, m006,
/// m089, m001, m002, m024), and so is a tar without compression.
#[test]
fn names_with_dashes_brackets_and_little_words_are_read_whole() {
    check(
        "Downloads/Lease Agreement – Flat 3B (signed).pdf goes in Rentals/Elm Street 14/Leases",
        expect![[r#"
            objects=["Downloads/Lease Agreement – Flat 3B (signed).pdf"]
            targets=["Rentals/Elm Street 14/Leases"]"#]],
    );
    check(
        "list everything in Law Office/Clients/Okonkwo v. Hartley, hidden files too",
        expect![[r#"
            locations=["Law Office/Clients/Okonkwo v. Hartley"]
            whole_root=true"#]],
    );
    check(
        "copy Knitting/Patterns/Aran Cardigan v2.pdf to Knitting/On the Needles; keep both",
        expect![[r#"
            objects=["Knitting/Patterns/Aran Cardigan v2.pdf"]
            targets=["Knitting/On the Needles"]"#]],
    );
    check(
        "pack Teaching/2025-26 Grades into Archive/grades-2025-26.zip",
        expect![[r#"
            objects=["Teaching/2025-26 Grades"]
            targets=["Archive/grades-2025-26.zip"]
            format=Some("zip")"#]],
    );
    check(
        "roll Game Dev/Builds/v0.9.3-beta (Steam) into Game Dev/Builds/old/v0.9.3-beta.tar",
        expect![[r#"
            objects=["Game Dev/Builds/v0.9.3-beta (Steam)"]
            targets=["Game Dev/Builds/old/v0.9.3-beta.tar"]
            format=Some("tar")"#]],
    );
    check(
        "peek into Translation/Clients/Kaufmann GmbH/glossary-export (2).zip for me",
        expect![[r#"
            locations=["Translation/Clients/Kaufmann GmbH/glossary-export (2).zip"]
            query=Some("me")"#]],
    );
    check(
        "summarise Nonprofit/Grants/Wellcome call 2027 (guidance notes).pdf in 5 sentences",
        expect![[r#"
            objects=["Nonprofit/Grants/Wellcome call 2027 (guidance notes).pdf"]
            sentences=Some(5)"#]],
    );
    check(
        "make a plain tar of Reading/ML at Backup/ml-papers",
        expect![[r#"
        locations=["Reading/ML", "Backup/ml-papers"]
        format=Some("tar")"#]],
    );
}

/// Every level, said many ways (m010, m100).
#[test]
fn every_level_is_recursive() {
    check(
        "report the identical files in Law Office/Discovery in every subfolder",
        expect![[r#"
            locations=["Law Office/Discovery"]
            recursive=Some(true)"#]],
    );
    check(
        "list Kanzlei/Mandanten/Berger down to the last level",
        expect![[r#"
            objects=["Kanzlei/Mandanten/Berger"]
            recursive=Some(true)"#]],
    );
}

/// Brackets and dashes inside a path, a range of years, a name with a dash in capitals, a
/// tag word inside a path (n001, n002, n003, n004, n026, n045, n049, n056).
#[test]
fn brackets_ranges_and_dashed_names_stay_in_the_path() {
    check(
        "squash Video Work/Halvorsen Wedding (2026)/Proxies into External/Cold Storage/halvorsen-proxies.tar.gz",
        expect![[r#"
            objects=["Video Work/Halvorsen Wedding (2026)/Proxies"]
            targets=["External/Cold Storage/halvorsen-proxies.tar.gz"]
            format=Some("tar.gz")"#]],
    );
    check(
        "tag Vet Clinic/Patients/Biscuit (Beagle)/xray 2026-11-02.dcm with Radiology",
        expect![[r#"
            objects=["Vet Clinic/Patients/Biscuit (Beagle)/xray 2026-11-02.dcm"]
            tags=["Radiology"]"#]],
    );
    check(
        "can u list Stamps/Incoming/ebay lot 4471 – Penny Reds.zip",
        expect![[r#"objects=["Stamps/Incoming/ebay lot 4471 – Penny Reds.zip"]"#]],
    );
    check(
        "which file types make up the bulk of Astronomy/Archive 2019–2025",
        expect![[r#"locations=["Astronomy/Archive 2019–2025"]"#]],
    );
    check(
        "new folder Handover inside Dorm Move-Out",
        expect![[r#"
            locations=["Dorm Move-Out"]
            objects=["Handover"]"#]],
    );
    check(
        "need a new folder under Beekeeping/Hive Logs called Hive 7 – Carniolan (split May 2026)",
        expect![[r#"
            locations=["Beekeeping/Hive Logs"]
            name=Some("Hive 7 – Carniolan (split May 2026)")"#]],
    );
    check(
        "extract Downloads/a.zip to Brewery/Labels and skip existing ones",
        expect![[r#"
            objects=["Downloads/a.zip"]
            targets=["Brewery/Labels"]
            exclude=["existing"]"#]],
    );
    check(
        "pick up a new trick, hive-log-merger, which stitches my hive notes together",
        expect![[r#"name=Some("hive-log-merger")"#]],
    );
    check(
        "Notes → Archive/sem1-notes.zip and delete the folder once zipped",
        expect![[r#"
            objects=["Archive/sem1-notes.zip"]
            format=Some("zip")
            delete_originals=true"#]],
    );
}

#[test]
fn a_short_bracket_and_a_last_word_in_lower_case_end_a_name() {
    check(
        "summarize Midwifery/Letters/Referral – Mrs Okafor (consultant) 2026-11.pdf in 3 sentences",
        expect![[r#"
            objects=["Midwifery/Letters/Referral – Mrs Okafor (consultant) 2026-11.pdf"]
            sentences=Some(3)"#]],
    );
    check(
        "pack Surveying/Jobs/2026-14 Mill Lane (point clouds) into External/mill-lane.tar.zst",
        expect![[r#"
            objects=["Surveying/Jobs/2026-14 Mill Lane (point clouds)"]
            targets=["External/mill-lane.tar.zst"]
            format=Some("tar.zst")"#]],
    );
    check(
        "add _clean to the end of each name in Podcast Transcripts/Final (so ep42.docx becomes ep42_clean.docx)",
        expect![[r#"
            locations=["Podcast Transcripts/Final"]
            pattern=Some("{name}_clean.{ext}")"#]],
    );
    check(
        "move Photos/Trip (the old ones) to Archive",
        expect![[r#"
        objects=["Photos/Trip", "old"]
        targets=["Archive"]"#]],
    );
    check(
        "creat a new foldr Documents/Car insurance",
        expect![[r#"objects=["Documents/Car insurance"]"#]],
    );
    check(
        "zip Photos/Italy trip into Backup/italy.zip",
        expect![[r#"
        objects=["Photos/Italy trip"]
        targets=["Backup/italy.zip"]
        format=Some("zip")"#]],
    );
    check(
        "sumarize Documents/Book club/chapter 3 notes.docx",
        expect![[r#"objects=["Documents/Book club/chapter 3 notes.docx"]"#]],
    );
    // Not a name's word: a kind of file, a verb said of the folder, a word of the lexicon.
    check(
        "show Work/Reports documents I've worked on in the past few days",
        expect![[r#"
            objects=["Work/Reports", "documents"]
            modified_after=Some("3days")"#]],
    );
    check(
        "divide each bill by what Bakery/Invoices covers",
        expect![[r#"objects=["Bakery/Invoices"]"#]],
    );
    check(
        "cpoy Recipes/Baking ovr to Backup/Recipes plz",
        expect![[r#"
        objects=["Recipes/Baking"]
        targets=["Backup/Recipes"]"#]],
    );
    check(
        "Surveying/Scans/Raw — is even one of them 2 GB or heavier?",
        expect![[r#"
            objects=["Surveying/Scans/Raw"]
            min_size=Some("2GB")
            refers_back=true"#]],
    );
}

#[test]
fn described_folders_are_no_places() {
    check(
        "Pharmacy/Reports would be easier to browse in monthly folders",
        expect![[r#"
            objects=["Pharmacy/Reports"]
            kind=Some("dir")"#]],
    );
    check("give each kind its own home", expect![[r#""#]]);
    check(
        "put the pictures in Pictures/Inbox into one folder per year",
        expect![[r#"
        locations=["Pictures/Inbox"]
        extensions=["jpg", "jpeg", "png", "gif", "bmp", "tif", "tiff", "webp", "heic", "heif", "svg", "ico", "raw", "cr2", "cr3", "nef", "arw", "dng", "orf", "rw2", "psd", "xcf", "avif"]"#]],
    );
}

/// A settings file named by its path (".zshrc", ".DS_Store") is a file; a folder whose name
/// starts with a dot (".git", ".thumbnails") is not, and neither is an extension said alone.
#[test]
fn a_dotfile_in_a_path_is_a_file() {
    for file in [
        "Dev/dotfiles/.zshrc",
        "Dev/dotfiles/.zsh_aliases",
        "Drop/.DS_Store",
        "Projects/app/.env",
    ] {
        assert!(crate::rules::looks_like_file(file), "{file} is a file");
    }
    for not_a_file in [
        "Projects/app/.git",
        "Pictures/.thumbnails",
        ".jpg",
        ".zshrc",
        "Dev/.x",
    ] {
        assert!(
            !crate::rules::looks_like_file(not_a_file),
            "{not_a_file} is no file"
        );
    }
}

#[test]
fn a_second_download_keeps_its_copy_number() {
    check(
        "move invoice (2).pdf to Archive",
        expect![[r#"
            objects=["invoice (2).pdf"]
            targets=["Archive"]"#]],
    );
    check(
        "delete Downloads/setup (1).exe",
        expect![[r#"
            objects=["Downloads/setup (1).exe"]"#]],
    );
}

/// Nouns in lower case after a folder's name written with a capital go on it when a stop, the
/// end, a link or a verb follows; not a verb said of a name that opens its part, nor a word for
/// what is measured (regressions from eval/plans-plain5.jsonl: u0xx paths cut short).
#[test]
fn nouns_after_a_name_written_with_a_capital_go_on_it_where_it_plainly_ends() {
    let g = Grounding {
        root_name: None,
        entries: Vec::new(),
        said: Vec::new(),
    };
    let read = |text: &str| {
        let s = extract(text, &g);
        format!(
            "{text}\n  {:?} {:?} {:?}",
            s.locations, s.objects, s.targets
        )
    };
    let got: Vec<String> = [
        "go through Documents/Old school reports and name each file after what it contains",
        "Documents/Old school reports came off Mum's computer",
        "lowercase every .jpg name in Shop/Product photos",
        "move the spare copies to Pictures/Spare scans, then tell me",
        "tell me what's using the space in Pictures/Grandma albums",
        "after that wipe Documents/Household bills from this machine",
        "break down Games/Old saves by file type and size",
        "the statements in Documents/Bank statements from before 2020 could be tucked away",
        "put a copy of Pictures/Grandma albums on Backup/Family photos, in case",
        // Not these: a verb said of the name, a word for what is measured, a generic word.
        "nothing in PhD/Literature moves; I only want every paper marked with its subject",
        "Videos/Drohne platzt from all Nähten",
        "how big is Unity/Projects total size?",
        "sort Downloads/Misc files by type",
        "Games/Minecraft/downloads belongs to my son",
        "anything in Documents/Football club nobody has edited since 2023",
        "one of each is enough, ideally the one in Ebooks/Kindle survives",
    ]
    .iter()
    .map(|t| read(t))
    .collect();
    expect![[r#"
        go through Documents/Old school reports and name each file after what it contains
          ["Documents/Old school reports"] [] []
        Documents/Old school reports came off Mum's computer
          [] ["Documents/Old school reports"] []
        lowercase every .jpg name in Shop/Product photos
          ["Shop/Product photos"] [] []
        move the spare copies to Pictures/Spare scans, then tell me
          [] [] ["Pictures/Spare scans"]
        tell me what's using the space in Pictures/Grandma albums
          ["Pictures/Grandma albums"] [] []
        after that wipe Documents/Household bills from this machine
          [] ["Documents/Household bills"] []
        break down Games/Old saves by file type and size
          [] ["Games/Old saves"] []
        the statements in Documents/Bank statements from before 2020 could be tucked away
          ["Documents/Bank statements"] [] []
        put a copy of Pictures/Grandma albums on Backup/Family photos, in case
          [] ["Pictures/Grandma albums"] ["Backup/Family photos"]
        nothing in PhD/Literature moves; I only want every paper marked with its subject
          ["PhD/Literature"] [] []
        Videos/Drohne platzt from all Nähten
          [] ["Videos/Drohne"] []
        how big is Unity/Projects total size?
          [] ["Unity/Projects"] []
        sort Downloads/Misc files by type
          [] ["Downloads/Misc"] []
        Games/Minecraft/downloads belongs to my son
          [] ["Games/Minecraft/downloads"] []
        anything in Documents/Football club nobody has edited since 2023
          ["Documents/Football club"] [] []
        one of each is enough, ideally the one in Ebooks/Kindle survives
          [] [] []"#]]
    .assert_eq(&got.join("\n"));
}

/// A name one part cuts short is read whole when the request says it whole elsewhere
/// (`Grounding::said`); a word in lower case between two parts written with a capital is the
/// name's, "photos/videos" is not; a possessive and an ordinal go on a name; a misspelt common
/// folder is corrected deeper in a path; pictures "of" someone are no place.
#[test]
fn names_said_whole_elsewhere_between_capitals_possessives_and_ordinals() {
    let plain = Grounding::default();
    let said = Grounding::default().with_names_said(
        "Music/Band admin mixes contracts; archive Music/Band admin as Backup/band.tar.gz",
    );
    let read = |text: &str, g: &Grounding| {
        let s = extract(text, g);
        format!(
            "{text}\n  {:?} {:?} {:?}",
            s.locations, s.objects, s.targets
        )
    };
    let got: Vec<String> = [
        ("Music/Band admin blends gig contracts and setlists", &said),
        ("Music/Band admin blends gig contracts and setlists", &plain),
        ("sort Shop/Product photos/Mugs by type", &plain),
        ("sort Pictures/Trip photos/videos by date", &plain),
        ("sort Documents/From Dad's PC by type", &plain),
        ("Pictures/Baby first week is precious", &plain),
        ("plz orgnise Pictures/Screenshtos by type", &plain),
        ("two thousand photos of Noah in Pictures/Baby", &plain),
        (
            "rename the pictures in Pictures/Trip like beach_01.jpg",
            &plain,
        ),
    ]
    .iter()
    .map(|(t, g)| read(t, g))
    .collect();
    expect![[r#"
        Music/Band admin blends gig contracts and setlists
          [] ["Music/Band admin"] []
        Music/Band admin blends gig contracts and setlists
          [] ["Music/Band"] []
        sort Shop/Product photos/Mugs by type
          [] ["Shop/Product photos/Mugs"] []
        sort Pictures/Trip photos/videos by date
          [] ["Pictures/Trip", "photos/videos"] []
        sort Documents/From Dad's PC by type
          [] ["Documents/From Dad's PC"] []
        Pictures/Baby first week is precious
          [] ["Pictures/Baby first week"] []
        plz orgnise Pictures/Screenshtos by type
          [] ["Pictures/Screenshots"] []
        two thousand photos of Noah in Pictures/Baby
          ["Pictures/Baby"] [] []
        rename the pictures in Pictures/Trip like beach_01.jpg
          ["Pictures/Trip"] ["beach_01.jpg"] []"#]]
    .assert_eq(&got.join("\n"));
    // A folder that exists is spelt as it is: "Projets" is no misspelt "Projects" there.
    let grounded = Grounding {
        entries: vec!["Documents/Projets".into()],
        ..Grounding::default()
    };
    assert_eq!(
        extract("zip Documents/Projets", &grounded).objects,
        ["Documents/Projets"]
    );
    assert_eq!(
        extract("zip Documents/Projets", &plain).objects,
        ["Documents/Projects"]
    );
}
