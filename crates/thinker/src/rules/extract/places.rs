//! Places read from a clause word by word: where it happens, what it acts on and where things go,
//! told from ordinary words by the grounding (the folders that exist), capitals and prepositions;
//! also extensions and kinds of file said as words. Pure.

use super::lexicon::*;
use super::{Grounding, Slots};

mod around;
mod words;
pub(super) use words::read_words;

/// A token that names a place: a path, a file name with an extension, a grounded entry, a common
/// folder word, or a word followed by "folder".
fn place_token(words: &[&str], i: usize, g: &Grounding) -> Option<(String, usize)> {
    let mut i = i;
    while i < words.len() && DETERMINERS.contains(&words[i].to_lowercase().as_str()) {
        i += 1;
    }
    let raw = *words.get(i)?;
    let w = raw.trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
    if w.is_empty() {
        return None;
    }
    let lower = w.to_lowercase();
    if let Some(grounded) = grounded_phrase(words, i, g) {
        return Some(grounded);
    }
    let next_is_folder = words.get(i + 1).is_some_and(|n| is_folder_noun(n));
    // "in monthly folders", "give each kind its own home": folders described, not named.
    let described = i > 0 && words[i - 1].eq_ignore_ascii_case("own")
        || words.get(i + 1).is_some_and(|n| {
            let n = n
                .trim_end_matches([',', ';', ':', '.', '!', '?'])
                .to_lowercase();
            !n.ends_with("'s") && !n.ends_with("’s") && n.ends_with('s') && is_folder_noun(&n)
        }) && w.starts_with(char::is_lowercase)
            && !w.contains('/')
            && g.entry(w).is_none()
            // "into year folders" says how they are sorted (the date tool reads it).
            && !matches!(lower.as_str(), "year" | "month" | "day" | "week" | "date");
    // "into a new folder called Taxes": a folder said to be new is named after it, if at all.
    if described
        || next_is_folder
            && matches!(
                lower.as_str(),
                "new" | "separate" | "own" | "single" | "another" | "sub" | "one" | "extra"
            )
    {
        return None;
    }
    let used = if next_is_folder { i + 2 } else { i + 1 };
    if w.contains('/') || w.starts_with('~') {
        return Some((w.trim_end_matches('/').to_owned(), used));
    }
    if let Some(e) = g.entry(w) {
        return Some((e.to_owned(), used));
    }
    if g.is_root(w) {
        return Some((".".to_owned(), used));
    }
    // "to the photo names", "to the song name": names of files, not a place.
    let next = words.get(i + 1).map(|n| n.to_lowercase());
    // "to Archive" written as a name is the folder; "into an archive" is not a place.
    let named_folder = w.starts_with(|c: char| c.is_uppercase()) && is_common_folder(&lower);
    if NOT_A_PLACE.contains(&lower.as_str()) && !named_folder
        || matches!(
            next.as_deref(),
            Some("names" | "name" | "names," | "filenames")
        )
    {
        return None;
    }
    if let Some(fixed) = misspelt_common_folder(&lower, g) {
        return Some((fixed, used));
    }
    if COMMON_FOLDERS.contains(&lower.as_str())
        || w.starts_with(char::is_uppercase) && is_common_folder(&lower)
        || next_is_folder
    {
        return Some(
            common_folder_going_on(words, i, w, next_is_folder).unwrap_or((w.to_owned(), used)),
        );
    }
    // "new dir 2023 under Archive": a year right after "folder" is its name.
    if i > 0
        && is_folder_noun(words[i - 1])
        && w.len() == 4
        && w.chars().all(|c| c.is_ascii_digit())
    {
        return Some((w.to_owned(), i + 1));
    }
    let has_ext = w
        .rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && known_extension(&ext.to_lowercase()));
    if has_ext {
        return Some((w.to_owned(), used));
    }
    // "to USB", "on the NAS": a word in capitals that is no file type names a place too.
    // ("names in RANDOM capitals": a long word in capitals before a word in lower case says it
    // loudly.)
    let loud = w.len() > 4
        && words
            .get(i + 1)
            .is_some_and(|n| n.len() > 2 && n.chars().all(|c| c.is_ascii_lowercase()));
    let in_capitals = w.len() >= 2
        && w.chars().all(|c| c.is_ascii_uppercase())
        && !known_extension(&lower)
        && !loud;
    // "3D printing", "4K Videos": a name that starts with a number and has a capital.
    let numbered_name = w.starts_with(|c: char| c.is_ascii_digit())
        && w.chars().any(|c| c.is_ascii_uppercase())
        && w.chars().all(char::is_alphanumeric);
    let opens_with_a_name = i == 0 && opens_with_two_names(words);
    // "from June": a day or a month is when.
    let capitalised = !calendar_word(&lower)
        && ((w.chars().next().is_some_and(char::is_uppercase)
            && w.chars().skip(1).any(char::is_lowercase)
            || in_capitals)
            && (i > 0 || opens_with_a_name)
            || numbered_name);
    if capitalised {
        return Some(capitalised_name(words, i, used));
    }
    // "backup-2023", "old_stuff"; not "Jahr-" (a word cut short: "Jahr- und Monatsordner").
    if w.chars().any(|c| c == '_' || c == '-') && w.len() > 2 && !w.ends_with('-') {
        return Some((w.to_owned(), used));
    }
    None
}

/// Multi-word grounded entries at `words[i]` ("Photos 2023", "Tax Returns"): the entry and the
/// index after it.
fn grounded_phrase(words: &[&str], i: usize, g: &Grounding) -> Option<(String, usize)> {
    (2..=4)
        .rev()
        .filter(|take| i + take <= words.len())
        .find_map(|take| {
            let phrase = words[i..i + take]
                .join(" ")
                .trim_end_matches([',', ';', ':', '.', '!', '?'])
                .to_owned();
            g.entry(&phrase).map(|e| (e.to_owned(), i + take))
        })
}

/// "Downlods": a misspelt common folder, as it exists (or the root), else written with a
/// capital.
fn misspelt_common_folder(lower: &str, g: &Grounding) -> Option<String> {
    let fixed = super::super::normalize::correct_folder(lower, COMMON_FOLDERS)
        .filter(|_| !COMMON_FOLDERS.contains(&lower))?;
    if let Some(e) = g.entry(&fixed) {
        return Some(e.to_owned());
    }
    if g.is_root(&fixed) {
        return Some(".".to_owned());
    }
    let mut c = fixed.chars();
    Some(
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or_default(),
    )
}

/// A common folder's name `w` (at `words[i]`) that goes on with a year ("Photos 2023") or a
/// word written with a capital ("Home Videos"): the name and the index after it.
fn common_folder_going_on(
    words: &[&str],
    i: usize,
    w: &str,
    next_is_folder: bool,
) -> Option<(String, usize)> {
    let raw = words[i];
    // "Photos 2023": a capitalised word followed by a year is one name.
    if let Some(year) = words
        .get(i + 1)
        .filter(|y| y.len() == 4 && y.chars().all(|c| c.is_ascii_digit()) && !next_is_folder)
    {
        return Some((format!("{w} {year}"), i + 2));
    }
    // "Home Videos", "Music Videos": a capitalised folder name going on with a capitalised
    // word is one name.
    if let Some(next) = words.get(i + 1).filter(|n| {
        let bare = n.trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
        w.starts_with(char::is_uppercase)
            && !raw.ends_with([',', ';', ':', '.', '!', '?', ')'])
            && bare.len() > 1
            && bare.starts_with(char::is_uppercase)
            && bare.chars().skip(1).all(char::is_lowercase)
            && !next_is_folder
    }) {
        let bare = next.trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
        return Some((format!("{w} {bare}"), i + 2));
    }
    None
}

/// "Camera Roll", "Steuer 2024": a name written with a capital at `words[i]`, with the words
/// that go on it; the index after it (`used` when it goes on with none).
fn capitalised_name(words: &[&str], i: usize, used: usize) -> (String, usize) {
    let raw = words[i];
    let w = raw.trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
    // "Steuer 2024", "Clients 2022": a capitalised name followed by a year is one name.
    if let Some(year) = words
        .get(i + 1)
        .map(|y| y.trim_end_matches([',', ';', '.']))
        .filter(|y| y.len() == 4 && y.chars().all(|c| c.is_ascii_digit()))
    {
        return (format!("{w} {year}"), i + 2);
    }
    // "Camera Roll", "Camera Uploads": capitalised words in a row are one name (the last
    // one may end the clause with a comma).
    let mut name = w.to_owned();
    let mut end = used;
    if let Some((words, after)) = lower_case_words_of_a_name(words, i) {
        return (format!("{w} {words}"), after);
    }
    if !raw.ends_with([',', ';', ':', '.', '!', '?', ')']) {
        while let Some(next) = words.get(end) {
            let word = next.trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
            // "Dorm Move-Out": each part of a word with a dash written with a capital.
            let capital = word.len() > 1
                && word.split('-').all(|part| {
                    part.chars().next().is_some_and(char::is_uppercase)
                        && part.chars().skip(1).all(char::is_lowercase)
                });
            if !capital || DETERMINERS.contains(&word.to_lowercase().as_str()) {
                break;
            }
            name = format!("{name} {word}");
            end += 1;
            if word.len() != next.len() {
                break;
            }
        }
    }
    (name, end)
}

/// "create Price lists 2027 as a subfolder", "in 3D printing heavier than …": a word in lower
/// case (and a year) after a name of one word written with a capital that is no
/// everyday folder, ending where a link, a place word, a verb said of it or the end follows.
/// The words and the index after them.
fn lower_case_words_of_a_name(words: &[&str], i: usize) -> Option<(String, usize)> {
    let raw = words[i];
    let w = raw.trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
    if raw != w || is_common_folder(&w.to_lowercase()) || w.len() < 2 {
        return None;
    }
    let stop = |x: &str| x.ends_with([',', ';', ':', '.', '!', '?']);
    let bare = |x: &str| {
        x.trim_end_matches([',', ';', ':', '.', '!', '?'])
            .to_owned()
    };
    let year = |x: &str| {
        let x = bare(x);
        x.len() == 4
            && (x.starts_with("19") || x.starts_with("20"))
            && x.chars().all(|c| c.is_ascii_digit())
    };
    // "3D printing": after a name with a number, a word in -ing is the name's ("Recordings
    // hogging" is what the folder does).
    let numbered = w.starts_with(|c: char| c.is_ascii_digit());
    let word_of_a_name = |x: &str| {
        let b = bare(x);
        !is_folder_noun(b.trim_start_matches("sub"))
            && (super::paths::tail_word(&b)
                || numbered
                    && b.len() > 5
                    && b.ends_with("ing")
                    && b.chars().all(|c| c.is_ascii_lowercase())
                    && !super::never_in_a_name(&b))
    };
    let firm = |x: Option<&&str>| {
        x.is_none_or(|n| {
            let n = bare(n).to_lowercase();
            // (What an amount left: "printing ?".)
            if !n.chars().any(char::is_alphanumeric) {
                return true;
            }
            LOCATION_PREPS.contains(&n.as_str())
                || TARGET_PREPS.contains(&n.as_str())
                || crate::rules::lexicon::lexicon()
                    .statement_verbs
                    .contains(&n)
                || matches!(n.as_str(), "and" | "then" | "as" | "now" | "than")
                || n.len() > 4 && n.ends_with("er") && words.contains(&"than")
        })
    };
    // One word: "Scans descriptive names" are what the names should be.
    (1..=1).find_map(|k| {
        let run = words.get(i + 1..i + 1 + k)?;
        let (last, inside) = run.split_last()?;
        let mut after = i + 1 + k;
        let year_follows = !stop(last) && words.get(after).is_some_and(|y| year(y));
        // "Price lists 2027": before a year, a plural that could be a verb names too.
        let named_by_a_year = |x: &str| {
            let b = bare(x);
            year_follows
                && b.len() > 2
                && b.chars().all(|c| c.is_ascii_lowercase())
                && !super::never_in_a_name(&b)
        };
        if !inside.iter().all(|x| !stop(x) && word_of_a_name(x))
            || !(word_of_a_name(last) || named_by_a_year(last))
        {
            return None;
        }
        if year_follows {
            after += 1;
        }
        let ends = stop(words[after - 1]) || firm(words.get(after));
        ends.then(|| {
            let said: Vec<String> = words[i + 1..after].iter().map(|x| bare(x)).collect();
            (said.join(" "), after)
        })
    })
}

/// "Camera Uploads has three years of pictures": opening the request, two words written as
/// names in a row are one name (the first word alone is written with a capital anyway).
fn opens_with_two_names(words: &[&str]) -> bool {
    let [first, second, ..] = words else {
        return false;
    };
    let second = second.trim_end_matches([',', ';', ':', '.', '!', '?']);
    !first.ends_with([',', ';', ':', '.', '!', '?'])
        && first.len() > 1
        && second.len() > 1
        && super::names::name_like(first)
        && super::names::name_like(second)
}

pub(super) const LOCATION_PREPS: &[&str] = &[
    "in",
    "inside",
    "within",
    "from",
    "under",
    "of",
    "at",
    "across",
    "throughout",
    "through",
    "on",
];
/// Words after which a place is where things go ("to", and "target: Backup/blog.tar.gz").
pub(super) const TARGET_PREPS: &[&str] = &["to", "into", "onto", "towards", "target"];
/// "innto", "inot", "too", "ot": a word one letter from "into" or "to" (and no other preposition).
fn misspelt_target_prep(w: &str) -> Option<&'static str> {
    if w == "too" || w == "ot" {
        return Some("to");
    }
    (w.len() >= 4 && strsim::damerau_levenshtein(w, "into") == 1).then_some("into")
}

/// A file name whose extension is an archive's ("vms.tar.zst", "photos.zip").
pub(super) fn is_archive_name(p: &str) -> bool {
    p.rsplit_once('.')
        .is_some_and(|(_, ext)| sandbox::category_of(Some(&ext.to_lowercase())) == "Archives")
}

/// "the gist of report.pdf", "the text of notes.md": a file named after a preposition is what
/// the clause acts on, not a place. An archive stays where it is ("compress X in x.zip" names
/// the archive to make; the tool's fill decides).
fn files_are_objects(s: &mut Slots) {
    let is_archive = is_archive_name;
    let (files, places): (Vec<String>, Vec<String>) =
        std::mem::take(&mut s.locations).into_iter().partition(|p| {
            super::names_a_path(p) && super::super::looks_like_file(p) && !is_archive(p)
        });
    s.locations = places;
    for f in files {
        if !s.objects.contains(&f) {
            s.objects.push(f);
        }
    }
    // "pack Installers in Archiv/installer.zip": with something named to pack, an archive named
    // as a place is the one to make.
    if s.targets.is_empty()
        && !s.objects.is_empty()
        && s.objects.iter().all(|o| !is_archive(o))
        && let Some(i) = s.locations.iter().position(|l| is_archive(l))
    {
        let archive = s.locations.remove(i);
        s.targets.push(archive);
    }
}

fn push_place(s: &mut Slots, to_target: bool, place: String) {
    let list = if to_target {
        &mut s.targets
    } else {
        &mut s.locations
    };
    if !list.contains(&place) {
        list.push(place);
    }
}

/// "every Tuesday the coach forwards …", "back in June I split it": a day or a month is when,
/// not where (unless a folder of that name exists).
pub(in crate::rules) fn calendar_word(lower: &str) -> bool {
    const CALENDAR: &[&str] = &[
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "january",
        "february",
        "march",
        "april",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    // "from Saturday's bout": the day's, too.
    let day = lower
        .strip_suffix("'s")
        .or_else(|| lower.strip_suffix("’s"))
        .unwrap_or(lower);
    CALENDAR.contains(&day)
}

/// A word written as a name: a capital and then lower case ("Notes", not "I", "PDFs" or "MB").
fn names_with_a_capital(raw: &str) -> bool {
    let w = raw.trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
    let l = w.to_lowercase();
    w.len() > 2
        && w.starts_with(char::is_uppercase)
        && w.chars().skip(1).all(char::is_lowercase)
        && !LOCATION_PREPS.contains(&l.as_str())
        && !calendar_word(&l)
}

/// An everyday folder's name, in English or another language the lexicon reads ("Musik").
/// "we got back from Portugal with 900 shots in Pictures/Lisbon 2026": beside a path, a name
/// said after "from" (or "of") that is neither a folder that exists nor a common one is where the story
/// happened, not a place of the files.
pub(super) fn drop_places_of_the_story(s: &mut Slots, text: &str, g: &Grounding) {
    if !s
        .locations
        .iter()
        .chain(&s.objects)
        .any(|l| l.contains('/'))
    {
        return;
    }
    // "… has most of the Dvořák in triplicate": a name said after "of" is what the files are.
    s.locations.retain(|l| {
        l.contains('/')
            || g.entry(l).is_some()
            || is_common_folder(&l.to_lowercase())
            || !["from", "of the", "of"]
                .iter()
                .any(|p| text.contains(&format!("{p} {l}")))
    });
}

fn is_common_folder(lower: &str) -> bool {
    COMMON_FOLDERS.contains(&lower)
        || crate::rules::lexicon::lexicon().is_foreign_folder_word(lower)
}

/// "Pictures has dupes, handle it", "Downloads: …": a request opening with a common folder's
/// name written with a capital is about that folder, unless the word is a verb ("Archive the
/// old logs").
fn opens_with_a_folder(raw: &str) -> bool {
    let w = raw
        .trim_end_matches([',', ';', ':', '.', '!', '?'])
        .to_lowercase();
    raw.starts_with(char::is_uppercase)
        && !crate::rules::lexicon::lexicon().action_verbs.contains(&w)
        // "I'm running low on room": a pronoun, not a folder.
        && !w.starts_with("i'")
        && !w.starts_with("i’")
}

/// A word saying what kind of files ("installers", "photos", "pdfs"): the word before it is an
/// adjective ("the old installers"), not a folder called "old".
pub(super) fn describes_files(word: &str) -> bool {
    let singular = word.strip_suffix('s').unwrap_or(word);
    KIND_WORDS.iter().any(|(w, _, _)| *w == word)
        || CATEGORY_WORDS.iter().any(|(w, _)| *w == word)
        || FILE_NOUNS.contains(&word)
        || known_extension(singular)
}
