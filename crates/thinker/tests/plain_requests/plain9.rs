//! Regressions found reading plain9 (issue 19): where names of two or three words end (an
//! adverb, a place, a modal, a slash further on), and more.

use serde_json::json;

use super::check;

/// A lower-case noun after a name written with a capital goes on it up to an adverb ("last",
/// "about", "still"), a place ("in Backup/…"), a modal after a plural ("takes can"), or a slash
/// further on ("guest room/Messages"); "U12/Paperwork" and "incident report Annecy.pdf" too.
#[test]
fn names_of_words_end_at_an_adverb_a_place_or_a_modal() {
    check(&[
        (
            "I saved the jar label artwork to Downloads/Jam stall about ten times over. Strip out the repeats",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(0, "path", json!("Downloads/Jam stall"))],
        ),
        (
            "Keep a copy of Projects/Vespa restoration in Backup/Vespa",
            &["manage-files/copy"],
            &[
                (0, "source", json!(["Projects/Vespa restoration"])),
                (0, "target", json!("Backup/Vespa")),
            ],
        ),
        (
            "Videos/Magic practice/Botched takes can be deleted, I dropped the cards in every single one",
            &["manage-files/delete"],
            &[(0, "path", json!(["Videos/Magic practice/Botched takes"]))],
        ),
        (
            "I don't have time to read Documents/Paragliding/incident report Annecy.pdf; what's the short version?",
            &["parse-content/summarize"],
            &[(
                0,
                "path",
                json!("Documents/Paragliding/incident report Annecy.pdf"),
            )],
        ),
        (
            "Documents/Airbnb guest room/Messages is a pile of guest emails; sort them by what they're about into Check-in, Complaints and Reviews",
            &["organize-by-content/classify", "organize-by-content/sort"],
            &[(0, "path", json!("Documents/Airbnb guest room/Messages"))],
        ),
        (
            "the newest house rules, Documents/Airbnb guest room/house rules v2.pdf, need a 'Current' label so the cleaner knows",
            &["manage-files/tag"],
            &[(
                0,
                "source",
                json!(["Documents/Airbnb guest room/house rules v2.pdf"]),
            )],
        ),
        (
            "classify Documents/Hockey U12/Paperwork by subject into Medical, Consent and Fees",
            &["organize-by-content/classify", "organize-by-content/sort"],
            &[(0, "path", json!("Documents/Hockey U12/Paperwork"))],
        ),
        // A verb said of the folder still ends it.
        (
            "I suspect most of Documents/Tennis club dates from the old committee. Roughly how old is what's in there, year against year?",
            &["analyze-directory/analyze"],
            &[(0, "path", json!("Documents/Tennis club"))],
        ),
    ]);
}

/// What is not a folder or a change: a word inside a file's name is never "fixed" ("payout" is
/// no "layout"), a weekday is when, "full of PPL exam PDFs" says what fills it, "the raw clips"
/// are videos, not camera RAW files.
#[test]
fn names_days_and_kinds_read_as_written() {
    check(&[
        (
            "the accountant has Downloads/old Airbnb payout 2022.csv already, so it can go to the trash",
            &["manage-files/delete"],
            &[(0, "path", json!(["Downloads/old Airbnb payout 2022.csv"]))],
        ),
        (
            "every Tuesday the coach forwards the identical drill diagrams again, so Documents/Hockey U12/Drills is bloated with repeats. Thin it to a single copy per drill",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(0, "path", json!("Documents/Hockey U12/Drills"))],
        ),
        (
            "Downloads/Ground school is full of PPL exam PDFs, airfield charts and briefing videos. Before anything moves, tell me how many would go into each kind-of-file folder",
            &["organize-by-type/preview_categories"],
            &[(0, "path", json!("Downloads/Ground school"))],
        ),
    ]);
    // "the raw clips" are videos, not camera RAW files.
    check(&[(
        "delete the raw clips in Videos/Magic practice/2024",
        &["manage-files/find", "manage-files/delete"],
        &[(
            0,
            "extension",
            json!("mp4,mkv,mov,avi,wmv,webm,m4v,mpg,mpeg,flv,3gp,srt,vtt,ass"),
        )],
    )]);
}

/// What a later part points at: a quoted tag after "tag it", a label with a reason after it,
/// "the project folder" (a word of the path said before), "that trip folder's space".
#[test]
fn later_parts_point_at_what_was_said() {
    check(&[
        (
            "summarise Documents/Fencing/rule changes 2026.pdf, then tag it 'Briefed'",
            &["parse-content/summarize", "manage-files/tag"],
            &[
                (
                    1,
                    "source",
                    json!(["Documents/Fencing/rule changes 2026.pdf"]),
                ),
                (1, "add", json!("Briefed")),
            ],
        ),
        (
            "the newest house rules, Documents/Airbnb guest room/house rules v2.pdf, need a 'Current' label so the cleaner knows",
            &["manage-files/tag"],
            &[(0, "add", json!("Current"))],
        ),
        (
            "the Vespa went to a new owner on Saturday. Keep a copy of Projects/Vespa restoration in Backup/Vespa and after that remove the project folder from the laptop",
            &["manage-files/copy", "manage-files/delete"],
            &[(1, "path", json!(["Projects/Vespa restoration"]))],
        ),
        (
            "both phones backed up the fjord pictures, so Pictures/Norway road trip 2025 has exact repeats. Shunt the extra copies to Pictures/Norway spares rather than binning them, then report how that trip folder's space breaks down",
            &[
                "remove-duplicates/scan",
                "remove-duplicates/remove",
                "analyze-directory/analyze",
            ],
            &[
                (1, "target", json!("Pictures/Norway spares")),
                (2, "path", json!("Pictures/Norway road trip 2025")),
            ],
        ),
    ]);
}

/// Duplicates said plainly: "the copy I made first" and "the OG" are the oldest, "lookalikes"
/// are similar photos, "any folder under it" is every level; "I scanned … under new names" tells
/// what happened, it asks for no scan and no new folder.
#[test]
fn duplicates_said_plainly() {
    check(&[
        (
            "Pictures/Coins holds obverse and reverse scans, and I scanned a few coins twice under new names. Remove the identical ones and keep the copy I made first",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(1, "keep", json!("oldest"))],
        ),
        (
            "Pictures/Cube comps is full of dupes, everyone airdropped me the same pics lol; nuke the extras but keep the OG of each",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(1, "keep", json!("oldest"))],
        ),
        (
            "walking the Camino I kept snapping the same cathedral façade again and again. In Pictures/Camino 2025/Cathedrals, out of every bunch of lookalikes only the largest image survives",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(0, "similar", json!(true)), (1, "keep", json!("largest"))],
        ),
        (
            "the hockey treasurer asked whether Documents/Hockey U12 or any folder under it has files saved more than once. A CSV report will do, no deleting",
            &["remove-duplicates/scan"],
            &[(0, "recursive", json!(true)), (0, "format", json!("csv"))],
        ),
    ]);
}

/// Sizes and names said plainly: "past 8 GB" is over it; "give them .csv endings" changes the
/// extension; "tack _v2 onto every filename" appends.
#[test]
fn sizes_and_new_names_said_plainly() {
    check(&[
        (
            "Twitch check: is any single recording in Videos/Stream VODs past 8 GB?",
            &["search-files/find"],
            &[(0, "min_size", json!("8GB"))],
        ),
        (
            "the logger saves files as .dat but they're really CSVs; in Data/Weather station/Raw give them .csv endings, same names",
            &["manage-files/find", "batch-rename/rename"],
            &[(1, "pattern", json!("{name}.csv"))],
        ),
        (
            "the foam armor templates in Projects/Cosplay/Armor templates were all revised; tack _v2 onto every filename, extension kept",
            &["manage-files/find", "batch-rename/rename"],
            &[(1, "pattern", json!("{name}_v2.{ext}"))],
        ),
    ]);
}

/// After a copy (`keeps_source`), a part naming no place acts on the originals, not on the copy;
/// "and only then" sequences; "duplicate it into" and "a duplicate on" are copies.
#[test]
fn after_a_copy_the_originals_are_what_is_acted_on() {
    check(&[
        (
            "Pictures/Camino 2025 is thirty-three days of walking. Safety first: duplicate it into Backup/Camino, and only then give every walking day its own folder",
            &["manage-files/copy", "organize-by-type/by_date"],
            &[
                (0, "source", json!(["Pictures/Camino 2025"])),
                (0, "target", json!("Backup/Camino")),
                (1, "path", json!("Pictures/Camino 2025")),
            ],
        ),
        // "the copy" is the copy.
        (
            "copy Pictures/Grandpa 80th to Backup, then make a zip of the copy called Backup/grandpa-80th.zip",
            &["manage-files/copy", "archive-files/create"],
            &[(1, "source", json!("$step(1).moved.to"))],
        ),
        (
            "Maria cleans between guests and wants her own cleaning checklist.pdf from Documents/Airbnb guest room; a duplicate on USB/Cleaner is perfect",
            &["manage-files/copy"],
            &[(0, "target", json!("USB/Cleaner"))],
        ),
    ]);
}

/// An archive named in a sentence before: "put its contents in X" and "its files should sit in
/// X" unpack it there (a later "half of them" is what it holds, not the archive); "weed out" is
/// a removal; "the regional entry list just came out" tells, it lists nothing.
#[test]
fn an_archive_named_before_is_unpacked_where_its_contents_go() {
    check(&[
        (
            "Jo from the rescue sent Downloads/fostering-photos-from-Jo.zip. Put its contents in Pictures/Foster kittens, and since I already have half of them, weed out the exact doubles afterwards",
            &[
                "archive-files/extract",
                "remove-duplicates/scan",
                "remove-duplicates/remove",
            ],
            &[
                (0, "path", json!("Downloads/fostering-photos-from-Jo.zip")),
                (0, "target", json!("Pictures/Foster kittens")),
                (1, "path", json!("Pictures/Foster kittens")),
            ],
        ),
        (
            "I signed up to referee, and the federation's material came as Downloads/fencing-referee-course.zip. Its files should sit in Documents/Fencing/Referee course",
            &["archive-files/extract"],
            &[(0, "target", json!("Documents/Fencing/Referee course"))],
        ),
        (
            "what's currently in Documents/Fencing/Competitions? the regional entry list just came out",
            &["manage-files/list"],
            &[(0, "path", json!("Documents/Fencing/Competitions"))],
        ),
    ]);
}

/// Reading and listing said plainly: "every word of X.docx" is its full text, "called after its
/// contents" asks for suggested names, "a full inventory …, nested event folders too" lists every
/// level (the folders said for the levels are no kind of thing asked), "all over the shop" is a
/// folder to tidy.
#[test]
fn reading_naming_and_listing_said_plainly() {
    check(&[
        (
            "I want to go over every word of Documents/Airbnb guest room/listing description.docx before I publish it",
            &["parse-content/extract_text"],
            &[(
                0,
                "path",
                json!("Documents/Airbnb guest room/listing description.docx"),
            )],
        ),
        (
            "the reptile vet's letters in Documents/Tortoise/Vet scans came off the scanner as scan001.pdf and so forth; I'd rather each file were called after its contents",
            &["organize-by-content/name", "organize-by-content/rename"],
            &[(0, "path", json!("Documents/Tortoise/Vet scans"))],
        ),
        (
            "I'd like a full inventory of Documents/Orienteering, nested event folders too, not just the top level",
            &["manage-files/list"],
            &[
                (0, "path", json!("Documents/Orienteering")),
                (0, "recursive", json!(true)),
            ],
        ),
        (
            "Downloads/Cosplay: wig references, foam PDFs and screenshots all over the shop",
            &["organize-by-type/organize"],
            &[(0, "path", json!("Downloads/Cosplay"))],
        ),
    ]);
}

/// A name ending in a verb's plain form before a link ("Job hunt onto", "Family archive first"),
/// once the sentence has its action; a "when" in mid-sentence asks nothing; "here" ends a name.
#[test]
fn names_ending_in_a_verb_before_a_link() {
    check(&[
        (
            "my laptop gets wiped when I start the new job, so back up Documents/Job hunt onto Backup/Job hunt 2026 first",
            &["manage-files/copy"],
            &[
                (0, "source", json!(["Documents/Job hunt"])),
                (0, "target", json!("Backup/Job hunt 2026")),
            ],
        ),
        (
            "the laptop goes in for repair tomorrow, so make a copy of Pictures/Dad's slides on Backup/Family archive first",
            &["manage-files/copy"],
            &[(0, "target", json!("Backup/Family archive"))],
        ),
        (
            "handing the club laptop back to the boathouse tomorrow: Documents/Rowing club goes onto USB/Rowing as a copy, after which remove Documents/Rowing club here",
            &["manage-files/copy", "manage-files/delete"],
            &[
                (0, "source", json!(["Documents/Rowing club"])),
                (1, "path", json!(["Documents/Rowing club"])),
            ],
        ),
    ]);
}

/// What landed in a place, listed as three kinds, is everything there: "Give them type folders"
/// sorts that place by type, "build those under X" puts the folders in X.
#[test]
fn what_landed_in_a_place_is_what_a_later_them_means() {
    check(&[(
        "trench photos, context sheets and finds lists from the dig all landed in Imports/Dig card 2026. Give them type folders, and build those under Documents/Dig 2026 rather than inside Imports",
        &["organize-by-type/organize"],
        &[
            (0, "path", json!("Imports/Dig card 2026")),
            (0, "target", json!("Documents/Dig 2026")),
        ],
    )]);
}

/// "track it down" is a find (a phrasal verb around "it"), what "came up in some letter" is
/// looked for in the text, "past three years old" is older than that, "put copies of the
/// matches on X" copies them there; "the landlord's thingy" names
/// nothing to look for.
#[test]
fn finding_and_copying_said_plainly() {
    check(&[
        (
            "guest paperwork past three years old has no business staying in Documents/Airbnb guest room; track it down and trash it",
            &["search-files/find", "manage-files/delete"],
            &[
                (0, "path", json!("Documents/Airbnb guest room")),
                (0, "modified_before", json!("1095days")),
            ],
        ),
        (
            "the flying club's insurance excess came up in some letter saved under Documents. Track it down and put copies of the matches on USB/Flying club",
            &["search-files/search", "manage-files/copy"],
            &[
                (1, "source", json!("$step(1).paths")),
                (1, "target", json!("USB/Flying club")),
            ],
        ),
        (
            "need the landlord's thingy, track it down",
            &["search-files/search"],
            &[(0, "query", json!(null))],
        ),
    ]);
}

/// "afterwards it lives in X": where a thing will live is where it goes.
#[test]
fn where_a_thing_will_live_is_where_it_goes() {
    check(&[(
        "open Downloads/agility judge feedback.pdf for me, and afterwards it lives in Documents/Agility",
        &["parse-content/extract_text", "manage-files/move"],
        &[
            (1, "source", json!(["Downloads/agility judge feedback.pdf"])),
            (1, "target", json!("Documents/Agility")),
        ],
    )]);
}

/// Copies placed somewhere go there; copies said of where they are stay a place (a regression
/// of this session: "delete the resized copies of the photos in Photos" planned a delete of
/// every picture). The originals "shouldn't linger", "can go once they're packed", "originals
/// removed": deleted after packing.
#[test]
fn copies_said_where_they_are_and_originals_let_go() {
    check(&[
        (
            "delete the resized copies of the photos in Photos",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[(0, "path", json!("Photos")), (0, "similar", json!(true))],
        ),
        (
            "Videos/Magic practice/2024 can become a single tar.zst, and the raw clips can go once they're packed",
            &["archive-files/create"],
            &[(0, "delete_originals", json!(true))],
        ),
        (
            "Data/Weather station still carries readings logged before 2020. Those belong in Archive/weather-old.zip now, and the originals shouldn't linger afterwards",
            &["search-files/find", "archive-files/create"],
            &[(1, "delete_originals", json!(true))],
        ),
    ]);
}

/// "onto External disk/VOD archive": a name ending in a verb's spelling after "onto" (English
/// puts no verb last); "need to leave the laptop" moves them off it.
#[test]
fn a_name_ending_in_a_verb_after_onto() {
    check(&[(
        "my stream recordings over 5 GB need to leave the laptop: out of Videos/Stream VODs and onto External disk/VOD archive",
        &["search-files/find", "manage-files/move"],
        &[
            (0, "min_size", json!("5GB")),
            (1, "target", json!("External disk/VOD archive")),
        ],
    )]);
}

/// "What files does X have? After that, read me 'y.txt' from it": a listing, then the file read
/// in that folder ("After that," sequences; "from it" is the folder said).
#[test]
fn a_file_read_from_the_folder_just_listed() {
    check(&[(
        "Shelly the tortoise is waking up from her winter sleep. What files does Documents/Tortoise have? After that, read me 'hibernation weights.txt' from it",
        &["manage-files/list", "parse-content/extract_text"],
        &[
            (0, "path", json!("Documents/Tortoise")),
            (
                1,
                "path",
                json!("Documents/Tortoise/hibernation weights.txt"),
            ),
        ],
    )]);
}

/// "anything there from more than two years back can then be binned": "then" between a modal
/// and its verb says when (no step of its own), and "binned" is deleted; "those old sheets"
/// names what it means itself.
#[test]
fn a_change_said_in_the_passive_with_then() {
    check(&[
        (
            "let me see the contents of Documents/Fencing/Old results; anything there from more than two years back can then be binned",
            &[
                "manage-files/list",
                "search-files/find",
                "manage-files/delete",
            ],
            &[
                (1, "modified_before", json!("730days")),
                (2, "path", json!("$step(2).nodes")),
            ],
        ),
        (
            "Documents/Gym log: sheets from earlier than 2022 can be squashed into Archive/gym-old.zip, and those old sheets deleted once they're inside",
            &["search-files/find", "archive-files/create"],
            &[
                (0, "path", json!("Documents/Gym log")),
                (1, "delete_originals", json!(true)),
            ],
        ),
    ]);
}

/// A casual word for a kind of file right after a name with a capital stays as written: it may
/// end the name ("onto Backup/House docs" was "Backup/House documents").
#[test]
fn a_kind_word_after_a_name_stays_as_written() {
    check(&[(
        "copy Documents/Heat pump onto Backup/House docs too",
        &["manage-files/copy"],
        &[(0, "target", json!("Backup/House docs"))],
    )]);
}
