//! Paths and file names in a request, read whole ("Music/Live Sets", "Scans/Untitled scan 14.pdf",
//! "Farm_old_backup (2)") and set aside as placeholders so the words inside them are never read
//! as dates, extensions or folders. Pure.

use super::Grounding;
use super::lexicon::*;
use super::names::{NEVER_NAME_STARTS, name_before_path};
use super::places;

mod nouns_after;
mod spaced;
mod words;
use spaced::path_with_spaces;
pub(super) use words::tail_word;
use words::*;

/// Whether a word is a path or a file name ("Work/recent.zip", "~/Downloads", "report.pdf"):
/// not a pattern (`*.jpg`), an extension (`.jpg`), an archive format (`tar.gz`) or a number.
pub(super) fn names_a_path(word: &str) -> bool {
    if word.contains(['*', '?', '[', '{', '⟦']) || word.starts_with('.') || word.contains("://") {
        return false;
    }
    if FORMAT_WORDS.contains(&word.to_lowercase().as_str()) {
        return false;
    }
    if word.contains('/') {
        return word.chars().any(char::is_alphabetic);
    }
    word.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && stem.chars().any(char::is_alphabetic)
            && known_extension(&ext.to_lowercase())
    })
}

/// "Downlaods/old-setup.dmg" is in Downloads, "Pictures/Screenshtos" is Screenshots: a
/// misspelt common folder in a path is corrected (written with a capital when it was).
fn with_folders_spelt_right(path: &str) -> String {
    path.split('/')
        .map(spelt_right)
        .collect::<Vec<_>>()
        .join("/")
}

/// `part` of a path, corrected when it is a common folder's name misspelt.
fn spelt_right(part: &str) -> String {
    // "Archiv/…" is the German folder, not "Archive" cut short.
    if !misspelt_folder(part)
        || COMMON_FOLDERS
            .iter()
            .any(|f| f.starts_with(&part.to_lowercase()))
    {
        return part.to_owned();
    }
    let Some(fixed) = crate::rules::normalize::correct_folder(part, COMMON_FOLDERS) else {
        return part.to_owned();
    };
    if part.starts_with(char::is_uppercase) {
        let mut c = fixed.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or(fixed)
    } else {
        fixed
    }
}

/// Paths and file names are names, like quoted text: each becomes a placeholder, so the words
/// inside them are not read as dates, extensions or folders ("recent" and "zip" of
/// "Work/recent.zip").
pub(super) fn protect_paths(text: &mut String, quoted: &mut Vec<String>, g: &Grounding) {
    let words = with_copy_numbers_joined(text);
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        let bare = word.trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
        if names_a_path(bare) {
            // A folder that exists is spelt as it is ("Documents/Projets" stays).
            let (name, next) = match grounded_path(&words, i, g) {
                Some((back, name, next)) => {
                    out.truncate(out.len() - back);
                    (name, next)
                }
                None => {
                    let (name, next) = path_with_spaces(&words, i, bare);
                    let name = name_before_path(&mut out, name);
                    (with_folders_spelt_right(&name), next)
                }
            };
            let last_raw = words[next - 1];
            // "Farm_old_backup (2)": a bracket that closes in the name is the name's.
            let last = if name.ends_with(')') {
                last_raw.trim_end_matches([',', ';', ':', '.', '!', '?'])
            } else {
                last_raw.trim_end_matches([',', ';', ':', '.', '!', '?', ')'])
            };
            quoted.push(name);
            out.push(format!("⟦{}⟧{}", quoted.len() - 1, &last_raw[last.len()..]));
            i = next;
        } else {
            out.push(word.to_owned());
            i += 1;
        }
    }
    said_in_full_elsewhere(&mut out, quoted, &g.said);
    *text = out.join(" ");
}

/// "Music/Band admin mixes gig contracts …; archive Music/Band admin as …": a name cut short
/// where the words after it are those of a longer name the request says elsewhere is that name.
/// `out` holds the part's words, each path replaced by its placeholder into `quoted`; `said`
/// the names of the whole request.
fn said_in_full_elsewhere(out: &mut Vec<String>, quoted: &mut [String], said: &[String]) {
    let placeholder =
        |w: &str| -> Option<usize> { w.strip_prefix('⟦')?.strip_suffix('⟧')?.parse().ok() };
    let mut k = 0;
    while k < out.len() {
        let Some(n) = placeholder(&out[k]) else {
            k += 1;
            continue;
        };
        let longer = (1..=3).rev().find_map(|m| {
            let run = out.get(k + 1..k + 1 + m)?;
            let (last, inside) = run.split_last()?;
            if run.iter().any(|w| w.contains('⟦'))
                || inside
                    .iter()
                    .any(|w| w.ends_with([',', ';', ':', '.', '!', '?', ')']))
            {
                return None;
            }
            let bare = last.trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
            let words: Vec<&str> = inside.iter().map(String::as_str).chain([bare]).collect();
            let name = format!("{} {}", quoted[n], words.join(" "));
            // "… Documents/Night school …; … belongs in Archive/Night school": the same
            // folder's name under another folder is that name too.
            let last_part = |p: &str| p.rsplit('/').next().unwrap_or(p).to_owned();
            let same_last =
                |q: &str| q.contains('/') && name.contains('/') && last_part(q) == last_part(&name);
            let elsewhere = quoted
                .iter()
                .enumerate()
                .any(|(j, q)| j != n && (*q == name || same_last(q)))
                || said.iter().any(|q| *q == name || same_last(q));
            elsewhere.then(|| (m, name, last[bare.len()..].to_owned()))
        });
        if let Some((m, name, stop)) = longer {
            quoted[n] = name;
            out[k] = format!("⟦{n}⟧{stop}");
            out.drain(k + 1..k + 1 + m);
        }
        k += 1;
    }
}

/// The words of `text`, a copy's number joined to the name it numbers: "invoice (2).pdf" is one
/// file, as a browser names a second download.
fn with_copy_numbers_joined(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for w in text.split_whitespace() {
        let numbered = w
            .strip_prefix('(')
            .and_then(|r| r.split_once(")."))
            .is_some_and(|(n, ext)| {
                !n.is_empty()
                    && n.len() <= 3
                    && n.chars().all(|c| c.is_ascii_digit())
                    && known_extension(
                        &ext.trim_end_matches([',', ';', ':', '.', '!', '?'])
                            .to_lowercase(),
                    )
            });
        match words.last_mut() {
            Some(last) if numbered && last.chars().any(char::is_alphanumeric) => {
                last.push(' ');
                last.push_str(w);
            }
            _ => words.push(w.to_owned()),
        }
    }
    words
}

/// "Projects/garden planner", "External drive/Videos": the longest run of words around the path
/// at `words[i]` (up to two before it, five after) that is a path under the root. What exists
/// decides where a name with spaces ends; the guesses of `path_with_spaces` are for names the
/// folder does not have (yet). Returns how many words before `i` it takes, the path as it
/// exists, and the index after it.
fn grounded_path(words: &[&str], i: usize, g: &Grounding) -> Option<(usize, String, usize)> {
    if g.entries.is_empty() {
        return None;
    }
    for back in (0..=i.min(2)).rev() {
        // The words before the path go with it only when none ends a part of the sentence.
        if words[i - back..i]
            .iter()
            .any(|w| w.ends_with([',', ';', ':', '.', '!', '?']))
        {
            continue;
        }
        for end in (i + 1..=(i + 6).min(words.len())).rev() {
            let phrase = words[i - back..end].join(" ");
            let phrase = phrase.trim_end_matches([',', ';', ':', '.', '!', '?', ')', '/']);
            if let Some(path) = g.path(phrase) {
                return Some((back, path.to_owned(), end));
            }
        }
    }
    None
}

/// "dot-files in Projects/Amiga restore; list …": whether `words[i]`, a verb's form right after
/// a path, is a word of the folder's name (so it opens no action).
pub(in crate::rules) fn verb_in_a_name(words: &[&str], i: usize) -> bool {
    i > 0
        && words[i - 1].contains('/')
        && !crate::rules::looks_like_file(words[i - 1])
        && verb_form_names(words[i - 1].rsplit('/').next().unwrap_or(""), words, i)
}

/// "Downloads/Dienstplan Feuerwehr Dezember 2026.pdf": where a file's path that goes on past a
/// space, starting at `words[i]`, ends (the index after it). A request in another language keeps
/// such a name's words as written.
pub(in crate::rules) fn file_path_end(words: &[&str], i: usize) -> Option<usize> {
    let bare = words[i].trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
    if !bare.contains('/') || !names_a_path(bare) {
        return None;
    }
    let (path, next) = path_with_spaces(words, i, bare);
    (next > i + 1 && crate::rules::looks_like_file(&path)).then_some(next)
}

/// Words in -ing that say where a thing is ("Pictures/Best sitting on Backup/USB").
const POSTURES: &[&str] = &[
    "sitting",
    "lying",
    "living",
    "standing",
    "waiting",
    "hanging",
    "resting",
    "gathering",
    "collecting",
    "piling",
    "sleeping",
    "languishing",
];

/// Words that never go on a name in lower case: they link, ask, point or say when and how
/// ("Documents/Taxes first", "Desktop/Old stuff hold?").
const NEVER_IN_A_NAME: &[&str] = &[
    "beforehand",
    "afterwards",
    "is",
    "are",
    "was",
    "were",
    "be",
    "has",
    "have",
    "had",
    "does",
    "do",
    "did",
    "hold",
    "holds",
    "contain",
    "contains",
    "take",
    "takes",
    "use",
    "uses",
    "need",
    "needs",
    "should",
    "could",
    "would",
    "can",
    "will",
    "than",
    "that",
    "which",
    "who",
    "where",
    "when",
    "what",
    "how",
    "if",
    "because",
    "since",
    "while",
    "before",
    "after",
    "as",
    "by",
    "me",
    "you",
    "we",
    "they",
    "them",
    "there",
    "here",
    "first",
    "now",
    "too",
    "again",
    // "Documents/Jam stall last changed …": adverbs said of the folder.
    "last",
    "still",
    "already",
    "also",
    "about",
    "instead",
    "later",
    "today",
    "tonight",
    "asap",
    "afterwards",
    "everywhere",
    "somewhere",
    "anywhere",
    "nowhere",
    "recursively",
    "please",
    "pls",
    "thanks",
    "thx",
    "not",
    "up",
    "out",
    "off",
    "down",
    "over",
    "away",
    "folder",
    "folders",
    "directory",
    "dir",
    "subfolders",
    "right",
    "already",
    "yet",
    "still",
    "also",
    "then",
    "plz",
    "pronto",
    "rn",
    "tho",
    "lol",
    "fr",
    "ty",
    "around",
    "ought",
    "must",
    "might",
    "may",
    "shall",
    "stays",
    "stay",
    "remains",
    "remain",
    "sits",
    "nobody",
    "anybody",
    "everybody",
    "somebody",
    "someone",
    "anyone",
    "everyone",
    "nothing",
    "anything",
    "everything",
    "something",
    "like",
    "such",
];

/// Whether a word ends a name or starts what comes after one.
pub(super) fn never_in_a_name(word: &str) -> bool {
    let l = word
        .trim_end_matches([',', ';', ':', '.', '!', '?', ')'])
        .to_lowercase();
    l.is_empty()
        || NEVER_IN_A_NAME.contains(&l.as_str())
        || DETERMINERS.contains(&l.as_str())
        || NEVER_NAME_STARTS.contains(&l.as_str())
        || places::LOCATION_PREPS.contains(&l.as_str())
        || places::TARGET_PREPS.contains(&l.as_str())
        || crate::rules::clause::is_question_word(&l)
        || crate::rules::lexicon::lexicon().action_verbs.contains(&l)
        || l.contains('\'')
        || l.contains('’')
}

/// "Documents/Job search", "Downloads/Old printer drivers", "Projects/garden planner": one or
/// two words in lower case after a path's last part go on its name when the name clearly ends
/// after them: the request or its part ends, or a word follows that never goes on a name
/// ("and", "to", "has", "needs", "folder"). `words[at]` is the first of them.
fn lower_case_tail(path: &str, words: &[&str], at: usize) -> bool {
    let last = path.rsplit('/').next().unwrap_or(path);
    // "Videos/Bouldering/2025 sessions and …": a plural after a year's folder goes on its name
    // when a word that ends names follows.
    if a_year(last)
        && path.contains('/')
        && let Some(raw) = words.get(at)
    {
        let w = raw.trim_end_matches([',', ';', ':', '.', '!', '?']);
        // ("Videos/Open mic/2024 sets:": before a stop even a verb's spelling names.)
        let stopped = raw.len() != w.len();
        return w.ends_with('s')
            && (tail_word(raw)
                || stopped && w.len() > 3 && w.chars().all(|c| c.is_ascii_lowercase()))
            && (stopped || words.get(at + 1).is_none_or(|n| ends_a_name(n)));
    }
    if !ends_in_a_name_of_words(path) {
        return false;
    }
    if verb_form_names(last, words, at) {
        return true;
    }
    // After a part in lower case ("Projects/site say") a word is as likely a verb: only a
    // clear end makes it a name.
    let capital = last.starts_with(char::is_uppercase);
    let Some(raw) = words.get(at) else {
        return false;
    };
    // "Work/Reports stuff untouched …": after a plural, "stuff" is what it holds.
    if raw.trim_end_matches([',', ';', ':', '.', '!', '?']) == "stuff" && last.ends_with('s') {
        return false;
    }
    // "what does config.yaml in Projects/site say", "why does Pictures weigh so much": after
    // "does", the word after the name is its verb.
    // Not "do a dry run: were Videos/VHS transfers sorted …": "do" with what it does, or in
    // an earlier part of the sentence.
    // "how did Videos/Grandad 90th reach 80 GB?": an ordinal is never the verb.
    if capital && ordinal(raw.trim_end_matches([',', ';', ':', '.', '!', '?'])) {
        return true;
    }
    // "Downloads/Zine issue 4", "Videos/Cup run week 3": a word and a number after a part
    // written with a capital number an issue, a week, a part ("Backup/Old repair PC": or an
    // acronym ends it); so do two words ("Downloads/Welsh course unit 4").
    let numbered_at = |k: usize| {
        words.get(at + k).is_some_and(|n| {
            let d = n.trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
            // "Backup/Old repair PC": an acronym after the word ends the name the same way.
            let acronym = (2..=4).contains(&d.len())
                && d.chars().all(|c| c.is_ascii_uppercase())
                && !matches!(
                    d,
                    "GB" | "MB" | "KB" | "TB" | "PDF" | "PDFS" | "CSV" | "JPG" | "PNG"
                );
            !d.is_empty()
                && (d.len() <= 3 && d.chars().all(|c| c.is_ascii_digit()) || acronym)
                // Not "past 8 GB": the number ends the name, no unit after it.
                && (d.len() < n.len() || words.get(at + k + 1).is_none_or(|a| never_in_a_name(a)))
        })
    };
    let plain_lower = |w: &str| {
        w.chars().all(|c| c.is_ascii_lowercase())
            && !never_in_a_name(w)
            && !after_a_name(w)
            && !ends_a_name(w)
    };
    if capital
        && plain_lower(raw)
        && (numbered_at(1)
            || !last.contains(' ')
                && words
                    .get(at + 1)
                    .is_some_and(|n| plain_lower(n) && tail_word(n))
                && numbered_at(2))
    {
        return true;
    }
    let part_start = words[..at]
        .iter()
        .rposition(|w| w.ends_with([',', ';', ':', '.', '!', '?']))
        .map_or(0, |stop| stop + 1);
    let auxiliary = |(i, w): (usize, &&str)| {
        matches!(w.to_lowercase().as_str(), "does" | "do" | "did")
            && !(w.eq_ignore_ascii_case("do")
                && words.get(i + 1).is_some_and(|next| {
                    ["a", "an", "it", "this", "that", "me", "something", "some"]
                        .contains(&next.to_lowercase().as_str())
                }))
    };
    if words[..at]
        .iter()
        .enumerate()
        .skip(part_start)
        .any(auxiliary)
    {
        return false;
    }
    // After a part written with a capital ("Documents/Shared", "Pictures/Game"), a kind of
    // file and a plural go on the name too ("Game screenshots", "Job applications"), and more
    // words plainly start what comes after it: "by type", "first", a verb said of it ("holds",
    // "swallowed"). Not after a question word: "what Bakery/Invoices covers?".
    // ("my laptop gets wiped when I start the new job, so back up Documents/Job hunt onto …":
    // a word that opens a clause of its own in an earlier part of the sentence says nothing of
    // the name; a verb there still makes the sentence a statement.)
    let asked = words[..at].iter().enumerate().any(|(i, w)| {
        let w = w.to_lowercase();
        crate::rules::clause::is_question_word(&w) && !(w.starts_with("wh") || w == "how")
            || crate::rules::clause::is_question_word(&w)
                && !words[i..at.saturating_sub(1)]
                    .iter()
                    .any(|b| b.ends_with([',', ';', ':', '.', '!', '?']))
    });
    // "what's using the space in Pictures/Grandma albums": a question whose verb came before
    // the name asks nothing of the words after it.
    let be_before = words[..at].iter().any(|w| {
        let l = w.to_lowercase();
        matches!(l.as_str(), "is" | "are" | "was" | "were")
            || l.ends_with("'s")
            || l.ends_with("’s")
    });
    // "can its contents land in Documents/Choir/Sheet music?": after a preposition the name is
    // where, the question's verb came before it.
    let after_a_preposition = words[..at]
        .iter()
        .rposition(|w| w.contains('/'))
        .and_then(|slash| slash.checked_sub(1))
        .is_some_and(|before| {
            let l = words[before].to_lowercase();
            places::LOCATION_PREPS.contains(&l.as_str())
                || places::TARGET_PREPS.contains(&l.as_str())
        });
    // "Could you look for identical files across Documents/Glacier thesis including …": the
    // question's verb came before the name ("could you look", "can u find"; not "which lab
    // report in …", a noun).
    let asked_to_act = words[..at]
        .iter()
        .rposition(|w| w.contains('/'))
        .is_some_and(|slash| {
            let lex = crate::rules::lexicon::lexicon();
            let question = words[..slash]
                .iter()
                .rposition(|w| crate::rules::clause::is_question_word(&w.to_lowercase()));
            question.is_some_and(|q| {
                words[q + 1..slash].windows(2).any(|pair| {
                    let l = pair[1].to_lowercase();
                    matches!(pair[0].to_lowercase().as_str(), "you" | "u" | "i" | "we")
                        && (lex.action_verbs.contains(l.as_str())
                            || lex.look_verbs.contains(l.as_str()))
                })
            })
        });
    // "is Documents/Bell ringing mostly recent stuff?": the question's verb right before the
    // name (not "one of each is enough, ideally the one in Ebooks/Kindle survives").
    let asked_of_it = words[..at]
        .iter()
        .rposition(|w| w.contains('/'))
        .and_then(|slash| slash.checked_sub(1))
        .is_some_and(|before| {
            matches!(
                words[before].to_lowercase().as_str(),
                "is" | "are" | "was" | "were"
            )
        });
    let verb_said = be_before || after_a_preposition || asked_to_act;
    let loose = capital && (!asked || asked_of_it || asked_to_act);
    if capital && nouns_after::nouns_go_on(last, words, at, asked && !verb_said) {
        return true;
    }
    let lex = crate::rules::lexicon::lexicon();
    let bare = |raw: &str| {
        raw.trim_end_matches([',', ';', ':', '.', '!', '?'])
            .to_owned()
    };
    // ("Downloads/Firefox got sorted": a verb said of the folder is none of its name.)
    let kinds_go_on = loose && kinds_go_on_the_name(words, at);
    // ("Pictures/Best sitting on Backup/USB": a word in -ing before a place says where it is;
    // not "Pictures/Pothole caving into Backup/caving.zip", a pastime before where it goes.)
    let gerund_at = |i: usize| {
        let word = bare(words[i]);
        loose
            && gerund_of_a_name(&word)
            && (!POSTURES.contains(&word.as_str())
                || words.get(i + 1).is_none_or(|n| {
                    let n = bare(n).to_lowercase();
                    !places::LOCATION_PREPS.contains(&n.as_str())
                        && !places::TARGET_PREPS.contains(&n.as_str())
                }))
    };
    let goes_on_at = |i: usize| {
        let raw = words[i];
        !(loose && lex.statement_verbs.contains(&bare(raw)))
            && (tail_word(raw)
                || loose && tail_word_after_a_capital(raw, kinds_go_on)
                || gerund_at(i))
    };
    // A plural that names no kind of thing may be a verb said of the folder or what is in it
    // ("Work/Drafts items untouched for …"): only a word that never goes on a name ends it.
    let plural_only = |raw: &str| {
        let w = bare(raw);
        w.ends_with('s')
            && !places::describes_files(&w)
            && !tail_word_after_a_capital(&w, kinds_go_on)
    };
    let clear_end = |raw: &str, after: Option<&str>| {
        raw.ends_with([',', ';', ':'])
            || !raw.ends_with(['.', '!', '?'])
                && after.is_some_and(|w| {
                    ends_a_name(w)
                        || loose && !plural_only(raw) && after_a_name(w)
                        // ("which files are sitting in X/Feis entries right now?": a
                        // question's verb said before the name is none after it.)
                        || (loose || capital && verb_said) && function_word(w)
                })
    };
    // "Documents/Old job.": the end of the sentence ends a name written with a capital, unless
    // the word may be a verb said of the folder ("what Bakery/Invoices covers?").
    // The end of a part ("delete every .bak file in Projects/photo booth", cut before "and
    // then …") ends a name in lower case too.
    let sentence_end = |raw: &str, after: Option<&str>| {
        (loose || !raw.trim_end_matches(['.', '!', '?']).ends_with('s'))
            && (capital && raw.ends_with(['.', '!', '?']) || after.is_none())
    };
    let after = words.get(at + 1).copied();
    // "Videos/Botched takes can be deleted": a verb's form in -s before a modal or "are" is a
    // plural that names (a verb said of the folder has its object after it).
    let plural_subject = loose
        && !raw.ends_with([',', ';', ':', '.', '!', '?'])
        && raw.ends_with('s')
        && raw.len() > 3
        && raw.chars().all(char::is_lowercase)
        && !DETERMINERS.contains(raw)
        && after.is_some_and(|w| {
            matches!(
                w.to_lowercase().as_str(),
                "are" | "were" | "can" | "could" | "should" | "must" | "will" | "need"
            )
        });
    // "Documents/Airbnb guest room/Messages": words in lower case up to the slash of a part.
    // ("… room/listing description.docx": a file's name follows in the next words.)
    let file_ahead = words
        .iter()
        .skip(at + 1)
        .take(3)
        .take_while(|w| !w.ends_with([',', ';', ':', '!', '?']))
        .any(|w| crate::rules::looks_like_file(w.trim_end_matches('.')));
    let slash_follows = after.is_some_and(|next| {
        next.split_once('/').is_some_and(|(part, rest)| {
            let rest = rest.trim_end_matches([',', ';', ':', '.', '!', '?']);
            // ("Pictures/Trip photos/videos" is one or the other.)
            let lower_part = (tail_word(rest) || file_ahead)
                && !places::describes_files(part)
                && !places::describes_files(rest);
            tail_word(part)
                && (rest.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit())
                    || crate::rules::looks_like_file(rest)
                    || lower_part)
        })
    });
    plural_subject
        || loose && !raw.ends_with([',', ';', ':', '.', '!', '?']) && goes_on_at(at) && slash_follows
        || goes_on_at(at) && (clear_end(raw, after) || sentence_end(raw, after))
        // Two words: "Old printer drivers,", "Tax papers 2023 into".
        || !last.contains(' ')
            && !raw.ends_with([',', ';', ':', '.', '!', '?'])
            && goes_on_at(at)
            && after.is_some_and(|next| {
                (goes_on_at(at + 1) || loose && a_year(next))
                    && clear_end(next, words.get(at + 2).copied())
            })
}

/// "the .png files in Pictures/Blog images", "to External drive/Old videos": once the request
/// has named the files it acts on, or the path before `words[at]` is where things go, a word for
/// files after the name is the name's, not what is acted on ("sort Downloads/Misc files by type").
fn kinds_go_on_the_name(words: &[&str], at: usize) -> bool {
    let Some(slash) = words[..at].iter().rposition(|w| w.contains('/')) else {
        return false;
    };
    let before = &words[..slash];
    let lead = before
        .iter()
        .rev()
        .find(|w| !w.starts_with(char::is_uppercase));
    let lower = |w: &&str| {
        w.trim_end_matches([',', ';', ':', '.', '!', '?'])
            .to_lowercase()
    };
    lead.is_some_and(|w| places::TARGET_PREPS.contains(&lower(w).as_str()))
        || before
            .iter()
            .any(|w| FILE_NOUNS.contains(&lower(w).as_str()))
}
