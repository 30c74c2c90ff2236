//! New names read from a clause: a numbering or a date shown by an example name ("like
//! 2024-05-01_scan.pdf"), text put in front of or after every name ("prefix … with inv-"), the
//! date put there, and text replaced inside names ("swap spaces for underscores"). Pure.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::lexicon::{EXAMPLE_NAMES, ONE_EXAMPLE_NAME, re, unquote};

/// "like 2024-05-01_scan.pdf", "e.g. summary_2024-05-01.docx": one example of a new name.
static EXAMPLE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:like|e\.g\.?|such as|for example|for instance|as in)\s+([\w\-]+(?:\s\d[\w\-.]*)?\.[a-z0-9]{1,6})\b",
    )
});
/// "(so ep42.docx becomes ep42_clean.docx)": one name and the new name it gets.
static EXAMPLE_CHANGE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b[\w\-]+\.[a-z0-9]{1,6}\s+(?:becomes|would become|turns into|→|->)\s+[\w\-]+\.[a-z0-9]{1,6}\b",
    )
});
/// A date written in an example name: digit groups with or without separators.
static DATE_IN_NAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"(19|20)\d\d(?:[-_.]?\d\d){2}(?:[-_ T]?\d\d(?:[-_.:]?\d\d){1,2})?"));
/// "replace X with Y", "swap X for Y", "replace in every name in Scans the spaces with dashes",
/// "swap every space in the file names for a dash".
static REPLACE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\b(?:replace|swap|substitute|exchange)\s+(?:in\s+.*?\s+)??(?:all\s+|every\s+|each\s+)?(?:the\s+)?("[^"]*"|'[^']*'|\S+)\s+(?:(?:bit|bits|part|parts|piece|text|string|prefix|suffix)\s+)?(?:in\s+(?:the\s+|all\s+|every\s+)?(?:file\s*)?names?\s+)?(?:out\s+)?(?:with|for|by)\s+(?:an?\s+)?(?:blank\s+|real\s+|plain\s+|single\s+|normal\s+)?("[^"]*"|'[^']*'|\S+)"#,
    )
});
/// "'Aktivität' durch 'Tour' ersetzen" ("'Aktivität' with 'Tour' replace"): quoted text, then
/// what replaces it, then the verb.
static REPLACED_WITH_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)("[^"]*"|'[^']*'|⟦\d+⟧)\s+(?:with|by|for)\s+("[^"]*"|'[^']*'|⟦\d+⟧)\s+(?:\w+\s+)?(?:replace|replaced|swap|swapped|substitute|substituted)\b"#,
    )
});
/// "underscores in file names should become spaces", "turn the dots into dashes", "turn each
/// space into a hyphen", "turn %20 in Wallpapers/4K file names into real spaces".
static BECOME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)(?:\bturn\s+(?:all\s+|each\s+|every\s+)?(?:the\s+)?("[^"]*"|'[^']*'|\S+)\s+(?:in\s+(\S+)(?:\s+file)?\s+names\s+)?into\s+(?:an?\s+)?(?:blank\s+|real\s+|plain\s+|single\s+|normal\s+)?("[^"]*"|'[^']*'|\S+))|(?:("[^"]*"|'[^']*'|\S+)\s+(?:in\s+(?:the\s+)?(?:file\s*)?names\s+)?(?:should\s+)?(?:become|turn\s+into|be\s+replaced\s+(?:with|by))\s+("[^"]*"|'[^']*'|\S+))"#,
    )
});
/// "change IMG_ to Rome_ (in the file names)", "change every space in the names to an underscore".
static CHANGE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\bchange\s+(?:all\s+|every\s+|each\s+)?(?:the\s+)?("[^"]*"|'[^']*'|\S+)\s+(?:in\s+(?:the\s+|all\s+|every\s+)?(?:file\s*)?names?\s+)?(?:to|into)\s+(?:an?\s+)?("[^"]*"|'[^']*'|\S+)"#,
    )
});
/// "strip 'Copy of ' from the names", "remove 'scan_' from the file names": quoted text taken out
/// of names; also with the verb last, as German puts it ("'scan_' aus den Dateinamen entfernen").
static STRIP: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\b(?:remove|strip|drop|delete|cut|lose|take)\s+(?:the\s+|every\s+|all\s+)?("[^"]*"|'[^']*'|⟦\d+⟧)|("[^"]*"|'[^']*'|⟦\d+⟧)\s+(?:from|out of|off)\b[^;]*?\bnames?\b[^;]*?\b(?:remove|strip|delete|cut)\b"#,
    )
});
/// Text in names said as a complaint and a wish: "the names have dashes everywhere, I'd rather
/// have spaces"; "the names start with DSC; make that Porto instead"; "names all start with
/// 'Copy of ', strip that bit off" (group 3: taken out).
static WISHED_NAMES: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\b(?:have|has|with|contain|contains)\s+("[^"]*"|'[^']*'|⟦\d+⟧|\S+)\s+(?:everywhere|all over|in them)\b[^;.]*?\b(?:i'd rather have|i would rather have|rather have|i'd prefer|i want|should be|make (?:them|those|that|it))\s+("[^"]*"|'[^']*'|⟦\d+⟧|\S+)|\bstarts?\s+with\s+("[^"]*"|'[^']*'|⟦\d+⟧|\S+?)[;,.]?\s+(?:(?:make|change|turn) (?:that|it|this)(?: in)?(?:to)?|replace (?:that|it|this) with)\s+("[^"]*"|'[^']*'|⟦\d+⟧|\S+)|\bstarts?\s+with\s+("[^"]*"|'[^']*'|⟦\d+⟧|\S+?)[;,.]?\s+(?:strip|remove|drop|cut|lose|take)\s+(?:that|it|this)\b|\b(?:full of|littered with|riddled with)\s+("[^"]*"|'[^']*'|⟦\d+⟧|\S+)\s+\S*\s*(?:turn|make|change)\s+(?:those|them|these|it|that)\s+(?:in)?to\s+(?:real\s+|plain\s+|proper\s+|normal\s+)?("[^"]*"|'[^']*'|⟦\d+⟧|\S+)"#,
    )
});
/// "prefix … with inv-", "suffix … with _v2": the text is the last word.
static AFFIX_WITH: LazyLock<Regex> =
    LazyLock::new(|| re(r#"(?i)\b(prefix|suffix)\s+.*?\bwith\s+("[^"]*"|'[^']*'|\S+)"#));
/// "the prefix mc_ before its current name", "a suffix of _v2": the affix named as such.
static AFFIX_NAMED: LazyLock<Regex> = LazyLock::new(|| {
    re(r#"(?i)\b(?:the|an?)\s+(prefix|suffix)\s+(?:of\s+)?("[^"]*"|'[^']*'|⟦\d+⟧|\S+)"#)
});
/// "add _final to the end of", "put inv- in front of", "append -old", "stick a final_ prefix on", "tack _v2 onto".
static AFFIX_ADD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\b(?:add|put|stick|tack|slap|prepend|append|attach|gets?|give)\s+(?:an?\s+|the\s+)?("[^"]*"|'[^']*'|\S+)\s*(?:(?:to|at|on|onto)\s+the\s+(start|beginning|front|end)|(in front of|before|after|behind)|(prefix|suffix)\b)?"#,
    )
});
/// "_clean tacked onto the end of each name", "inv- added in front": the text, then how it is
/// put on.
static AFFIX_PUT_ON: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)("[^"]*"|'[^']*'|\S+)\s+(?:added|tacked|put|stuck|appended|prepended|attached|slapped|placed)\s+(?:on\s+)?(?:(?:to|at|on|onto)\s+the\s+(start|beginning|front|end)|(in front of|before|after|behind))"#,
    )
});
/// "should end in _EN", "names start with 'draft '": literal text a name ends or starts with.
static AFFIX_SAID: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\b(end|ends|ending|start|starts|starting|begin|begins|beginning)\s+(?:in|with)\s+("[^"]*"|'[^']*'|\S+)"#,
    )
});
/// Where the date goes when no example shows it: "the date in front of their names", "the date
/// at the start of its filename"; "the date in their file names" goes in front.
static DATE_PLACE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bdate\b.*?\b(in front of|before|at the (?:start|beginning|end) of|after|behind|in)\s+(?:the\s+|each\s+|every\s+|their\s+|its\s+|all\s+)?(?:file\s*|photo\s*)?names?\b",
    )
});

/// Words that say the date is when a photo was taken (EXIF), not when the file changed.
const TAKEN_WORDS: &[&str] = &["taken", "shot", "shooting", "captured", "capture", "exif"];
/// What "spaces", "dashes" in "replace spaces with dashes" stand for.
const CHARACTER_NAMES: &[(&str, &str)] = &[
    ("space", " "),
    ("blank", " "),
    ("underscore", "_"),
    ("dash", "-"),
    ("hyphen", "-"),
    ("dot", "."),
    ("period", "."),
    ("nothing", ""),
];
/// What a replacement never starts from ("replace them with hardlinks" is not about names).
const NOT_NAME_TEXT: &[&str] = &[
    "them",
    "these",
    "those",
    "it",
    "duplicates",
    "copies",
    "files",
];

/// The new-name rules a clause gives.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Renaming {
    pub pattern: Option<String>,
    pub start: Option<u64>,
    pub find: Option<String>,
    pub replace: Option<String>,
}

/// Reads the renaming rules out of `text` and cuts what it read; `lookup` resolves quoted words.
pub(super) fn read(text: &mut String, lookup: &dyn Fn(&str) -> Option<String>) -> Renaming {
    let mut r = Renaming::default();
    let says_names = text.to_lowercase().contains("name");
    let mut found = None;
    if let Some((find, replace, range, place)) = replacement(text, lookup, says_names) {
        r.find = Some(literal_pattern(&find));
        found = Some(find);
        r.replace = Some(replace);
        let kept = place.map_or_else(|| " ".to_owned(), |p| format!(" in {p} "));
        text.replace_range(range, &kept);
    }
    // "the date they were taken", "EXIF"; "if a name is already taken" is not about dates.
    let taken = {
        let l = text.to_lowercase();
        let words: Vec<&str> = l.split(|c: char| !c.is_alphanumeric()).collect();
        l.contains("capture date")
            || words.contains(&"exif")
            || words.iter().any(|w| TAKEN_WORDS.contains(w))
                && words
                    .iter()
                    .any(|w| matches!(*w, "date" | "dates" | "when" | "time" | "moment"))
    };
    if let Some((pattern, start, range)) =
        numbered_example(text).or_else(|| dated_example(text, taken))
    {
        r.pattern = Some(pattern);
        r.start = start.filter(|s| *s != 1);
        text.replace_range(range, " ");
    } else if let Some((pattern, range)) = affix(text, lookup)
        // "all start with 'lichess_pgn_' … swap that for …": what the names start with now.
        .filter(|(p, _)| found.as_ref().is_none_or(|f| !p.contains(f.as_str())))
    {
        r.pattern = Some(pattern);
        text.replace_range(range, " ");
        // "…, e.g. contract_EN.docx", "(so ep42.docx becomes ep42_clean.docx)": the example
        // shows the new name; it names no file.
        if let Some(example) = EXAMPLE
            .find(text)
            .or_else(|| EXAMPLE_CHANGE.find(text))
            .map(|m| m.range())
        {
            text.replace_range(example, " ");
        }
    } else if let Some(place) = DATE_PLACE.captures(text).map(|c| c[1].to_lowercase()) {
        let date = if taken {
            "{exif.date:%Y-%m-%d}"
        } else {
            "{date:%Y-%m-%d}"
        };
        r.pattern = Some(
            if place == "after" || place == "behind" || place.ends_with("end of") {
                format!("{{name}}_{date}.{{ext}}")
            } else {
                format!("{date}_{{name}}.{{ext}}")
            },
        );
    } else {
        let l = text.to_lowercase();
        let adds = ["add", "prefix", "prepend", "in front"]
            .iter()
            .any(|w| l.contains(w));
        let says_date = l.split(|c: char| !c.is_alphanumeric()).any(|w| w == "date");
        r.pattern = match (taken, adds) {
            // "add the date taken to the names": the photo's date before its name.
            (true, true) => Some("{exif.date:%Y-%m-%d}_{name}.{ext}".into()),
            // "rename the photos by the date they were taken": the date and time are the name.
            (true, false) => Some("{exif.date:%Y-%m-%d_%H%M%S}".into()),
            (false, true) if says_date => Some("{date:%Y-%m-%d}_{name}.{ext}".into()),
            _ => None,
        };
    }
    r
}

/// `text` as a pattern matching it literally: what the regex syntax means is escaped, and only
/// that ("-" stays "-", as the person wrote it).
fn literal_pattern(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A character named in words ("spaces") or the text itself.
fn character(word: &str) -> String {
    let w = word.to_lowercase();
    let plural_of = |name: &str| w == name || w == format!("{name}s") || w == format!("{name}es");
    CHARACTER_NAMES
        .iter()
        .find(|(name, _)| plural_of(name))
        .map_or_else(|| word.to_owned(), |(_, c)| (*c).to_owned())
}

fn replacement(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
    says_names: bool,
) -> Option<(String, String, Range<usize>, Option<String>)> {
    if let Some(c) = WISHED_NAMES.captures(text).filter(|_| says_names) {
        let read = |m: regex::Match| lookup(m.as_str()).unwrap_or_else(|| unquote(m.as_str()));
        let range = c.get(0)?.range();
        let (from, to) = match (
            c.get(1).or(c.get(3)).or(c.get(6)),
            c.get(2).or(c.get(4)).or(c.get(7)),
            c.get(5),
        ) {
            (Some(f), Some(t), _) => (read(f), character(&read(t))),
            (_, _, Some(f)) => (read(f), String::new()),
            _ => return None,
        };
        let to = to.trim_end_matches(" instead").to_owned();
        if !from.is_empty() && !NOT_NAME_TEXT.contains(&from.to_lowercase().as_str()) {
            return Some((character(&from), to, range, None));
        }
    }
    let Some(c) = REPLACE
        .captures(text)
        .or_else(|| REPLACED_WITH_BEFORE.captures(text))
        .or_else(|| CHANGE.captures(text).filter(|_| says_names))
        .or_else(|| BECOME.captures(text).filter(|_| says_names))
    else {
        // Text taken out is replaced by nothing.
        let c = STRIP.captures(text).filter(|_| says_names)?;
        let raw = c.get(1).or(c.get(2))?.as_str();
        let from = lookup(raw).unwrap_or_else(|| unquote(raw));
        let range = c.get(0)?.range();
        return (!from.is_empty()).then_some((from, String::new(), range, None));
    };
    // BECOME's first form says where the names are (group 2); its second form has its own
    // groups (4, 5).
    let becomes = BECOME.captures(text).is_some_and(|b| b.get(0) == c.get(0));
    let (i, j) = match (becomes, c.get(1).is_some()) {
        (true, true) => (1, 3),
        (true, false) => (4, 5),
        (false, _) => (1, 2),
    };
    // "turn %20 in Wallpapers/4K file names into real spaces": the place stays said.
    let place = becomes
        .then(|| c.get(2))
        .flatten()
        .map(|m| m.as_str().to_owned());
    let read = |i: usize| {
        let raw = c.get(i).map_or("", |m| m.as_str());
        lookup(raw).unwrap_or_else(|| unquote(raw))
    };
    let (mut from, to) = (read(i), read(j));
    // "all start with 'lichess_pgn_' … swap that for 'autumn26_'": "that" is the text quoted
    // before.
    let before = &text[..c.get(0)?.start()];
    if matches!(from.to_lowercase().as_str(), "that" | "it" | "this")
        && let Some((_, after)) = before.rsplit_once('⟦')
        && let Some((n, _)) = after.split_once('⟧')
        && let Some(quoted) = lookup(&format!("⟦{n}⟧"))
    {
        from = quoted;
    }
    if NOT_NAME_TEXT.contains(&from.to_lowercase().as_str()) || from.contains('/') {
        return None;
    }
    let (to, range) = words_of_the_new_text(text, c.get(j), to, c.get(0)?.range());
    Some((character(&from), character(&to), range, place))
}

/// "swap Voice for Jiwoo chat in each name": an unquoted new text goes on with one more word
/// when "in each/every/all/the …" follows it.
fn words_of_the_new_text(
    text: &str,
    new: Option<regex::Match>,
    to: String,
    range: Range<usize>,
) -> (String, Range<usize>) {
    let unquoted = new.is_some_and(|m| !m.as_str().starts_with(['"', '\'', '⟦', '‘', '“']));
    let rest = &text[range.end..];
    let words: Vec<&str> = rest.split_whitespace().take(3).collect();
    match words[..] {
        [word, "in", det, ..]
            if unquoted
                && word.chars().all(char::is_alphanumeric)
                && ["each", "every", "all", "the"].contains(&det) =>
        {
            let end = range.end + rest.find(word).unwrap_or(0) + word.len();
            (format!("{to} {word}"), range.start..end)
        }
        _ => (to, range),
    }
}

/// Two consecutive example names ("beach_001.jpg, beach_002.jpg"), or one zero-padded one and
/// "and so on": the numbering they follow, its first number and where they are in `text`.
fn numbered_example(text: &str) -> Option<(String, Option<u64>, Range<usize>)> {
    // "are called DSC01877.jpg, DSC01878.jpg and so on; I'd like pot_001.jpg, pot_002.jpg":
    // the names as they are come first, the ones wished for last.
    let mut numberings = Vec::new();
    for c in EXAMPLE_NAMES.captures_iter(text) {
        let (p1, n1, e1) = (&c[1], &c[2], c.get(3).map_or("", |m| m.as_str()));
        let (p2, n2, e2) = (&c[4], &c[5], c.get(6).map_or("", |m| m.as_str()));
        let (Ok(a), Ok(b)) = (n1.parse::<u64>(), n2.parse::<u64>()) else {
            continue;
        };
        if p1 != p2 || !e1.eq_ignore_ascii_case(e2) || b != a + 1 {
            continue;
        }
        let number = if n1.starts_with('0') && n1.len() == n2.len() {
            format!("{{n:0{}}}", n1.len())
        } else {
            "{n}".to_owned()
        };
        let ext = if e1.is_empty() { "" } else { ".{ext}" };
        numberings.push((format!("{p1}{number}{ext}"), Some(a), c.get(0)?.range()));
    }
    if let Some(last) = numberings.pop() {
        return Some(last);
    }
    let c = ONE_EXAMPLE_NAME.captures(text)?;
    let digits = &c[2];
    let start = digits.parse::<u64>().ok()?;
    let ext = if c.get(3).is_some() { ".{ext}" } else { "" };
    Some((
        format!("{}{{n:0{}}}{ext}", &c[1], digits.len()),
        Some(start),
        c.get(0)?.range(),
    ))
}

/// An example name with a date in it ("like 2024-05-01_scan.pdf"): the date becomes the file's
/// date in the same layout (the photo's own date when `taken`), the word beside it the name.
fn dated_example(text: &str, taken: bool) -> Option<(String, Option<u64>, Range<usize>)> {
    let c = EXAMPLE.captures(text)?;
    let example = c.get(1)?.as_str();
    let (stem, _) = example.rsplit_once('.')?;
    let date = DATE_IN_NAME.find(stem)?;
    let format = strftime_of(date.as_str())?;
    let placeholder = if taken {
        format!("{{exif.date:{format}}}")
    } else {
        format!("{{date:{format}}}")
    };
    let (before, after) = (&stem[..date.start()], &stem[date.end()..]);
    // The word beside the date is the file's own name; its separator stays.
    let name_part = |part: &str, name_first: bool| -> String {
        let word = part.trim_matches(|c: char| !c.is_alphanumeric());
        if word.is_empty() {
            return part.to_owned();
        }
        let sep: String = if name_first {
            part[part.trim_end_matches(|c: char| !c.is_alphanumeric()).len()..].to_owned()
        } else {
            part[..part.len()
                - part
                    .trim_start_matches(|c: char| !c.is_alphanumeric())
                    .len()]
                .to_owned()
        };
        if name_first {
            format!("{{name}}{sep}")
        } else {
            format!("{sep}{{name}}")
        }
    };
    let pattern = format!(
        "{}{placeholder}{}.{{ext}}",
        name_part(before, true),
        name_part(after, false)
    );
    Some((pattern, None, c.get(0)?.range()))
}

/// The strftime layout of a written date: "2024-05-01" → `%Y-%m-%d`, "20230814_174210" →
/// `%Y%m%d_%H%M%S`.
fn strftime_of(date: &str) -> Option<String> {
    const FIELDS: [&str; 6] = ["%Y", "%m", "%d", "%H", "%M", "%S"];
    let mut out = String::new();
    let mut field = 0;
    let mut digits = 0;
    for ch in date.chars() {
        if ch.is_ascii_digit() {
            digits += 1;
            let width = if field == 0 { 4 } else { 2 };
            if digits == width {
                out.push_str(FIELDS.get(field)?);
                field += 1;
                digits = 0;
            }
        } else {
            if digits != 0 {
                return None;
            }
            out.push(ch);
        }
    }
    (digits == 0 && field >= 3).then_some(out)
}

/// Text put in front of or after every name: "prefix … with inv-" → `inv-{name}.{ext}`, "add
/// _final to the end of" → `{name}_final.{ext}`.
fn affix(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Option<(String, Range<usize>)> {
    let read = |raw: &str| lookup(raw).unwrap_or_else(|| unquote(raw));
    if let Some(c) = AFFIX_WITH.captures(text) {
        let affix = read(c.get(2)?.as_str());
        let pattern = if c[1].eq_ignore_ascii_case("prefix") {
            format!("{affix}{{name}}.{{ext}}")
        } else {
            format!("{{name}}{affix}.{{ext}}")
        };
        return Some((pattern, c.get(0)?.range()));
    }
    if let Some(c) = AFFIX_NAMED.captures(text) {
        let raw = c.get(2)?.as_str();
        let affix = read(raw);
        if lookup(raw).is_some()
            || affix.starts_with(['-', '_', '.'])
            || affix.ends_with(['-', '_', '.'])
        {
            let pattern = if c[1].eq_ignore_ascii_case("prefix") {
                format!("{affix}{{name}}.{{ext}}")
            } else {
                format!("{{name}}{affix}.{{ext}}")
            };
            return Some((pattern, c.get(0)?.range()));
        }
    }
    if let Some(c) = AFFIX_SAID.captures(text) {
        let raw = c.get(2)?.as_str();
        let affix = read(raw);
        let literal = lookup(raw).is_some()
            || affix.starts_with(['-', '_', '.'])
            || affix.ends_with(['-', '_', '.']);
        if literal {
            let pattern = if c[1].to_lowercase().starts_with("end") {
                format!("{{name}}{affix}.{{ext}}")
            } else {
                format!("{affix}{{name}}.{{ext}}")
            };
            return Some((pattern, c.get(0)?.range()));
        }
    }
    if let Some(c) = AFFIX_PUT_ON.captures(text) {
        let raw = c.get(1)?.as_str();
        let affix = read(raw);
        if lookup(raw).is_some()
            || affix.starts_with(['-', '_', '.'])
            || affix.ends_with(['-', '_', '.'])
        {
            let place = c.get(2).or(c.get(3))?.as_str().to_lowercase();
            let pattern = if matches!(place.as_str(), "end" | "after" | "behind") {
                format!("{{name}}{affix}.{{ext}}")
            } else {
                format!("{affix}{{name}}.{{ext}}")
            };
            return Some((pattern, c.get(0)?.range()));
        }
    }
    let c = AFFIX_ADD.captures(text)?;
    let raw = c.get(1)?.as_str();
    let affix = read(raw);
    // Only literal text: an affix has a separator or was quoted ("inv-", "_final", "'draft '").
    let literal = lookup(raw).is_some()
        || affix.starts_with(['-', '_', '.'])
        || affix.ends_with(['-', '_', '.']);
    if !literal {
        return None;
    }
    let verb = c.get(0)?.as_str().split_whitespace().next()?.to_lowercase();
    let place = c
        .get(2)
        .or(c.get(3))
        .or(c.get(4))
        .map(|m| m.as_str().to_lowercase())
        .unwrap_or_default();
    // "put 'x.docx'" alone says nothing about names: a place, or a verb that is about them.
    let about_names = !place.is_empty()
        || verb == "prepend"
        || verb == "append"
        || matches!(verb.as_str(), "add" | "tack") && lookup(raw).is_none();
    if !about_names {
        return None;
    }
    let at_end = match place.as_str() {
        "end" | "after" | "behind" | "suffix" => true,
        "start" | "beginning" | "front" | "in front of" | "before" | "prefix" => false,
        _ => verb == "append" || affix.starts_with(['-', '_', '.']),
    };
    let pattern = if at_end {
        format!("{{name}}{affix}.{{ext}}")
    } else {
        format!("{affix}{{name}}.{{ext}}")
    };
    Some((pattern, c.get(0)?.range()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_from(text: &str) -> Renaming {
        read(&mut text.to_owned(), &|_| None)
    }

    fn pattern(text: &str) -> Option<String> {
        read_from(text).pattern
    }

    #[test]
    fn an_example_name_shows_where_the_date_goes_and_its_layout() {
        for (text, want) in [
            (
                "add the date in front of every file name in Scans/2024, like 2024-05-01_scan.pdf",
                "{date:%Y-%m-%d}_{name}.{ext}",
            ),
            (
                "stick the last-changed date after each name in Reports, like summary_2024-05-01.docx",
                "{name}_{date:%Y-%m-%d}.{ext}",
            ),
            (
                "rename the photos in Camera/DCIM by the date they were taken, like 20230814_174210.jpg",
                "{exif.date:%Y%m%d_%H%M%S}.{ext}",
            ),
            (
                "name every photo after the moment it was taken, e.g. 2026-10-30 18.42.jpg",
                "{exif.date:%Y-%m-%d %H.%M}.{ext}",
            ),
            // No example: "the date in their names" goes in front.
            (
                "could the pictures from Pictures/Crete 2024 carry the shooting date in their file names?",
                "{exif.date:%Y-%m-%d}_{name}.{ext}",
            ),
            (
                "put each scan's date in its file name in Documents/Receipts scans",
                "{date:%Y-%m-%d}_{name}.{ext}",
            ),
            (
                "number them like beach_001.jpg, beach_002.jpg",
                "beach_{n:03}.{ext}",
            ),
            (
                "number the jpgs in Etsy Shop as candle_001.jpg onward",
                "candle_{n:03}.{ext}",
            ),
            (
                "after that number them holiday19_001 and up",
                "holiday19_{n:03}",
            ),
        ] {
            assert_eq!(pattern(text).as_deref(), Some(want), "{text}");
        }
    }

    #[test]
    fn text_put_in_front_of_or_after_every_name() {
        for (text, want) in [
            (
                "prefix all the files in Invoices/2024 with inv-",
                Some("inv-{name}.{ext}"),
            ),
            (
                "add _final to the end of every file name in Thesis/Chapters",
                Some("{name}_final.{ext}"),
            ),
            (
                "put draft- in front of every name in Notes",
                Some("draft-{name}.{ext}"),
            ),
            (
                "put the date in front of their names",
                Some("{date:%Y-%m-%d}_{name}.{ext}"),
            ),
            (
                "yo slap WIP_ on the front of every file name in Comics/Issue 6/Pencils",
                Some("WIP_{name}.{ext}"),
            ),
            (
                "stick a final_ prefix on the renders in Renders/Client Cut",
                Some("final_{name}.{ext}"),
            ),
            (
                "give each picture in Pictures/Screenshots/Minecraft the prefix mc_ before its current name",
                Some("mc_{name}.{ext}"),
            ),
            // Not an affix: a word with no separator is what is added, not text.
            ("add the files in Temp to Archive", None),
            ("where did I put _old", None),
        ] {
            assert_eq!(pattern(text).as_deref(), want, "{text}");
        }
    }

    #[test]
    fn text_replaced_inside_names() {
        for (text, find, replace) in [
            (
                "swap spaces for underscores in every file name in Receipts",
                " ",
                "_",
            ),
            (
                "replace in all file names in Dokumente/Scans the spaces with dashes",
                " ",
                "-",
            ),
            // "the 'Activity_' bit", and the verb after what replaces it (m011, m103).
            (
                "in Cycling/GPX replace the 'Activity_' bit with 'ride-'",
                "Activity_",
                "ride-",
            ),
            (
                "in Fahrrad/Touren should in all file names 'Aktivität' with 'Tour' replace be",
                "Aktivität",
                "Tour",
            ),
            (
                "in Work/Reports, swap every space in the file names for a dash",
                " ",
                "-",
            ),
            (
                "blanks in names choke it, so in Embroidery/Designs/Roses turn each space into a hyphen",
                " ",
                "-",
            ),
            (
                "Music/Band rehearsals: change every space in the names to an underscore",
                " ",
                "_",
            ),
            (
                "change IMG_ to Rome_ in the file names in Pictures/Rome",
                "IMG_",
                "Rome_",
            ),
            (
                "Comics/CBZ names look like saga_vol_01.cbz — swap every underscore out for a blank space",
                "_",
                " ",
            ),
            (
                "Wallpapers/4K file names are full of %20 — turn those into real spaces",
                "%20",
                " ",
            ),
            (
                "in Ebooks, underscores in file names should become spaces",
                "_",
                " ",
            ),
            (
                "strip 'Copy of ' from the names in Drive/Shared Docs",
                "Copy of ",
                "",
            ),
            (
                "in Scans please everywhere 'scan_' from the file names remove",
                "scan_",
                "",
            ),
            (
                "the file names in Podcasts have dashes everywhere, I'd rather have spaces",
                "-",
                " ",
            ),
            (
                "swap the dots for underscores in the file names in Scans",
                ".",
                "_",
            ),
            (
                "in Pictures/Porto the photo names start with DSC; make that Porto instead",
                "DSC",
                "Porto",
            ),
            (
                "Drive/Shared Docs names all start with 'Copy of ', strip that bit off",
                "Copy of ",
                "",
            ),
        ] {
            let r = read_from(text);
            assert_eq!(
                r.find.as_deref(),
                Some(literal_pattern(find).as_str()),
                "{text}"
            );
            // What the engine compiles matches the text, and only it.
            let re = Regex::new(r.find.as_deref().unwrap()).unwrap();
            assert_eq!(
                re.find(&format!("a{find}b")).map(|m| m.as_str()),
                Some(find)
            );
            assert_eq!(r.replace.as_deref(), Some(replace), "{text}");
        }
        // "Them" is not text in a name, and a change without names is not a replacement.
        assert_eq!(
            read_from("find duplicate photos, then replace them with hardlinks").find,
            None
        );
        assert_eq!(
            read_from("change the extension of the files to .jpg").find,
            None
        );
        // Regression: "already taken" is a name in use, not the date a photo was taken.
        assert_eq!(
            pattern("extract x.zip into Pictures, and if a name is already taken keep both"),
            None
        );
    }
}
