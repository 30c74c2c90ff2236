//! Places read from a clause word by word: where it happens, what it acts on and where things go,
//! told from ordinary words by the grounding (the folders that exist), capitals and prepositions;
//! also extensions and kinds of file said as words. Pure.

use super::lexicon::*;
use super::{Grounding, Slots};

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
    // Multi-word grounded entries ("Photos 2023", "Tax Returns").
    for take in (2..=4).rev() {
        if i + take <= words.len() {
            let phrase = words[i..i + take]
                .join(" ")
                .trim_end_matches([',', ';', ':', '.', '!', '?'])
                .to_owned();
            if let Some(e) = g.entry(&phrase) {
                return Some((e.to_owned(), i + take));
            }
        }
    }
    let next_is_folder = words.get(i + 1).is_some_and(|n| is_folder_noun(n));
    // "in monthly folders", "give each kind its own home": folders described, not named.
    let described = i > 0 && words[i - 1].eq_ignore_ascii_case("own")
        || words.get(i + 1).is_some_and(|n| {
            let n = n
                .trim_end_matches([',', ';', ':', '.', '!', '?'])
                .to_lowercase();
            n.ends_with('s') && is_folder_noun(&n)
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
    if let Some(fixed) = super::super::normalize::correct_folder(&lower, COMMON_FOLDERS)
        .filter(|_| !COMMON_FOLDERS.contains(&lower.as_str()))
    {
        if let Some(e) = g.entry(&fixed) {
            return Some((e.to_owned(), used));
        }
        if g.is_root(&fixed) {
            return Some((".".to_owned(), used));
        }
        let mut c = fixed.chars();
        let cap: String = c
            .next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or_default();
        return Some((cap, used));
    }
    if COMMON_FOLDERS.contains(&lower.as_str())
        || w.starts_with(char::is_uppercase) && is_common_folder(&lower)
        || next_is_folder
    {
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
        return Some((w.to_owned(), used));
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
    let in_capitals =
        w.len() >= 2 && w.chars().all(|c| c.is_ascii_uppercase()) && !known_extension(&lower);
    let opens_with_a_name = i == 0 && opens_with_two_names(words);
    let capitalised = (w.chars().next().is_some_and(char::is_uppercase)
        && w.chars().skip(1).any(char::is_lowercase)
        || in_capitals)
        && (i > 0 || opens_with_a_name);
    if capitalised {
        // "Steuer 2024", "Clients 2022": a capitalised name followed by a year is one name.
        if let Some(year) = words
            .get(i + 1)
            .map(|y| y.trim_end_matches([',', ';', '.']))
            .filter(|y| y.len() == 4 && y.chars().all(|c| c.is_ascii_digit()))
        {
            return Some((format!("{w} {year}"), i + 2));
        }
        // "Camera Roll", "Camera Uploads": capitalised words in a row are one name (the last
        // one may end the clause with a comma).
        let mut name = w.to_owned();
        let mut end = used;
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
        return Some((name, end));
    }
    // "backup-2023", "old_stuff"; not "Jahr-" (a word cut short: "Jahr- und Monatsordner").
    if w.chars().any(|c| c == '_' || c == '-') && w.len() > 2 && !w.ends_with('-') {
        return Some((w.to_owned(), used));
    }
    None
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

/// A word written as a name: a capital and then lower case ("Notes", not "I", "PDFs" or "MB").
fn names_with_a_capital(raw: &str) -> bool {
    let w = raw.trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
    w.len() > 2
        && w.starts_with(char::is_uppercase)
        && w.chars().skip(1).all(char::is_lowercase)
        && !LOCATION_PREPS.contains(&w.to_lowercase().as_str())
}

/// An everyday folder's name, in English or another language the lexicon reads ("Musik").
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

/// The word-level pass over `text`: extensions by name, category words, places after
/// prepositions, objects; then files named as places become objects and the root's own name
/// means the root.
pub(super) fn read_words(
    s: &mut Slots,
    text: &str,
    g: &Grounding,
    lookup: &dyn Fn(&str) -> Option<String>,
) {
    // Word-level pass: extensions by name, category words, places after prepositions, objects.
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut consumed = vec![false; words.len()];
    let mut i = 0;
    while i < words.len() {
        let raw = words[i];
        let w = raw
            .trim_end_matches([',', ';', ':', '.', '!', '?', ')'])
            .to_lowercase();
        let prev = if i > 0 {
            words[i - 1].to_lowercase()
        } else {
            String::new()
        };
        // "zip the folder as taxes.tar.gz": a file name after "as" is the one to make.
        // So is an archive's name after "at" ("make a tar.zst of VMs at Backup/vms.tar.zst").
        let as_name = (w == "as" || w == "at")
            && words.get(i + 1).is_some_and(|n| {
                let n = n.trim_end_matches([',', ';', '.']);
                let n = lookup(n).unwrap_or_else(|| n.to_owned());
                super::super::looks_like_file(&n)
                    && !FORMAT_WORDS.contains(&n.to_lowercase().as_str())
                    && (w == "as" || is_archive_name(&n))
            });
        // "extrct x.tar.gz innto Config", "too Recipes/Restored": a misspelt "into" or "to"
        // right before a path.
        let before_a_path = words.get(i + 1).is_some_and(|n| {
            let n = lookup(n).unwrap_or_else(|| (*n).to_owned());
            n.contains('/') || n.starts_with('~')
        });
        let w = if before_a_path
            && !TARGET_PREPS.contains(&w.as_str())
            && !LOCATION_PREPS.contains(&w.as_str())
        {
            misspelt_target_prep(&w).map_or(w, str::to_owned)
        } else {
            w
        };
        // "those folders go under Archive/Sorted", "X belongs with Y": where they go. So is
        // the place after "a copy of X" ("a duplicate of X.pdf in Accountant").
        let lex = crate::rules::lexicon::lexicon();
        // So is the place of "a second one on Y", "drop a copy in Y".
        let copy_noun = |k: usize| lex.copy_nouns.contains(&words[k].to_lowercase());
        let after_a_copy_of = matches!(w.as_str(), "in" | "on" | "inside")
            && (i >= 3 && words[i - 2].eq_ignore_ascii_case("of") && copy_noun(i - 3)
                || i >= 2
                    && (copy_noun(i - 1) || words[i - 1].eq_ignore_ascii_case("one"))
                    && ["a", "another", "second", "spare", "extra"]
                        .contains(&words[i - 2].to_lowercase().as_str()));
        let two_before = (i >= 2).then(|| {
            format!(
                "{} {}",
                words[i - 2].to_lowercase(),
                prev.trim_end_matches([',', ';'])
            )
        });
        // "put Screenshots/a.png in Taxes/Proof", "stash it in X": after a verb of placing and
        // the thing placed (a path or a pointer back), where it goes.
        let placed = matches!(w.as_str(), "in" | "inside" | "on" | "under")
            && i >= 2
            && lex.placing_verbs.contains(&words[0].to_lowercase())
            && {
                let thing = prev.trim_end_matches([',', ';']);
                lex.back_references.contains(thing)
                    || lookup(words[i - 1])
                        .is_some_and(|p| p.contains('/') || super::super::looks_like_file(&p))
            };
        let w = if after_a_copy_of
            || placed
            || [
                Some(prev.trim_end_matches([',', ';']).to_owned()),
                two_before,
            ]
            .iter()
            .flatten()
            .any(|v| {
                lex.going_verbs
                    .get(v)
                    .is_some_and(|preps| preps.contains(&w))
            }) {
            "into".to_owned()
        } else {
            w
        };
        // A borrowed place word the lexicon reads as one ("de", "dans") is that preposition.
        let w = match crate::rules::lexicon::lexicon().synonyms.get(&w) {
            Some(p)
                if LOCATION_PREPS.contains(&p.as_str()) || TARGET_PREPS.contains(&p.as_str()) =>
            {
                p.clone()
            }
            _ => w,
        };
        let is_prep =
            LOCATION_PREPS.contains(&w.as_str()) || TARGET_PREPS.contains(&w.as_str()) || as_name;
        if is_prep {
            let to_target = TARGET_PREPS.contains(&w.as_str()) || as_name;
            // "rename the .jpeg files to .jpg": a new extension is a name pattern, not a place.
            if to_target
                && let Some(ext) = words.get(i + 1).and_then(|n| {
                    n.strip_prefix('.')
                        .map(|e| e.trim_end_matches([',', ';', '.']).to_lowercase())
                        .filter(|e| known_extension(e))
                })
            {
                s.pattern = Some(format!("{{name}}.{ext}"));
                consumed[i + 1] = true;
                i += 2;
                continue;
            }
            // "into a folder called X" / "to a new folder named X" was read as `name`; "into the
            // Archiv/Alt" is the path after its article.
            let next = (i + 1..words.len())
                .find(|&j| !DETERMINERS.contains(&words[j].to_lowercase().as_str()))
                .unwrap_or(i + 1);
            if let Some(q) = words.get(next).and_then(|n| lookup(n)) {
                let q = g.entry(&q).map_or(q, str::to_owned);
                // "put a copy of Downloads/Montserrat.zip in it": what a copy is of is what is
                // copied, an archive too.
                if w == "of" && i >= 1 && copy_noun(i - 1) {
                    if !s.objects.contains(&q) {
                        s.objects.push(q);
                    }
                } else {
                    push_place(s, to_target, q);
                }
                for c in &mut consumed[i + 1..=next] {
                    *c = true;
                }
                i = next + 1;
                continue;
            }
            // "of the photos in Downloads": a kind of file, not a folder (unless one exists or
            // it is written as a name: "in Photos").
            let after_determiner = words
                .get(i + 1)
                .is_some_and(|n| DETERMINERS.contains(&n.to_lowercase().as_str()));
            // Written in lower case ("the photos", not "the Photos") it is the kind, even when
            // a folder of that name exists.
            let written = words
                .get(if after_determiner { i + 2 } else { i + 1 })
                .map(|w| w.trim_end_matches([',', ';', '.']))
                .unwrap_or_default();
            let kind_word = |_: &str| {
                (after_determiner || w == "of")
                    && written.starts_with(|c: char| c.is_lowercase())
                    && CATEGORY_WORDS.iter().any(|(c, _)| *c == written)
            };
            // "a mountain of old stuff", "go through the documents in X": after "of" or
            // "through" only a name is a place (a path, a folder that exists, a capital).
            let weak_of = |p: &str| {
                (w == "of" || w == "through")
                    && !p.contains('/')
                    && g.entry(p).is_none()
                    && !p.starts_with(char::is_uppercase)
            };
            if let Some((place, next)) = place_token(&words, i + 1, g)
                .filter(|(p, _)| to_target || !kind_word(p) && !weak_of(p))
            {
                push_place(s, to_target, place);
                for c in consumed.iter_mut().take(next).skip(i + 1) {
                    *c = true;
                }
                i = next;
                continue;
            }
        }
        if let Some(q) = lookup(raw) {
            // A quoted name not after a preposition is the object of the verb.
            if s.name.as_deref() != Some(q.as_str()) {
                s.objects.push(g.entry(&q).map_or(q, str::to_owned));
            }
            consumed[i] = true;
            i += 1;
            continue;
        }
        // A multi-word grounded name ("Photos 2023") wins over its words' meanings.
        if !consumed[i]
            && let Some((place, next)) = place_token(&words, i, g)
            && next > i + 1
            && place.contains(' ')
            && (g.entry(&place).is_some() || place.ends_with(|c: char| c.is_ascii_digit()))
        {
            s.objects.push(place);
            for c in consumed.iter_mut().take(next).skip(i) {
                *c = true;
            }
            i = next;
            continue;
        }
        // Bare extension words: "pdfs", "jpg files", "mp3s".
        let singular = w.strip_suffix("'s").or(w.strip_suffix('s')).unwrap_or(&w);
        let next = words
            .get(i + 1)
            .map(|n| n.to_lowercase())
            .unwrap_or_default();
        let next = next.trim_end_matches([',', '.', ';']);
        // A kind word that is also an extension ("markdown", "raw files") names the whole kind.
        let kind_word = |cand: &str| {
            KIND_WORDS
                .iter()
                .any(|(word, noun, _)| *word == cand && (!noun || FILE_NOUNS.contains(&next)))
        };
        for cand in [w.as_str(), singular] {
            if known_extension(cand)
                && !kind_word(cand)
                && !ADJECTIVE_EXTENSIONS.contains(&cand)
                && (!AMBIGUOUS_EXTENSIONS.contains(&cand)
                    || FILE_NOUNS.contains(&next)
                    || (cand != w
                        && cand.len() > 2
                        && !matches!(cand, "key" | "page" | "number" | "log" | "doc")))
                && !s.extensions.contains(&cand.to_owned())
                && !(cand == "zip" && (i == 0 || prev == "then" || prev == "and"))
            {
                s.extensions.push(cand.to_owned());
                consumed[i] = true;
                break;
            }
        }
        // "the .xlsx spreadsheets", "mp4 videos": a kind said after an extension only
        // describes it; it adds no other extensions of its kind.
        let after_its_extension = i > 0 && {
            let before = words[i - 1]
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '.')
                .trim_start_matches('.')
                .to_lowercase();
            !before.is_empty() && s.extensions.contains(&before)
        };
        if !consumed[i]
            && after_its_extension
            && (CATEGORY_WORDS.iter().any(|(word, _)| *word == w)
                || KIND_WORDS.iter().any(|(word, _, _)| *word == w))
        {
            consumed[i] = true;
        }
        // "Photos" written with a capital, naming a folder that exists, is that folder.
        // So is a common folder's name written with a capital inside the sentence ("dedupe
        // Pictures"; "the pictures" is the kind).
        let names_folder = raw.starts_with(|c: char| c.is_uppercase())
            && (g.entry(&w).is_some()
                || (i > 0 || opens_with_a_folder(raw)) && COMMON_FOLDERS.contains(&w.as_str()));
        if !consumed[i]
            && !names_folder
            && let Some((_, cat)) = CATEGORY_WORDS.iter().find(|(word, _)| *word == w)
        {
            for e in category_extensions(cat) {
                if !s.extensions.contains(&e) {
                    s.extensions.push(e);
                }
            }
            consumed[i] = true;
        }
        if !consumed[i]
            && let Some((_, _, exts)) = KIND_WORDS
                .iter()
                .find(|(word, noun, _)| *word == w && (!noun || FILE_NOUNS.contains(&next)))
        {
            for e in *exts {
                if !s.extensions.iter().any(|x| x == e) {
                    s.extensions.push((*e).to_owned());
                }
            }
            consumed[i] = true;
        }
        // "every .crdownload leftover": a dotted word in lower case that is no known type is
        // an extension all the same.
        let dotted_ext = raw.trim_end_matches([',', ';', ':', '!', '?']);
        if !consumed[i]
            && dotted_ext.len() > 2
            && dotted_ext.starts_with('.')
            && dotted_ext[1..]
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            && !known_extension(&dotted_ext[1..])
        {
            let ext = dotted_ext[1..].to_owned();
            if !s.extensions.contains(&ext) {
                s.extensions.push(ext);
            }
            consumed[i] = true;
            i += 1;
            continue;
        }
        // "all the .DS_Store files": a name that is no file type, said as a kind of file.
        let dotted = raw.trim_end_matches([',', ';', ':', '!', '?']);
        if !consumed[i]
            && s.name.is_none()
            && dotted.len() > 2
            && dotted.starts_with('.')
            && !dotted[1..].contains('.')
            && !known_extension(&w[1..])
            && FILE_NOUNS.contains(&next)
        {
            s.name = Some(dotted.to_owned());
            consumed[i] = true;
            i += 1;
            continue;
        }
        // "nuke every node_modules folder under Code": every folder of that name, wherever.
        if !consumed[i]
            && s.name.is_none()
            && matches!(prev.as_str(), "every" | "each" | "all" | "any")
            && words.get(i + 1).is_some_and(|n| is_folder_noun(n))
            && !w.contains('/')
            && !lookup(raw).is_some_and(|p| p.contains('/'))
        {
            s.name = Some(raw.trim_end_matches([',', ';', ':', '!', '?']).to_owned());
            s.kind = Some("dir".to_owned());
            consumed[i] = true;
            consumed[i + 1] = true;
            i += 2;
            continue;
        }
        // Paths and file names standing as objects ("delete old.log", "unzip backup.zip").
        if FORMAT_WORDS.contains(&w.as_str()) {
            consumed[i] = true;
        } else if !consumed[i] && (w.contains('/') || w.starts_with('~') || w.contains('.')) {
            if let Some((place, _)) = place_token(&words, i, g) {
                s.objects.push(place);
                consumed[i] = true;
            }
        } else if !(consumed[i]
            // "Archive the old logs": the verb opening the request is no place.
            || i == 0 && crate::rules::lexicon::lexicon().action_verbs.contains(&w)
            // "how old is all that": a word asked how much of ("how Downloads would look
            // sorted" names a folder).
            || prev == "how" && !raw.starts_with(char::is_uppercase))
            && (g.entry(&w).is_some()
                || (COMMON_FOLDERS.contains(&w.as_str())
                    || raw.starts_with(char::is_uppercase) && is_common_folder(&w))
                    && (i > 0 || opens_with_a_folder(raw))
                    && !describes_files(next)
                    // "docs about the server migration": files of a kind, said what about.
                    && !(FILE_NOUNS.contains(&w.as_str()) && ABOUT_WORDS.contains(&next))
                || misspelt_folder(&w)
                // "copy the folder Recipes to Backup", "a folder Taxes 2024": a name written
                // with a capital right after the word folder.
                // "serach Notes for the recipe", "ctrl+f my Notes": a name written with a
                // capital right after the opening verb or after "my" (requests are typed in
                // lower case; a capital marks a name).
                || (i == 1 || prev == "my") && names_with_a_capital(raw)
                || i == 0 && opens_with_two_names(&words)
                // "how much is Recordings hogging", "how big are Photos": a name asked about.
                || matches!(prev.as_str(), "is" | "are") && names_with_a_capital(raw)
                || is_folder_noun(&prev)
                    && !prev.ends_with('s')
                    && (raw.starts_with(|c: char| c.is_uppercase())
                        || w.len() == 4 && w.chars().all(|c| c.is_ascii_digit()))
                    && !LOCATION_PREPS.contains(&w.as_str())
                    && !TARGET_PREPS.contains(&w.as_str())
                // "VMs folder: top fifteen …": a name written with a capital opens a request.
                || (i > 0 || raw.starts_with(char::is_uppercase))
                    && words
                        .get(i + 1)
                        .is_some_and(|n| is_folder_noun(n) && !n.ends_with('s'))
                    && w.chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
                    && !NOT_A_PLACE.contains(&w.as_str())
                    && !DETERMINERS.contains(&w.as_str())
                    && !LOCATION_PREPS.contains(&w.as_str())
                    && !TARGET_PREPS.contains(&w.as_str())
                    && ![
                        "per", "by", "new", "same", "one", "another", "sub", "whole", "entire", "own", "its", "their", "each", "every", "separate",
                    ]
                    .contains(&w.as_str()))
        {
            if let Some((place, next)) = place_token(&words, i, g) {
                s.objects.push(place);
                for c in consumed.iter_mut().take(next).skip(i) {
                    *c = true;
                }
                i = next;
                continue;
            }
        } else if !consumed[i] && g.is_root(&w) {
            s.whole_root = true;
        }
        i += 1;
    }
    files_are_objects(s);
    // "copy the photos I added to Pictures this week to Shared/Family": where things go is the
    // last "to"; an earlier one says where they are.
    if s.targets.len() >= 2 {
        let last = s.targets.pop().expect("two or more");
        for t in std::mem::replace(&mut s.targets, vec![last]) {
            if !s.locations.contains(&t) {
                s.locations.push(t);
            }
        }
    }
    // A place mentioned as the root's own name means the root.
    for list in [&mut s.locations, &mut s.objects, &mut s.targets] {
        for p in list.iter_mut() {
            if g.is_root(p) {
                ".".clone_into(p);
            }
        }
    }
}
