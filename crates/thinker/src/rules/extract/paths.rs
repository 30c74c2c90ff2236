//! Paths and file names in a request, read whole ("Music/Live Sets", "Scans/Untitled scan 14.pdf",
//! "Farm_old_backup (2)") and set aside as placeholders so the words inside them are never read
//! as dates, extensions or folders. Pure.

use super::Grounding;
use super::lexicon::*;
use super::names::{NEVER_NAME_STARTS, name_before_path};
use super::places;

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

/// "Downlaods/old-setup.dmg" is in Downloads: a misspelt common folder starting a path is
/// corrected (written with a capital when it was).
fn with_first_folder_spelt_right(path: &str) -> String {
    let Some((first, rest)) = path.split_once('/') else {
        return path.to_owned();
    };
    // "Archiv/…" is the German folder, not "Archive" cut short.
    if !misspelt_folder(first)
        || COMMON_FOLDERS
            .iter()
            .any(|f| f.starts_with(&first.to_lowercase()))
    {
        return path.to_owned();
    }
    let Some(fixed) = crate::rules::normalize::correct_folder(first, COMMON_FOLDERS) else {
        return path.to_owned();
    };
    let fixed = if first.starts_with(char::is_uppercase) {
        let mut c = fixed.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or(fixed)
    } else {
        fixed
    };
    format!("{fixed}/{rest}")
}

/// Paths and file names are names, like quoted text: each becomes a placeholder, so the words
/// inside them are not read as dates, extensions or folders ("recent" and "zip" of
/// "Work/recent.zip").
pub(super) fn protect_paths(text: &mut String, quoted: &mut Vec<String>, g: &Grounding) {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        let bare = word.trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
        if names_a_path(bare) {
            let (name, next) = match grounded_path(&words, i, g) {
                Some((back, name, next)) => {
                    out.truncate(out.len() - back);
                    (name, next)
                }
                None => {
                    let (name, next) = path_with_spaces(&words, i, bare);
                    (name_before_path(&mut out, name), next)
                }
            };
            let last_raw = words[next - 1];
            // "Farm_old_backup (2)": a bracket that closes in the name is the name's.
            let last = if name.ends_with(')') {
                last_raw.trim_end_matches([',', ';', ':', '.', '!', '?'])
            } else {
                last_raw.trim_end_matches([',', ';', ':', '.', '!', '?', ')'])
            };
            quoted.push(with_first_folder_spelt_right(&name));
            out.push(format!("⟦{}⟧{}", quoted.len() - 1, &last_raw[last.len()..]));
            i = next;
        } else {
            out.push(word.to_owned());
            i += 1;
        }
    }
    *text = out.join(" ");
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

/// `words` up to the first that ends a part of the sentence (with a comma, a colon …), that
/// one included: a file named after "…, e.g." is not the end of the name before it.
fn up_to_a_stop<'w>(words: &'w [&'w str]) -> &'w [&'w str] {
    let end = words
        .iter()
        .position(|w| w.ends_with([',', ';', ':', '!', '?']))
        .map_or(words.len(), |i| i + 1);
    &words[..end]
}

/// Words after a number that make it a count or an amount, not part of a name ("3 kb", "10 mb").
const UNIT_WORDS: &[&str] = &["b", "kb", "mb", "gb", "tb", "gig", "megs", "day", "min"];

/// A path whose last part goes on past a space ("Music/Live Sets", "Pictures/Phone Dump",
/// "Desktop/screenshots/Screen Shot 2024-02-11.png"): words written with a capital after a part
/// written with one, and a file name that ends it. Returns the path and the index after it.
pub(super) fn path_with_spaces(words: &[&str], i: usize, first: &str) -> (String, usize) {
    let ends = |raw: &str| raw.ends_with([',', ';', ':', '.', '!', '?', ')']);
    let mut path = first.trim_end_matches('/').to_owned();
    let mut end = i + 1;
    let last_part = |p: &str| p.rsplit('/').next().unwrap_or(p).to_owned();
    let capital = |x: &str| x.starts_with(char::is_uppercase);
    // "Scans 1998-2005", "Screenshot 2025-11-03 at 14.22.10.png": a date, a range of years or a
    // time in a name.
    let date_like = |x: &str| {
        x.len() >= 5
            && x.chars().next().is_some_and(|c| c.is_ascii_digit())
            && x.chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '-' | '–' | '.' | '_'))
            && x.chars().any(|c| matches!(c, '-' | '–' | '.' | '_'))
    };
    // "Music/iTunes Import": a name written with a capital anywhere; "Invoices/2025 Inbox": a
    // year goes on with a name too, and so does a school year ("Teaching/2025-26 Grades").
    let named = |x: &str| {
        x.chars().any(char::is_uppercase)
            || x.len() == 4
                && (x.starts_with("19") || x.starts_with("20"))
                && x.chars().all(|c| c.is_ascii_digit())
            || date_like(x)
    };
    // "Farm_old_backup (2)": the number a copy gets.
    let copy_number = |x: &str| {
        x.strip_prefix('(')
            .and_then(|x| x.strip_suffix(')'))
            .is_some_and(|n| (1..=3).contains(&n.len()) && n.chars().all(|c| c.is_ascii_digit()))
    };
    // "Desktop/passport photo 35x45.jpg": lower-case words up to a file name, none of them a
    // word that links or acts.
    let lower_case_file = !named(&last_part(&path))
        && !ends(words[i])
        && up_to_a_stop(&words[end..])
            .iter()
            .take(5)
            .take_while(|w| {
                let l = w.to_lowercase();
                !w.contains('/')
                    && l != "as"
                    && !DETERMINERS.contains(&l.as_str())
                    && !NEVER_NAME_STARTS.contains(&l.as_str())
                    && !places::LOCATION_PREPS.contains(&l.as_str())
                    && !places::TARGET_PREPS.contains(&l.as_str())
                    && !crate::rules::lexicon::lexicon().action_verbs.contains(&l)
                    // "Documents/Inbox are all named like scan_0043.pdf": a verb said of the
                    // folder ends it.
                    && !crate::rules::lexicon::lexicon().statement_verbs.contains(&l)
                    && l != "like"
            })
            .any(|w| {
                let w = w.trim_end_matches([',', ';', ':', '!', '?']);
                crate::rules::looks_like_file(w)
                    && !FORMAT_WORDS.contains(&w.to_lowercase().as_str())
            });
    // "Builds/v0.9.3-beta (Steam)": a word in brackets written with a capital goes on naming.
    let bracketed_name = |raw: &str| {
        raw.starts_with('(')
            && raw
                .trim_end_matches([',', ';', ':', '!', '?', '.'])
                .ends_with(')')
            && raw[1..].starts_with(char::is_uppercase)
    };
    // "Projects/garden planner", "Projects/bird feeder/parts list.txt": lower-case words go on
    // a name in lower case too.
    let lower_tail_follows = lower_case_tail(&path, words, end)
        || words
            .get(end)
            .and_then(|w| w.split_once('/'))
            .is_some_and(|(part, _)| goes_on_before_a_slash(&path, part));
    if ends(words[i])
        || !named(&last_part(&path))
            && !lower_case_file
            && !lower_tail_follows
            && !words.get(end).is_some_and(|w| bracketed_name(w))
        || crate::rules::looks_like_file(&path)
    {
        return (path, end);
    }
    // "Semester 3", "Week 5/notes.pdf": a small number after a name goes on with it, unless it
    // counts what follows ("Photos/Trip 10 biggest files").
    // "Music Production/Album 2 Sessions": a word written with a capital goes on naming.
    // "Raw 2 GB or heavier": a unit in capitals counts too.
    let counts_what_follows = |next: Option<&&str>| {
        next.is_some_and(|raw| {
            let w = raw
                .trim_end_matches([',', ';', ':', '.', '!', '?', ')'])
                .to_lowercase();
            UNIT_WORDS.contains(&w.as_str())
                || !raw.starts_with(char::is_uppercase)
                    && w.chars().all(char::is_alphabetic)
                    && w.len() > 3
                    && w.ends_with('s')
        })
    };
    let small_number =
        |x: &str| (1..=3).contains(&x.len()) && x.chars().all(|c| c.is_ascii_digit());
    // "Videos/Twitch VODs", "Inbox/Bank PDFs", "Work/Acme Q3": a short word in capitals.
    let acronym = |x: &str| {
        let caps = x.trim_end_matches('s');
        (2..=5).contains(&caps.len())
            && caps.starts_with(|c: char| c.is_ascii_uppercase())
            && caps
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    };
    while let Some(raw) = words.get(end) {
        let word = raw.trim_end_matches([',', ';', ':', '!', '?', ')']);
        let word = word
            .strip_suffix('.')
            .filter(|_| !word.contains(".."))
            .unwrap_or(word);
        // "Requiem 5.4.1 [hotfix].zip": a version number is no file name.
        let file_name = crate::rules::looks_like_file(word)
            && !word.contains('/')
            && word
                .rsplit_once('.')
                .is_some_and(|(_, ext)| ext.chars().any(char::is_alphabetic));
        // "Music/Live Sets/berlin-2019.flac": the name with a space goes on past the next slash,
        // unless that word starts a path of its own ("Documents/…").
        // "Clients/Kaufmann GmbH/export.zip": a part with capitals inside goes on too.
        let goes_on = word.split_once('/').is_some_and(|(part, _)| {
            capital(part)
                && part.chars().all(char::is_alphanumeric)
                && part.chars().any(char::is_lowercase)
                // "Documents/Taxes 2024/irs-letter.pdf".
                || part.len() == 4
                    && (part.starts_with("19") || part.starts_with("20"))
                    && part.chars().all(|c| c.is_ascii_digit())
                || small_number(part)
                // "Halvorsen Wedding (2026)/Proxies", "Biscuit (Beagle)/xray.dcm".
                || part.len() > 2 && part.starts_with('(') && part.ends_with(')')
                // "Documents/Book club/chapter 3 notes.docx".
                || goes_on_before_a_slash(&path, part)
        });
        if goes_on {
            path = format!("{path} {word}");
            end += 1;
            if crate::rules::looks_like_file(word) || ends(raw) {
                break;
            }
            continue;
        }
        // Not a verb said of the folder: "Documents/Inbox are all named like scan_0043.pdf".
        let plain_word = |w: &str| {
            let l = w.to_lowercase();
            let said_of_it = w.starts_with(char::is_lowercase)
                && crate::rules::lexicon::lexicon()
                    .statement_verbs
                    .contains(&l);
            l != "as"
                && l != "like"
                && !said_of_it
                && !DETERMINERS.contains(&l.as_str())
                && !places::LOCATION_PREPS.contains(&l.as_str())
                && !places::TARGET_PREPS.contains(&l.as_str())
        };
        // "Taxes 2024/draft return (old).pdf", "Scans/Untitled scan 14.pdf": lower-case words up
        // to the file name they end in.
        let leads_to_a_file = (path.contains(' ') || lower_case_file || named(&last_part(&path)))
            && up_to_a_stop(&words[end..])
                .iter()
                .take(5)
                .take_while(|w| plain_word(w) && !w.contains('/'))
                .any(|w| {
                    let w = w.trim_end_matches([',', ';', ':', '!', '?']);
                    crate::rules::looks_like_file(w)
                        && !FORMAT_WORDS.contains(&w.to_lowercase().as_str())
                });
        // "All The Mods 9": a capitalised little word inside a title goes on naming; so do "the"
        // and "of" between words written with capitals ("Knitting/On the Needles", "Music/Best
        // of Queen") and "v." in a case's name ("Clients/Okonkwo v. Hartley").
        let title_word = (capital(word) && DETERMINERS.contains(&word.to_lowercase().as_str())
            || matches!(word, "the" | "of" | "v" | "vs")
                && capital(last_part(&path).rsplit(' ').next().unwrap_or_default()))
            && words.get(end + 1).is_some_and(|n| capital(n));
        let bracketed_name = bracketed_name(raw);
        // "2026-14 Mill Lane (point clouds) into …", "Mrs Okafor (consultant) 2026-11.pdf": one
        // or two plain words in brackets go on naming; a remark says more ("(so ep42.docx …").
        if !bracketed_name && let Some(close) = short_bracket(&words[end..]) {
            let inner = words[end..end + close].join(" ");
            let closed = inner.trim_end_matches([',', ';', ':', '!', '?', '.']);
            path = format!("{path} {closed}");
            end += close;
            if ends(closed.trim_end_matches(')')) || closed.len() != inner.len() {
                break;
            }
            continue;
        }
        // "Nguyen 2024 - soil microbiome.pdf": a dash inside a file's name.
        let dash_in_a_name = matches!(word, "-" | "–")
            && up_to_a_stop(&words[end + 1..])
                .iter()
                .take(4)
                .take_while(|w| plain_word(w) && !w.contains('/'))
                .any(|w| {
                    let w = w.trim_end_matches([',', ';', ':', '!', '?']);
                    crate::rules::looks_like_file(w)
                        && !FORMAT_WORDS.contains(&w.to_lowercase().as_str())
                });
        // "Final (so ep42.docx becomes …)": a bracket that opens a remark ends the name.
        // Not "Wellcome call 2027 (guidance notes).pdf": there the bracket closes in the file's name.
        let opens_a_remark = raw.starts_with('(')
            && !file_name
            && !bracketed_name
            && !words[end..].iter().take(4).any(|w| w.contains(")."));
        let lower_tail = lower_case_tail(&path, words, end);
        let joins = !word.contains('/')
            && !opens_a_remark
            && (lower_tail
                || file_name
                || title_word
                || bracketed_name
                || dash_in_a_name
                || leads_to_a_file
                || capital(word)
                    && word.chars().skip(1).all(|c| c.is_lowercase() || c.is_ascii_digit())
                    // "Backup/Drive B": one capital letter ends a name.
                    && (word.len() > 1 || word != "I" && word != "A")
                    && plain_word(word)
                || acronym(word)
                // "Downloads/Old MacBook": a name with a capital inside.
                || word.len() >= 4
                    && word.starts_with(|c: char| c.is_ascii_uppercase())
                    && word.chars().skip(1).any(|c| c.is_ascii_uppercase())
                    && word.chars().any(|c| c.is_ascii_lowercase())
                    && word.chars().all(char::is_alphanumeric)
                // "Year 9 projects so …": a plural the name plainly ends after names too.
                || small_number(word)
                    && (!counts_what_follows(words.get(end + 1))
                        || words.get(end + 2).is_some_and(|a| ends_a_name(a))
                            && words.get(end + 1).is_some_and(|n| tail_word(n)))
                || date_like(word)
                || copy_number(raw.trim_end_matches([',', ';', ':', '!', '?', '.']))
                // "Screenshot 2025-11-03 at 14.22.10.png": the time a screenshot was taken.
                || word == "at"
                    && date_like(last_part(&path).rsplit(' ').next().unwrap_or_default())
                    && words.get(end + 1).is_some_and(|t| {
                        let t = t.trim_end_matches([',', ';', ':', '!', '?']);
                        crate::rules::looks_like_file(t) && t.starts_with(|c: char| c.is_ascii_digit())
                    })
                // "Backup/Clients 2022": a folder's name that goes on with a year.
                || word.len() == 4
                    && (word.starts_with("19") || word.starts_with("20"))
                    && word.chars().all(|c| c.is_ascii_digit()));
        if !joins {
            break;
        }
        let bracketed = raw.trim_end_matches([',', ';', ':', '!', '?', '.']);
        if copy_number(bracketed) {
            // The copy's number ends the name, its bracket with it.
            path = format!("{path} {bracketed}");
            end += 1;
            break;
        }
        if bracketed_name {
            path = format!("{path} {bracketed}");
            end += 1;
            if ends(raw.trim_end_matches(')')) {
                break;
            }
            continue;
        }
        let abbreviation = matches!(*raw, "v." | "vs.");
        path = format!("{path} {}", if abbreviation { raw } else { word });
        end += 1;
        if ends(raw) && !abbreviation || file_name {
            break;
        }
    }
    (path, end)
}

/// "(point clouds)", "(consultant)": one or two plain words in brackets that close (how many
/// words they take), not a remark ("(so ep42.docx becomes …)", "(the old ones)", "(e.g. …)").
fn short_bracket(words: &[&str]) -> Option<usize> {
    let first = words.first()?.strip_prefix('(')?;
    let inner: Vec<&str> = std::iter::once(first)
        .chain(words.iter().skip(1).copied())
        .take(2)
        .collect();
    let close = inner.iter().position(|w| {
        w.trim_end_matches([',', ';', ':', '!', '?', '.'])
            .ends_with(')')
    })?;
    let plain = inner[..=close].iter().all(|w| {
        let w = w
            .trim_end_matches([',', ';', ':', '!', '?', '.'])
            .trim_end_matches(')')
            .to_lowercase();
        !w.is_empty()
            && w.chars().all(|c| c.is_alphanumeric() || c == '-')
            && !DETERMINERS.contains(&w.as_str())
            && !NEVER_NAME_STARTS.contains(&w.as_str())
            && !places::LOCATION_PREPS.contains(&w.as_str())
            && !places::TARGET_PREPS.contains(&w.as_str())
            && !crate::rules::lexicon::lexicon().action_verbs.contains(&w)
            && ![
                "mostly", "maybe", "approx", "roughly", "about", "ish", "etc", "eg", "ie",
            ]
            .contains(&w.as_str())
    });
    plain.then_some(close + 1)
}

/// Words that never go on a name in lower case: they link, ask, point or say when and how
/// ("Documents/Taxes first", "Desktop/Old stuff hold?").
const NEVER_IN_A_NAME: &[&str] = &[
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
    "instead",
    "later",
    "today",
    "tonight",
    "asap",
    "afterwards",
    "everywhere",
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
];

/// Whether a word ends a name or starts what comes after one.
fn never_in_a_name(word: &str) -> bool {
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
    if !ends_in_a_name_of_words(path) {
        return false;
    }
    // After a part in lower case ("Projects/site say") a word is as likely a verb: only a
    // clear end makes it a name.
    let capital = last.starts_with(char::is_uppercase);
    let Some(raw) = words.get(at) else {
        return false;
    };
    // "what does config.yaml in Projects/site say", "why does Pictures weigh so much": after
    // "does", the word after the name is its verb.
    if words[..at]
        .iter()
        .any(|w| matches!(w.to_lowercase().as_str(), "does" | "do" | "did"))
    {
        return false;
    }
    let clear_end = |raw: &str, after: Option<&str>| {
        raw.ends_with([',', ';', ':'])
            || !raw.ends_with(['.', '!', '?']) && after.is_some_and(ends_a_name)
    };
    // "Documents/Old job.": the end of the sentence ends a name written with a capital, unless
    // the word may be a verb said of the folder ("what Bakery/Invoices covers?").
    // The end of a part ("delete every .bak file in Projects/photo booth", cut before "and
    // then …") ends a name in lower case too.
    let sentence_end = |raw: &str, after: Option<&str>| {
        !raw.trim_end_matches(['.', '!', '?']).ends_with('s')
            && (capital && raw.ends_with(['.', '!', '?']) || after.is_none())
    };
    let after = words.get(at + 1).copied();
    tail_word(raw) && (clear_end(raw, after) || sentence_end(raw, after))
        // Two words: "Old printer drivers,".
        || !last.contains(' ')
            && !raw.ends_with([',', ';', ':', '.', '!', '?'])
            && tail_word(raw)
            && after.is_some_and(|next| {
                tail_word(next) && clear_end(next, words.get(at + 2).copied())
            })
}

/// Whether the last part of `path` is a name of words ("Job", "garden", "Phone backup"), not a
/// number or a file, with room for one more word (three at most).
fn ends_in_a_name_of_words(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or(path);
    let last_word = last.rsplit(' ').next().unwrap_or(last);
    // "Year 9": a small number after a word ends a name of words too.
    let numbered = last.contains(' ')
        && (1..=3).contains(&last_word.len())
        && last_word.chars().all(|c| c.is_ascii_digit());
    numbered
        || last_word.chars().count() >= 2
            && last_word.chars().any(char::is_alphabetic)
            && last_word
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '\'' | '’'))
            && !crate::rules::looks_like_file(last_word)
            && last.split(' ').count() < 3
}

/// "Projects/bird feeder/parts list.txt": a word in lower case before a slash goes on the name
/// before it (the slash ends it).
fn goes_on_before_a_slash(path: &str, part: &str) -> bool {
    ends_in_a_name_of_words(path) && tail_word(part)
}

/// A word in lower case that may go on a name: not a kind of file ("Work/Reports documents"), a
/// manner ("quickly"), a participle ("keeping", "turned"), a comparison ("older"), a verb said of
/// the folder ("looks", "moves"), a word the lexicon reads ("ovr", "lowercase") or one that never
/// names.
pub(super) fn tail_word(raw: &str) -> bool {
    const COMPARED: &[&str] = &[
        "old", "new", "big", "larg", "small", "lat", "earli", "young", "fast", "slow", "high",
        "low", "long", "short", "heavi", "light", "bigg", "fatt", "nic", "clos", "wid",
    ];
    let word = raw.trim_end_matches([',', ';', ':', '.', '!', '?']);
    let lex = crate::rules::lexicon::lexicon();
    let read_by_the_lexicon = lex.synonyms.contains_key(word)
        || lex.common_words.contains(word)
        || lex.case_words.values().flatten().any(|w| w == word)
        || lex.filler_leads.iter().any(|w| w == word);
    let verb_said_of_it = word.ends_with('s')
        && (lex.statement_verbs.contains(word)
            || lex.action_verbs.contains(word.trim_end_matches('s'))
            || lex.action_verbs.contains(word.trim_end_matches("es")));
    word.len() > 2
        && word.chars().all(|c| c.is_lowercase() || c == '-')
        && !["ly", "ing", "ed"].iter().any(|end| word.ends_with(end))
        && !word
            .strip_suffix("er")
            .is_some_and(|stem| COMPARED.contains(&stem))
        && !verb_said_of_it
        && !read_by_the_lexicon
        && !never_in_a_name(word)
        // "Desktop/Old stuff": a word for anything at all names too, a kind of file does not.
        && (!places::describes_files(word) || word == "stuff")
        && !known_extension(word.trim_end_matches('s'))
}

/// Whether a word plainly starts what comes after a name, so the one before it ends there: a
/// word linking parts ("and", "then", "instead"), where things go ("to"), a verb said of the
/// folder that cannot be a name ("has", "needs", "should") or "folder".
fn ends_a_name(word: &str) -> bool {
    const LINKS: &[&str] = &[
        "and",
        "then",
        "so",
        "because",
        "since",
        "once",
        "rather",
        "instead",
        "afterwards",
        "but",
        "or",
        "while",
        "if",
        "when",
        "please",
        "pls",
        "should",
        "could",
        "would",
        "must",
        "ought",
        "can",
        "will",
        "might",
        "may",
        "shall",
    ];
    let l = word
        .trim_end_matches([',', ';', ':', '.', '!', '?', ')'])
        .to_lowercase();
    let lex = crate::rules::lexicon::lexicon();
    LINKS.contains(&l.as_str())
        || places::TARGET_PREPS.contains(&l.as_str())
        || lex.statement_verbs.contains(&l)
        || is_folder_noun(&l)
}
