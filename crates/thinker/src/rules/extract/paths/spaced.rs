//! Where a path whose last part goes on past a space ends ("Music/Live Sets", "Scans/Untitled
//! scan 14.pdf", "Farm_old_backup (2)") when the folder does not say: guesses from capitals,
//! numbers, brackets and the file name the words lead to. Pure.

use super::super::lexicon::*;
use super::super::names::NEVER_NAME_STARTS;
use super::super::places;
use super::{goes_on_before_a_slash, lower_case_tail, tail_word};
use crate::rules::lexicon::lexicon;
use crate::rules::looks_like_file;

/// What ends a word that ends a part of the sentence (or a bracket).
const STOPS: [char; 7] = [',', ';', ':', '.', '!', '?', ')'];

/// Words after a number that make it a count or an amount, not part of a name ("3 kb", "10 mb").
const UNIT_WORDS: &[&str] = &["b", "kb", "mb", "gb", "tb", "gig", "megs", "day", "min"];

/// A path whose last part goes on past a space ("Music/Live Sets", "Pictures/Phone Dump",
/// "Desktop/screenshots/Screen Shot 2024-02-11.png"): words written with a capital after a part
/// written with one, and a file name that ends it. Returns the path and the index after it.
pub(super) fn path_with_spaces(words: &[&str], i: usize, first: &str) -> (String, usize) {
    let mut path = first.trim_end_matches('/').to_owned();
    let mut end = i + 1;
    let lower_case_file = lower_case_file_follows(&path, words, i);
    // "Projects/garden planner", "Projects/bird feeder/parts list.txt": lower-case words go on
    // a name in lower case too.
    let lower_tail_follows = lower_case_tail(&path, words, end)
        || words
            .get(end)
            .and_then(|w| w.split_once('/'))
            .is_some_and(|(part, _)| goes_on_before_a_slash(&path, part));
    if ends(words[i])
        || !named(last_part(&path))
            && !lower_case_file
            && !lower_tail_follows
            && !words.get(end).is_some_and(|w| bracketed_name(w))
        || looks_like_file(&path)
    {
        return (path, end);
    }
    while let Some(next) = next_part(&path, words, end, lower_case_file) {
        path = format!("{path} {}", next.text);
        end += next.words;
        if next.last {
            break;
        }
    }
    (path, end)
}

/// What goes on a name: its text, how many words it takes, and whether the name ends with it.
struct NamePart {
    text: String,
    words: usize,
    last: bool,
}

/// The part of the name at `words[end]`, if the name goes on there.
fn next_part(path: &str, words: &[&str], end: usize, lower_case_file: bool) -> Option<NamePart> {
    let raw = *words.get(end)?;
    let word = raw.trim_end_matches([',', ';', ':', '!', '?', ')']);
    let word = word
        .strip_suffix('.')
        .filter(|_| !word.contains(".."))
        .unwrap_or(word);
    // "Requiem 5.4.1 [hotfix].zip": a version number is no file name.
    let file_name = looks_like_file(word)
        && !word.contains('/')
        && word
            .rsplit_once('.')
            .is_some_and(|(_, ext)| ext.chars().any(char::is_alphabetic));
    if goes_on_past_a_slash(path, word) {
        let last = looks_like_file(word) || ends(raw);
        return Some(NamePart {
            text: word.to_owned(),
            words: 1,
            last,
        });
    }
    // "2026-14 Mill Lane (point clouds) into …", "Mrs Okafor (consultant) 2026-11.pdf": one
    // or two plain words in brackets go on naming; a remark says more ("(so ep42.docx …").
    let bracketed_name = bracketed_name(raw);
    if !bracketed_name && let Some(close) = short_bracket(&words[end..]) {
        let inner = words[end..end + close].join(" ");
        let closed = inner.trim_end_matches([',', ';', ':', '!', '?', '.']);
        let last = ends(closed.trim_end_matches(')')) || closed.len() != inner.len();
        return Some(NamePart {
            text: closed.to_owned(),
            words: close,
            last,
        });
    }
    let at = Word {
        raw,
        word,
        file_name,
        bracketed_name,
    };
    if !joins(path, words, end, &at, lower_case_file) {
        return None;
    }
    let bracketed = raw.trim_end_matches([',', ';', ':', '!', '?', '.']);
    if copy_number(bracketed) {
        // The copy's number ends the name, its bracket with it.
        return Some(NamePart {
            text: bracketed.to_owned(),
            words: 1,
            last: true,
        });
    }
    if bracketed_name {
        let last = ends(raw.trim_end_matches(')'));
        return Some(NamePart {
            text: bracketed.to_owned(),
            words: 1,
            last,
        });
    }
    let abbreviation = matches!(raw, "v." | "vs.");
    Some(NamePart {
        text: if abbreviation { raw } else { word }.to_owned(),
        words: 1,
        last: ends(raw) && !abbreviation || file_name,
    })
}

/// A word after a name, as written and as read.
struct Word<'w> {
    raw: &'w str,
    /// Without the stop after it.
    word: &'w str,
    file_name: bool,
    bracketed_name: bool,
}

/// Whether the word at `words[end]` goes on the name `path` so far.
fn joins(path: &str, words: &[&str], end: usize, at: &Word, lower_case_file: bool) -> bool {
    let &Word {
        raw,
        word,
        file_name,
        bracketed_name,
    } = at;
    // "Taxes 2024/draft return (old).pdf", "Scans/Untitled scan 14.pdf": lower-case words up
    // to the file name they end in.
    let leads_to_a_file = (path.contains(' ') || lower_case_file || named(last_part(path)))
        && file_name_ahead(&words[end..], 5, |w| plain_word(w) && !w.contains('/'));
    // "Nguyen 2024 - soil microbiome.pdf": a dash inside a file's name.
    let dash_in_a_name = matches!(word, "-" | "–")
        && file_name_ahead(&words[end + 1..], 4, |w| plain_word(w) && !w.contains('/'));
    // "Final (so ep42.docx becomes …)": a bracket that opens a remark ends the name.
    // Not "Wellcome call 2027 (guidance notes).pdf": there the bracket closes in the file's name.
    let opens_a_remark = raw.starts_with('(')
        && !file_name
        && !bracketed_name
        && !words[end..].iter().take(4).any(|w| w.contains(")."));
    !word.contains('/')
        && !opens_a_remark
        && (lower_case_tail(path, words, end)
            || file_name
            || title_word(path, word, words.get(end + 1))
            || bracketed_name
            || dash_in_a_name
            || leads_to_a_file
            || capitalised_word(word)
            || acronym(word)
            || capital_inside(word)
            || brand_case(word)
            || numbered(words, end, word)
            || date_like(word)
            || copy_number(raw.trim_end_matches([',', ';', ':', '!', '?', '.']))
            || screenshot_time(path, word, words.get(end + 1))
            // "Backup/Clients 2022": a folder's name that goes on with a year.
            || year(word))
}

/// Whether a word ends a part of the sentence (or closes a bracket).
fn ends(raw: &str) -> bool {
    raw.ends_with(STOPS)
}

/// The last part of a path ("Live Sets" of "Music/Live Sets").
fn last_part(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

fn capital(x: &str) -> bool {
    x.starts_with(char::is_uppercase)
}

/// "1998", "2025": a year.
fn year(x: &str) -> bool {
    x.len() == 4
        && (x.starts_with("19") || x.starts_with("20"))
        && x.chars().all(|c| c.is_ascii_digit())
}

/// "Scans 1998-2005", "Screenshot 2025-11-03 at 14.22.10.png": a date, a range of years or a
/// time in a name.
fn date_like(x: &str) -> bool {
    x.len() >= 5
        && x.chars().next().is_some_and(|c| c.is_ascii_digit())
        && x.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '-' | '–' | '.' | '_'))
        && x.chars().any(|c| matches!(c, '-' | '–' | '.' | '_'))
}

/// "Music/iTunes Import": a name written with a capital anywhere; "Invoices/2025 Inbox": a
/// year goes on with a name too, and so does a school year ("Teaching/2025-26 Grades").
fn named(x: &str) -> bool {
    x.chars().any(char::is_uppercase) || year(x) || date_like(x)
}

/// "Farm_old_backup (2)": the number a copy gets.
fn copy_number(x: &str) -> bool {
    x.strip_prefix('(')
        .and_then(|x| x.strip_suffix(')'))
        .is_some_and(|n| (1..=3).contains(&n.len()) && n.chars().all(|c| c.is_ascii_digit()))
}

/// "Builds/v0.9.3-beta (Steam)": a word in brackets written with a capital goes on naming.
fn bracketed_name(raw: &str) -> bool {
    raw.starts_with('(')
        && raw
            .trim_end_matches([',', ';', ':', '!', '?', '.'])
            .ends_with(')')
        && raw[1..].starts_with(char::is_uppercase)
}

fn small_number(x: &str) -> bool {
    (1..=3).contains(&x.len()) && x.chars().all(|c| c.is_ascii_digit())
}

/// "Videos/Twitch VODs", "Inbox/Bank PDFs", "Work/Acme Q3": a short word in capitals.
fn acronym(x: &str) -> bool {
    let caps = x.trim_end_matches('s');
    (2..=5).contains(&caps.len())
        && caps.starts_with(|c: char| c.is_ascii_uppercase())
        && caps
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

/// "Music Production/Album 2 Sessions": a word written with a capital goes on naming; "Backup/
/// Drive B": one capital letter ends a name.
fn capitalised_word(word: &str) -> bool {
    // "Documents/From Dad's PC", "Pictures/Mum's 70th": a name's possessive.
    let (stem, possessive) = match word.strip_suffix("'s").or(word.strip_suffix("’s")) {
        Some(stem) => (stem, true),
        None => (word, false),
    };
    capital(stem)
        && stem
            .chars()
            .skip(1)
            .all(|c| c.is_lowercase() || c.is_ascii_digit())
        && (stem.len() > 1 || stem != "I" && stem != "A")
        && (!possessive
            || stem.len() >= 3
                && ![
                    "That", "What", "There", "Here", "Where", "Who", "Let", "Everyone",
                ]
                .contains(&stem))
        && plain_word(stem)
}

/// "Downloads/Old MacBook": a name with a capital inside.
fn capital_inside(word: &str) -> bool {
    word.len() >= 4
        && word.starts_with(|c: char| c.is_ascii_uppercase())
        && word.chars().skip(1).any(|c| c.is_ascii_uppercase())
        && word.chars().any(|c| c.is_ascii_lowercase())
        && word.chars().all(char::is_alphanumeric)
}

/// "Backup/Old iPad", "Music/My iTunes": a word in lower case with a capital after its first
/// letter.
fn brand_case(word: &str) -> bool {
    word.len() >= 4
        && word.starts_with(|c: char| c.is_ascii_lowercase())
        && word.chars().skip(1).any(|c| c.is_ascii_uppercase())
        && word.chars().all(char::is_alphanumeric)
}

/// "Semester 3", "Week 5/notes.pdf": a small number after a name goes on with it, unless it
/// counts what follows ("Photos/Trip 10 biggest files", "Raw 2 GB or heavier"). "Year 9
/// projects so …": a plural the name plainly ends after names too.
fn numbered(words: &[&str], end: usize, word: &str) -> bool {
    small_number(word)
        && (!counts_what_follows(words.get(end + 1))
            || words.get(end + 2).is_some_and(|a| super::ends_a_name(a))
                && words.get(end + 1).is_some_and(|n| tail_word(n)))
}

/// Whether the word after a number says what it counts: a unit ("GB", in capitals too) or a
/// plural in lower case.
fn counts_what_follows(next: Option<&&str>) -> bool {
    next.is_some_and(|raw| {
        let w = raw.trim_end_matches(STOPS).to_lowercase();
        UNIT_WORDS.contains(&w.as_str())
            || !raw.starts_with(char::is_uppercase)
                && w.chars().all(char::is_alphabetic)
                && w.len() > 3
                && w.ends_with('s')
    })
}

/// "All The Mods 9": a capitalised little word inside a title goes on naming; so do "the" and
/// "of" between words written with capitals ("Knitting/On the Needles", "Music/Best of Queen")
/// and "v." in a case's name ("Clients/Okonkwo v. Hartley").
fn title_word(path: &str, word: &str, next: Option<&&str>) -> bool {
    (capital(word) && DETERMINERS.contains(&word.to_lowercase().as_str())
        || matches!(word, "the" | "of" | "v" | "vs")
            && capital(last_part(path).rsplit(' ').next().unwrap_or_default()))
        && next.is_some_and(|n| capital(n))
}

/// "Screenshot 2025-11-03 at 14.22.10.png": the time a screenshot was taken.
fn screenshot_time(path: &str, word: &str, next: Option<&&str>) -> bool {
    word == "at"
        && date_like(last_part(path).rsplit(' ').next().unwrap_or_default())
        && next.is_some_and(|t| {
            let t = t.trim_end_matches([',', ';', ':', '!', '?']);
            looks_like_file(t) && t.starts_with(|c: char| c.is_ascii_digit())
        })
}

/// "Music/Live Sets/berlin-2019.flac": the name with a space goes on past the next slash,
/// unless that word starts a path of its own ("Documents/…"). "Clients/Kaufmann GmbH/export.zip":
/// a part with capitals inside goes on too.
fn goes_on_past_a_slash(path: &str, word: &str) -> bool {
    word.split_once('/').is_some_and(|(part, rest)| {
        // "Shop/Product photos/Mugs": a word in lower case between two parts written with a
        // capital ("photos/videos" is one or the other).
        let between_capitals = last_part(path).starts_with(char::is_uppercase)
            && rest.starts_with(char::is_uppercase)
            && part.len() > 2
            && part.chars().all(char::is_lowercase)
            && !super::never_in_a_name(part);
        // "Documents/House move/Letters", "Bakery/Allergy sheets/croissant.pdf": a word joined
        // by a slash to what follows is a folder's name after a part written with a capital,
        // a verb's spelling too ("move", "hunt"); only a word that links parts is none.
        let slash_bound = last_part(path).starts_with(char::is_uppercase)
            && super::ends_in_a_name_of_words(path)
            // ("Pictures/Trip photos/videos" is one or the other.)
            && (rest.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit() || c == '(')
                || rest.contains('.') && looks_like_file(rest.trim_end_matches(STOPS)))
            && part.len() > 2
            && part.chars().all(char::is_lowercase)
            && !links_parts(part);
        between_capitals
            || slash_bound
            || capital(part)
            && part.chars().all(char::is_alphanumeric)
            && part.chars().any(char::is_lowercase)
            // "Documents/Hockey U12/Paperwork".
            || acronym(part) && part.chars().any(|c| c.is_ascii_digit())
            // "Documents/Taxes 2024/irs-letter.pdf".
            || year(part)
            || small_number(part)
            // "Halvorsen Wedding (2026)/Proxies", "Biscuit (Beagle)/xray.dcm".
            || part.len() > 2 && part.starts_with('(') && part.ends_with(')')
            // "Documents/Book club/chapter 3 notes.docx".
            || goes_on_before_a_slash(path, part)
    })
}

/// A word that links the parts of a sentence ("and", "to", "the", "with"), never a name's.
fn links_parts(word: &str) -> bool {
    let l = word.to_lowercase();
    DETERMINERS.contains(&l.as_str())
        || NEVER_NAME_STARTS.contains(&l.as_str())
        || places::LOCATION_PREPS.contains(&l.as_str())
        || places::TARGET_PREPS.contains(&l.as_str())
        || matches!(l.as_str(), "or" | "and" | "then" | "than" | "as" | "like")
}

/// Not a word that links or a verb said of the folder: "Documents/Inbox are all named like
/// scan_0043.pdf".
fn plain_word(w: &str) -> bool {
    let l = w.to_lowercase();
    // ("Documents/Weaving/Drafts holds draft1.pdf": a verb said of the folder ends it.)
    let said_of_it = w.starts_with(char::is_lowercase)
        && (lexicon().statement_verbs.contains(&l) || super::NEVER_IN_A_NAME.contains(&l.as_str()));
    l != "as"
        && l != "like"
        && !said_of_it
        && !DETERMINERS.contains(&l.as_str())
        && !places::LOCATION_PREPS.contains(&l.as_str())
        && !places::TARGET_PREPS.contains(&l.as_str())
}

/// "Desktop/passport photo 35x45.jpg": lower-case words up to a file name, none of them a word
/// that links or acts, after a last part with no capital.
fn lower_case_file_follows(path: &str, words: &[&str], i: usize) -> bool {
    let lex = lexicon();
    let verb_before = words[..i]
        .iter()
        .any(|w| lex.action_verbs.contains(&w.to_lowercase()));
    !named(last_part(path))
        && !ends(words[i])
        && file_name_ahead(&words[i + 1..], 5, |w| {
            let l = w.to_lowercase();
            !w.contains('/')
                && l != "as"
                && !DETERMINERS.contains(&l.as_str())
                && !NEVER_NAME_STARTS.contains(&l.as_str())
                && !places::LOCATION_PREPS.contains(&l.as_str())
                && !places::TARGET_PREPS.contains(&l.as_str())
                // "Desktop/old listing photos.zip": a word in -ing inside a file's name is
                // no order.
                // Nor "read Paragliding/incident report Annecy.pdf": once the order's verb
                // came before the path, a verb's spelling inside the name is a noun.
                && (!lex.action_verbs.contains(&l) || l.ends_with("ing") || verb_before)
                // "Documents/Inbox are all named like scan_0043.pdf": a verb said of the
                // folder ends it.
                && !lex.statement_verbs.contains(&l)
                && l != "like"
        })
}

/// Whether a file name comes among the first `within` words (up to the end of the part), each
/// word before it one that `goes_with` a name.
fn file_name_ahead(words: &[&str], within: usize, goes_with: impl Fn(&str) -> bool) -> bool {
    up_to_a_stop(words)
        .iter()
        .take(within)
        .take_while(|w| goes_with(w))
        .any(|w| {
            let w = w.trim_end_matches([',', ';', ':', '!', '?']);
            looks_like_file(w) && !FORMAT_WORDS.contains(&w.to_lowercase().as_str())
        })
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
            && !lexicon().action_verbs.contains(&w)
            && ![
                "mostly", "maybe", "approx", "roughly", "about", "ish", "etc", "eg", "ie",
            ]
            .contains(&w.as_str())
    });
    plain.then_some(close + 1)
}
