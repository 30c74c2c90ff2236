//! Tests of splitting requests into clauses.

use super::*;

fn texts(r: &str) -> Vec<String> {
    split(r)
        .into_iter()
        .map(|c| {
            if c.header {
                format!("[header] {}", c.text)
            } else {
                c.text
            }
        })
        .collect()
}

#[test]
fn splits_on_sequencing_words_and_verb_led_ands() {
    assert_eq!(
        texts(
            "Clean up my Downloads folder – remove duplicates, then organize the remaining \
             files into subfolders by type"
        ),
        [
            "[header] Clean up my Downloads folder",
            "remove duplicates",
            "organize the remaining files into subfolders by type"
        ]
    );
    assert_eq!(
        texts("find all .log files in Temp and delete them"),
        ["find all .log files in Temp", "delete them"]
    );
    // "and" between nouns stays inside the clause.
    assert_eq!(
        texts("move photos and videos to Media; after that zip Media"),
        ["move photos and videos to Media", "zip Media"]
    );
    assert_eq!(
        texts("remove duplicates in ~/Downloads and keep the newest copy"),
        ["remove duplicates in ~/Downloads and keep the newest copy"]
    );
    assert_eq!(
        texts("dedupe Pictures. Then sort Desktop by type"),
        ["dedupe Pictures", "sort Desktop by type"]
    );
    assert_eq!(texts("organize"), ["organize"]);
    // "which one" asks more of what the question before found.
    assert_eq!(
        texts("how many files does Zotero/storage hold, and which one is newest?"),
        ["how many files does Zotero/storage hold, which one is newest?"]
    );
    // A clause may open with a letter of two bytes (it panicked on "é").
    assert_eq!(
        texts("Résumé/cv_v9.docx, call it cv-2025.docx"),
        ["Résumé/cv_v9.docx, call it cv-2025.docx"]
    );
    // An arrow is "to", or "then" before an action.
    assert_eq!(
        texts("Downloads/pics.zip → unpack to Pictures/Anna, then dedupe there"),
        [
            "[header] Downloads/pics.zip",
            "unpack to Pictures/Anna",
            "dedupe there"
        ]
    );
    // With no verb, an arrow to an archive's name packs into it.
    assert_eq!(
        texts("Podcasts/Raw files over 500MB → Archive/raw.zip"),
        ["Podcasts/Raw files over 500MB pack into Archive/raw.zip"]
    );
    // Nor is a question.
    assert_eq!(
        texts("Unity/Projects total size? plus squash Unity/Projects/OldJam into Archive/o.tar.gz"),
        [
            "Unity/Projects total size?",
            "squash Unity/Projects/OldJam into Archive/o.tar.gz"
        ]
    );
    // A question about the agent's skills is no header.
    assert_eq!(
        texts("got anything for trimming silence off podcast audio? show me your top 2 candidates"),
        ["got anything for trimming silence off podcast audio?, show me your top 2 candidates"]
    );
    // A dash after an action starts a remark on it, no header.
    assert_eq!(
        texts("delete Podcast/ep17_take2.wav — I kept take 3"),
        ["delete Podcast/ep17_take2.wav — I kept take 3"]
    );
    // With no verb on either side, an arrow to a folder moves there.
    assert_eq!(
        texts("every .stl in Downloads → 3D Prints/Inbox; keep both if names clash"),
        ["every .stl in Downloads move to 3D Prints/Inbox, keep both if names clash"]
    );
    // What to do on a clash, said as a short order after "and", is no step of its own.
    assert_eq!(
        texts("move every .fit file from Downloads into Running/2026 and rename on clash"),
        ["move every .fit file from Downloads into Running/2026, rename on clash"]
    );
    assert_eq!(
        texts("Downloads/pack.zip → Ableton/Vol3 (extract)"),
        ["Downloads/pack.zip to Ableton/Vol3 (extract)"]
    );
    assert_eq!(
        texts("these pics → folders by date"),
        ["these pics to folders by date"]
    );
    assert_eq!(
        texts("move Podcasts/Raw files → Archive/raw.zip"),
        ["move Podcasts/Raw files to Archive/raw.zip"]
    );
    // A clause that only says the originals go ends the step before.
    assert_eq!(
        texts("pack Band/Setlists into Band/s.zip and then trash the folder itself"),
        ["pack Band/Setlists into Band/s.zip, trash the folder itself"]
    );
    assert_eq!(
        texts("zip Band/Setlists into Band/s.zip, then delete Band/Old"),
        ["zip Band/Setlists into Band/s.zip", "delete Band/Old"]
    );
    assert_eq!(
        texts("hunt for docs about the move; whatever turns up → Archive/docs.zip"),
        [
            "hunt for docs about the move",
            "whatever turns up pack into Archive/docs.zip"
        ]
    );
    // "make that …" after text the names have changes that text, in the same step.
    assert_eq!(
        texts("in Pictures/Porto the photo names start with DSC; make that Porto instead"),
        ["in Pictures/Porto the photo names start with DSC, make that Porto instead"]
    );
    assert_eq!(
        texts("Drive/Docs names all start with 'Copy of ', strip that bit off"),
        ["Drive/Docs names all start with 'Copy of ', strip that bit off"]
    );
    // A misspelt action opening the request is a step.
    assert_eq!(
        texts("dedpue Pictrues then sort downlods by tyep"),
        ["dedpue Pictrues", "sort downlods by tyep"]
    );
    // A folder someone needs is one to make.
    assert_eq!(
        texts("Photos/2024 needs an Iceland subfolder; copy Camera/SD Card into it"),
        [
            "create a new subfolder named \"Iceland\" in Photos/2024",
            "copy Camera/SD Card into it"
        ]
    );
    assert_eq!(
        texts("Tax Stuff wants a Receipts 2024 subdir"),
        ["create a new subfolder named \"Receipts 2024\" in Tax Stuff"]
    );
    // What is not wanted is what to remove.
    assert_eq!(
        texts("don't need three versions of every song in Music, just one each"),
        ["remove three versions of every song in Music, just one each"]
    );
    assert_eq!(
        texts("trash Desktop/old.docx, don't need it"),
        ["trash Desktop/old.docx, don't need it"]
    );
    assert_eq!(
        texts("I don't want to lose Writing/Novel, copy it to Backup"),
        ["I don't want to lose Writing/Novel", "copy it to Backup"]
    );
    // A superlative before a verb makes it a noun: "biggest file wins" qualifies.
    assert_eq!(
        texts("dedupe Music; biggest file wins"),
        ["dedupe Music, biggest file wins"]
    );
    // A question about what the question before found asks more of it.
    assert_eq!(
        texts("are there identical copies in Backup/Old, and how many MB are they costing me"),
        ["are there identical copies in Backup/Old, how many MB are they costing me"]
    );
    // A condition followed by an action is a step of its own.
    assert_eq!(
        texts("look in Archive/old.tar.gz first and if it looks fine extract to Code/old"),
        [
            "look in Archive/old.tar.gz first",
            "if it looks fine extract to Code/old"
        ]
    );
    // An action before a colon and only its object after it is one clause.
    assert_eq!(
        texts("tl;dr pls: Zotero/paper.pdf"),
        ["tldr pls: Zotero/paper.pdf"]
    );
    // A colon after "target" says where, inside the clause.
    assert_eq!(
        texts("Projekte/Blog please as tar.gz archive back up, target: Backup/blog.tar.gz"),
        ["Projekte/Blog please as tar.gz archive back up, target: Backup/blog.tar.gz"]
    );
}

#[test]
fn what_a_clause_says_not_to_do_is_left_out_of_matching() {
    assert_eq!(
        without_negations("which files are packed in mail.tar.zst, don't unpack it"),
        "which files are packed in mail.tar.zst"
    );
    assert_eq!(
        without_negations(
            "analyze Backup but don't bother checking for duplicates, the tree is huge"
        ),
        "analyze Backup the tree is huge"
    );
    assert_eq!(
        without_negations("zip Photos without deleting the originals"),
        "zip Photos"
    );
    assert_eq!(without_negations("don't"), "don't");
    // A condition after the action says how it behaves; one that opens the clause may be
    // the first step.
    assert_eq!(
        affirmed(
            "extract x.zip into Restore, and if a name is already taken there keep both by \
             renaming the new one"
        ),
        "extract x.zip into Restore"
    );
    assert_eq!(
        affirmed("if there are duplicates in Music delete them"),
        "if there are duplicates in Music delete them"
    );
    // Regression: a negation and a restriction that were all of the clause gave it back whole,
    // so "do not unzip" chose the extraction.
    assert_eq!(
        affirmed("do not unzip Backup/a.zip, only show what is inside"),
        "only show what is inside"
    );
    // What is left out is kept when it was the only action.
    assert_eq!(
        affirmed("Photos/DSC_4410.jpg is the first dance, name it first-dance.jpg"),
        "Photos/DSC_4410.jpg is the first dance, name it first-dance.jpg"
    );
}

#[test]
fn a_clause_that_only_qualifies_the_one_before_joins_it() {
    assert_eq!(
        texts("which notes talk about the garden shed? just the top 3"),
        ["which notes talk about the garden shed?, just the top 3"]
    );
    assert_eq!(
        texts("which category would each file in Inbox go into? don't move anything yet"),
        ["which category would each file in Inbox go into?, don't move anything yet"]
    );
    assert_eq!(
        texts("I can't remember what notes.rtf says, show me"),
        ["I can't remember what notes.rtf says, show me"]
    );
    assert_eq!(
        texts("what tools do you have for PDFs? show me 5"),
        ["what tools do you have for PDFs?, show me 5"]
    );
    assert_eq!(
        texts("preview the type folders for Unsorted, then go ahead and sort it by type"),
        ["preview the type folders for Unsorted", "sort it by type"]
    );
    assert_eq!(
        texts("show me, what is in Notes/einkauf.txt"),
        ["show me what is in Notes/einkauf.txt"]
    );
    assert_eq!(
        texts("is there duplicate junk in ~/Music/Live Sets? only files over 20 MB matter"),
        ["is there duplicate junk in ~/Music/Live Sets?, only files over 20 MB matter"]
    );
    assert_eq!(
        texts("I'd like Clients/Hoffmann as a single compressed bundle I can email, zip format"),
        ["I'd like Clients/Hoffmann as a single compressed bundle I can email, zip format"]
    );
    assert_eq!(
        texts("dedupe the .wav files in Music biger then 50MB, then zip Music"),
        [
            "dedupe the .wav files in Music biger than 50MB",
            "zip Music"
        ]
    );
    // A restriction followed by its own verb is a clause of its own.
    assert_eq!(
        texts("find the logs in Temp; just delete them"),
        ["find the logs in Temp", "just delete them"]
    );
    // A restatement, and a condition whose consequence is no action of its own.
    assert_eq!(
        texts("roughly how old is everything in Old Stuff? like, which years it comes from"),
        ["roughly how old is everything in Old Stuff?, like, which years it comes from"]
    );
    assert_eq!(
        texts("sort To Sort by type; where a name's already used, leave that file alone"),
        ["sort To Sort by type, where a name's already used, leave that file alone"]
    );
    assert_eq!(
        texts("unpack kit.zip to Work/Brand; where a name clashes, rename the incoming file"),
        ["unpack kit.zip to Work/Brand, where a name clashes, rename the incoming file"]
    );
    assert_eq!(
        texts("split the invoices into Paid and Open by what they say"),
        ["split the invoices into Paid and Open by what they say"]
    );
    // A consequence that is an action stays a step; the condition, with no action of its own,
    // says nothing a plan can do.
    assert_eq!(
        texts("scan Downloads; if there are duplicates, delete them"),
        ["scan Downloads", "delete them"]
    );
}

#[test]
fn a_header_naming_files_is_what_the_next_clause_means_by_them() {
    assert_eq!(
        texts("old logs in Downloads, find them and delete them"),
        ["find old logs in Downloads", "delete them"]
    );
    assert_eq!(
        texts("there's a pile of old stuff in Downloads, shift it over to Archive/Stale"),
        ["shift over a pile of old stuff in Downloads to Archive/Stale"]
    );
    assert_eq!(
        texts("Work/Reports stuff untouched since 2022: bundle it as Archive/old.zip"),
        ["bundle Work/Reports stuff untouched since 2022 as Archive/old.zip"]
    );
    // What a place is said to be full of, or cluttered with.
    assert_eq!(
        texts("Logs/app is full of 0-byte junk files; remove those, then list Logs/app"),
        ["remove 0-byte junk files in Logs/app", "list Logs/app"]
    );
    assert_eq!(
        texts("old .part files are littering ~/Downloads, trash those"),
        ["trash old .part files in ~/Downloads"]
    );
    // "those repeats": the noun after "those" names what the header names too.
    assert_eq!(
        texts(
            "Shop/Incoming has the same invoices saved several times; remove those repeats, then list Shop/Incoming"
        ),
        [
            "remove the same invoices saved several times in Shop/Incoming",
            "list Shop/Incoming"
        ]
    );
    // "one" after an action is one of what the clause before asked about.
    assert_eq!(
        texts(
            "can any of your skills send files by email? if none can, make one called mail-files"
        ),
        [
            "can any of your skills send files by email?",
            "make a new skill called mail-files"
        ]
    );
    // A statement about a place is no name for what "it" means.
    assert_eq!(
        texts("the desktop looks like a bomb went off, sort it by type"),
        [
            "[header] the desktop looks like a bomb went off",
            "sort it by type"
        ]
    );
    // But what it says is wrong is what a general "clean that up" means.
    assert_eq!(
        texts("I keep downloading the same installers twice, clean that up in Downloads"),
        ["clean that up in Downloads, I keep downloading the same installers twice"]
    );
    // "sort that out" is such a general action ("tidy that"), "sort it by type" is not.
    assert_eq!(
        texts("Music/DJ Sets has the same tracks five times over, sort that out"),
        ["sort that out, Music/DJ Sets has the same tracks five times over"]
    );
}

/// A part that opens with a noun asking for its action ("a short summary of …", "total size of
/// …", "copies of …") is a step of its own, not a header or a remark on the part before; an
/// arrow to a folder whose name holds a verb ("External/Car Archive") still moves there.
#[test]
fn a_part_opening_with_an_action_noun_is_a_step() {
    assert_eq!(
        texts("a short summary of each quote in House/Quotes, then tag House/Quotes/a.pdf"),
        [
            "a short summary of each quote in House/Quotes",
            "tag House/Quotes/a.pdf"
        ]
    );
    assert_eq!(
        texts("just the .m4a files get sorted into yearly folders. total size of Voice Memos?"),
        [
            "just the .m4a files get sorted into yearly folders",
            "total size of Voice Memos?"
        ]
    );
    assert_eq!(
        texts("look through Notes for the invoice; copies of whatever matches belong in Travel"),
        [
            "look through Notes for the invoice",
            "copies of whatever matches belong in Travel"
        ]
    );
    assert_eq!(
        texts("Car/Service: the old files → External/Car Archive. after that a breakdown of Car"),
        [
            "[header] Car/Service",
            "the old files move to External/Car Archive",
            "a breakdown of Car"
        ]
    );
    // A noun that is only talked about is no step ("the copy of it I made is fine").
    assert_eq!(
        texts("delete Temp/old.zip, the copy I made yesterday is enough"),
        ["delete Temp/old.zip, the copy I made yesterday is enough"]
    );
}

#[test]
fn a_folder_in_brackets_is_an_aside_and_a_file_name_keeps_its_brackets() {
    assert_eq!(
        texts("every photo of my rides (Pictures/Bike rides) should get 'cycling_' in front"),
        ["every photo of my rides \"Pictures/Bike rides\" should get 'cycling_' in front"]
    );
    assert_eq!(
        texts("sort my scans (Documents/Scans) by date"),
        ["sort my scans \"Documents/Scans\" by date"]
    );
    assert_eq!(
        texts("move report (1).pdf and the photos (jpg/png) to Archive"),
        ["move report (1).pdf and the photos (jpg/png) to Archive"]
    );
}

#[test]
fn what_files_are_and_where_they_lie_is_what_them_means() {
    assert_eq!(
        texts("the e-books I bought are .epub files scattered in Downloads; move them to Books"),
        ["move .epub files in Downloads to Books"]
    );
    assert_eq!(
        texts("my invoices are PDF files sitting in Downloads, zip them"),
        ["zip PDF files in Downloads"]
    );
    // Saying what a place is names no files.
    assert_eq!(
        texts("Downloads is a mess, sort it"),
        ["[header] Downloads is a mess", "sort it"]
    );
}

#[test]
fn what_is_gone_through_is_what_every_one_means() {
    assert_eq!(
        texts("go through the letters and put every one into Scans, Bloods or Appointments"),
        ["put every one of the letters into Scans, Bloods or Appointments"]
    );
    assert_eq!(
        texts("sift through every PDF in Documents/Scans and file it under Bank or Medical"),
        ["file every PDF in Documents/Scans under Bank or Medical"]
    );
    // Gone through for something: a search.
    assert_eq!(
        texts(
            "go through Journal for entries about the knee, then bundle those into Health/knee.zip"
        ),
        [
            "look through Journal for entries about the knee",
            "bundle those into Health/knee.zip"
        ]
    );
    assert_eq!(
        texts("go through Downloads, then zip it"),
        ["zip Downloads"]
    );
}

/// A verb that is a noun or names nothing asked: inside a file's name with spaces, after "one
/// long", after "no time to" or "takes ages to", after a determiner and a name ("the WhatsApp
/// export"). Such a first part says where or what, it is no step.
#[test]
fn verbs_that_ask_nothing_leave_a_heading() {
    for (request, heading) in [
        (
            "Desktop/old listing photos.zip is no longer needed; please get rid of it",
            "Desktop/old listing photos.zip is no longer needed",
        ),
        (
            "Pictures/Baby has two thousand photos in one long list; sort them by month",
            "Pictures/Baby has two thousand photos in one long list",
        ),
        (
            "Writing/Old drafts is only text but takes ages to copy; turn it into one compressed file",
            "Writing/Old drafts is only text but takes ages to copy",
        ),
        (
            "the WhatsApp export ended up in Downloads; please put it under Documents/Chats",
            "the WhatsApp export ended up in Downloads",
        ),
    ] {
        // A heading, or what "it"/"them" means in the part after it: never a step of its own.
        let parts = texts(request);
        assert!(!parts.iter().any(|p| p == heading), "{request}: {parts:?}");
        let headed = parts[0].starts_with("[header]");
        assert_eq!(
            parts.len(),
            if headed { 2 } else { 1 },
            "{request}: {parts:?}"
        );
    }
    // Still an order: "list" after a determiner alone is a noun, not after a name and a comma.
    assert_eq!(
        texts("find the PDFs in Downloads, list them"),
        ["find the PDFs in Downloads", "list them"]
    );
}

#[test]
fn what_is_kept_and_the_rest_that_goes_are_one_step() {
    // Before, "keep the biggest" stayed in the header and "drop the rest" deleted the folder:
    // what goes are the extra copies of what is kept.
    assert_eq!(
        texts(
            "Pictures/Moon is full of near-identical frames; in each group keep the biggest \
             and delete the rest"
        ),
        [
            "[header] Pictures/Moon is full of near-identical frames",
            "in each group keep the biggest and delete the extra copies"
        ]
    );
    assert_eq!(
        texts("Downloads has the same installer three times; keep the newest and delete the rest"),
        [
            "[header] Downloads has the same installer three times",
            "keep the newest and delete the extra copies"
        ]
    );
    assert_eq!(
        texts("find duplicates in Music, keep the largest and delete the others"),
        ["find duplicates in Music, keep the largest and delete the extra copies"]
    );
    // "the rest" after no "keep" is a step of its own.
    assert_eq!(
        texts("zip the PDFs in Downloads into pdfs.zip and delete the rest"),
        ["zip the PDFs in Downloads into pdfs.zip", "delete the rest"]
    );
}

#[test]
fn an_action_said_of_nothing_is_a_negation() {
    assert!(opens_with_a_negation("delete nothing"));
    assert!(opens_with_a_negation("move none of them"));
    assert!(opens_with_a_negation("rename nothing yet"));
    assert!(!opens_with_a_negation("check nothing odd went there"));
    assert!(!opens_with_a_negation("delete nothing.txt from Desktop"));
    assert!(!opens_with_a_negation("delete the logs"));
    assert_eq!(
        without_negations("report the copies as a CSV; delete nothing"),
        "report the copies as a CSV"
    );
}

#[test]
fn what_will_be_done_later_says_what_the_rest_is_about() {
    assert_eq!(
        texts("before I unzip Downloads/drama-scripts.zip, what's inside it?"),
        [
            "[header] before I unzip Downloads/drama-scripts.zip",
            "what's inside it?"
        ]
    );
    assert_eq!(
        texts("before we move out, copy Documents/Flat share to Backup/Flat share"),
        [
            "[header] before we move out",
            "copy Documents/Flat share to Backup/Flat share"
        ]
    );
}
