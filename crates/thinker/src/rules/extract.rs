//! Parameter extraction for the rule planner: paths, targets, extensions, globs, sizes, dates, keep
//! policies, exclusions, archive formats, rename patterns and more, read from one clause. Pure.

mod categories;
mod lexicon;
mod tags;

use lexicon::*;

/// Everything the rule planner could read out of one clause.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Slots {
    /// Locations: "in Downloads", "from ~/Desktop", quoted names, `a/b` paths.
    pub locations: Vec<String>,
    /// Objects named directly after the verb: "delete old.log", "rename 'Q1 report.pdf' to ...".
    pub objects: Vec<String>,
    /// Destinations: "to Archive", "into Documents/PDFs".
    pub targets: Vec<String>,
    /// "called X", "named X".
    pub name: Option<String>,
    pub extensions: Vec<String>,
    pub glob: Option<String>,
    pub min_size: Option<String>,
    pub max_size: Option<String>,
    pub modified_after: Option<String>,
    pub modified_before: Option<String>,
    pub keep: Option<String>,
    pub exclude: Vec<String>,
    pub format: Option<String>,
    /// How hard to compress: `max`, `fast` or `none` (archive `level`).
    pub compression: Option<&'static str>,
    pub pattern: Option<String>,
    pub find: Option<String>,
    pub replace: Option<String>,
    pub case: Option<String>,
    pub recursive: Option<bool>,
    pub empty: bool,
    /// `file` or `dir` when the clause is about one kind only.
    pub kind: Option<String>,
    pub limit: Option<u64>,
    /// The first number of a numbering given by example ("report_5.pdf, report_6.pdf").
    pub start: Option<u64>,
    /// "the first 8 KB": read at most this many bytes of a file.
    pub max_bytes: Option<u64>,
    /// What a content or skill search is about.
    pub query: Option<String>,
    /// Text content for a new file.
    pub content: Option<String>,
    /// The clause points back at an earlier selection ("them", "those files", "the results").
    pub refers_back: bool,
    /// "…and delete the originals" after archiving.
    pub delete_originals: bool,
    /// The clause names the whole working folder ("everything", "this folder", the root's name).
    pub whole_root: bool,
    /// "there": the place an earlier step moved things to.
    pub there: bool,
    /// The person's own categories: "into Invoices, Recipes and Meeting notes" (two or more).
    pub categories: Vec<String>,
    /// Tags to give: "tag … with Taxes 2024", "label … as paid".
    pub tags: Vec<String>,
}

/// Words a filter slot accounts for: extension and kind words, size and date words, numbers and
/// the comparisons around them. What is left of a clause after them (and the verbs) is a topic.
pub fn filter_word(word: &str) -> bool {
    const FILTER: &[&str] = &[
        "over",
        "above",
        "under",
        "below",
        "larger",
        "bigger",
        "smaller",
        "than",
        "least",
        "most",
        "more",
        "less",
        "at",
        "kb",
        "mb",
        "gb",
        "tb",
        "bytes",
        "big",
        "large",
        "huge",
        "small",
        "tiny",
        "empty",
        "zero-byte",
        "last",
        "past",
        "since",
        "before",
        "after",
        "older",
        "newer",
        "changed",
        "modified",
        "edited",
        "recent",
        "recently",
        "old",
        "day",
        "days",
        "week",
        "weeks",
        "month",
        "months",
        "year",
        "years",
        "today",
        "yesterday",
        "ago",
        "folders",
        "folder",
        "directories",
        "type",
        "kind",
    ];
    let w = word.to_lowercase();
    let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-');
    let singular = w.strip_suffix('s').unwrap_or(w);
    FILTER.contains(&w)
        || w.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
        || known_extension(w)
        || known_extension(singular)
        || CATEGORY_WORDS.iter().any(|(k, _)| *k == w)
        || KIND_WORDS.iter().any(|(k, _, _)| *k == w)
        || FILE_NOUNS.contains(&w)
}

impl Slots {
    /// Any filter that selects a subset of files (what makes a `find` step worth inserting).
    pub fn has_filter(&self) -> bool {
        !self.extensions.is_empty()
            || self.glob.is_some()
            || self.min_size.is_some()
            || self.max_size.is_some()
            || self.modified_after.is_some()
            || self.modified_before.is_some()
            || self.empty
            || self.name.is_some()
    }

    /// The first location or object: the folder the clause is about.
    pub fn place(&self) -> Option<&str> {
        self.locations
            .first()
            .or(self.objects.first())
            .map(String::as_str)
    }
}

/// What the planner knows about the working folder, to tell folder names from ordinary words.
#[derive(Debug, Clone, Default)]
pub struct Grounding {
    /// The root folder's own name ("Downloads").
    pub root_name: Option<String>,
    /// Relative paths of entries under the root (folders and files, a few levels deep).
    pub entries: Vec<String>,
}

impl Grounding {
    /// The entry whose name or path equals `word` (case-insensitive).
    pub(super) fn entry(&self, word: &str) -> Option<&str> {
        let w = word.to_lowercase();
        self.entries
            .iter()
            .find(|e| {
                e.to_lowercase() == w || e.rsplit('/').next().is_some_and(|n| n.to_lowercase() == w)
            })
            .map(String::as_str)
    }

    fn is_root(&self, word: &str) -> bool {
        self.root_name
            .as_deref()
            .is_some_and(|r| r.eq_ignore_ascii_case(word))
            && self.entry(word).is_none()
    }
}

/// Removes the matched span from `text` (so later extractors do not read it twice).
fn cut(text: &mut String, range: std::ops::Range<usize>) {
    text.replace_range(range, " ");
}

/// Two consecutive example names ("beach_001.jpg, beach_002.jpg"): the pattern they follow,
/// the first number, and where they are in `text`.
fn example_pattern(text: &str) -> Option<(String, u64, std::ops::Range<usize>)> {
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
        let whole = c.get(0).expect("match").range();
        return Some((format!("{p1}{number}{ext}"), a, whole));
    }
    // One zero-padded example, then "and so on": its digits give the width and the start.
    let c = ONE_EXAMPLE_NAME.captures(text)?;
    let digits = &c[2];
    let start = digits.parse::<u64>().ok()?;
    let ext = if c.get(3).is_some() { ".{ext}" } else { "" };
    let whole = c.get(0).expect("match").range();
    Some((
        format!("{}{{n:0{}}}{ext}", &c[1], digits.len()),
        start,
        whole,
    ))
}

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
    let named_folder =
        w.starts_with(|c: char| c.is_uppercase()) && COMMON_FOLDERS.contains(&lower.as_str());
    if NOT_A_PLACE.contains(&lower.as_str()) && !named_folder
        || matches!(
            next.as_deref(),
            Some("names" | "name" | "names," | "filenames")
        )
    {
        return None;
    }
    if let Some(fixed) = super::normalize::correct_folder(&lower, COMMON_FOLDERS)
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
    if COMMON_FOLDERS.contains(&lower.as_str()) || next_is_folder {
        // "Photos 2023": a capitalised word followed by a year is one name.
        if let Some(year) = words
            .get(i + 1)
            .filter(|y| y.len() == 4 && y.chars().all(|c| c.is_ascii_digit()) && !next_is_folder)
        {
            return Some((format!("{w} {year}"), i + 2));
        }
        return Some((w.to_owned(), used));
    }
    let has_ext = w
        .rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && known_extension(&ext.to_lowercase()));
    if has_ext {
        return Some((w.to_owned(), used));
    }
    let capitalised = w.chars().next().is_some_and(char::is_uppercase)
        && w.chars().skip(1).any(char::is_lowercase)
        && i > 0;
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
                let capital = word.chars().next().is_some_and(char::is_uppercase)
                    && word.chars().skip(1).all(char::is_lowercase)
                    && word.len() > 1;
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
    if w.chars().any(|c| c == '_' || c == '-') && w.len() > 2 {
        return Some((w.to_owned(), used));
    }
    None
}

const LOCATION_PREPS: &[&str] = &[
    "in",
    "inside",
    "within",
    "from",
    "under",
    "of",
    "at",
    "across",
    "throughout",
    "on",
];
const TARGET_PREPS: &[&str] = &["to", "into", "onto", "towards"];

/// Reads every slot of one clause.
pub fn extract(clause: &str, g: &Grounding) -> Slots {
    let mut s = Slots::default();
    // "hasn't been touched" reads as "has not been touched".
    let mut text = clause.replace("n't ", " not ").replace("n’t ", " not ");

    // Quoted strings are names or paths, taken verbatim; replaced by placeholders so their words
    // are not read as anything else.
    let mut quoted: Vec<String> = Vec::new();
    while let Some(m) = QUOTED.find(&text) {
        let inner = unquote(m.as_str());
        let range = m.range();
        quoted.push(inner);
        text.replace_range(range, &format!("⟦{}⟧", quoted.len() - 1));
    }
    let lookup = |w: &str| quoted_at(&quoted, w);

    // "into Invoices, Recipes and Meeting notes": a list of names closing the clause is a set of
    // categories (one name after "into" stays a target).
    if let Some((names, r)) = categories::category_list(&text, &lookup) {
        s.categories = names;
        cut(&mut text, r);
    }
    if let Some((tags, r)) = tags::tag_list(&text, &lookup) {
        s.tags = tags;
        cut(&mut text, r);
    }
    if let Some(c) = CONTENT.captures(&text) {
        let raw = c.get(1).map_or("", |m| m.as_str());
        s.content = Some(lookup(raw).unwrap_or_else(|| unquote(raw)));
        let r = c.get(0).expect("match").range();
        cut(&mut text, r);
    }
    if let Some(c) = REPLACE.captures(&text) {
        let read = |m: Option<regex::Match>| {
            let raw = m.map_or("", |m| m.as_str());
            lookup(raw).unwrap_or_else(|| unquote(raw))
        };
        let (from, to) = (read(c.get(1)), read(c.get(2)));
        let word_char = |w: &str| -> Option<&'static str> {
            Some(match w.to_lowercase().trim_end_matches('s') {
                "space" => " ",
                "underscore" => "_",
                "dash" | "hyphen" => "-",
                "dot" | "period" => ".",
                "nothing" => "",
                _ => return None,
            })
        };
        let find = word_char(&from).map_or(from.clone(), str::to_owned);
        let replace = word_char(&to).map_or(to.clone(), str::to_owned);
        s.find = Some(regex::escape(&find));
        s.replace = Some(replace);
        let r = c.get(0).expect("match").range();
        cut(&mut text, r);
    }
    // A numbering given by example: "beach_001.jpg, beach_002.jpg, ..." is `beach_{n:03}.{ext}`.
    if let Some((pattern, start, r)) = example_pattern(&text) {
        s.pattern = Some(pattern);
        s.start = (start != 1).then_some(start);
        cut(&mut text, r);
    }
    if s.pattern.is_none()
        && let Some(m) = PATTERN.find(&text)
    {
        s.pattern = Some(m.as_str().trim_end_matches([',', ';']).to_owned());
        let r = m.range();
        cut(&mut text, r);
    }
    protect_paths(&mut text, &mut quoted);
    let lookup = |w: &str| quoted_at(&quoted, w);
    let lower_text = text.to_lowercase();
    if s.pattern.is_none() {
        let adds = ["add", "prefix", "prepend", "in front"]
            .iter()
            .any(|w| lower_text.contains(w));
        // "the date they were taken", "date shot", "EXIF date": the photo's own date.
        let taken = lower_text.contains("exif")
            || lower_text.contains("date")
                && ["taken", "shot", "captured", "capture date"]
                    .iter()
                    .any(|w| lower_text.contains(w));
        if taken && adds {
            s.pattern = Some("{exif.date:%Y-%m-%d} {name}".into());
        } else if taken {
            s.pattern = Some("{exif.date:%Y-%m-%d_%H%M%S}".into());
        } else if lower_text.contains("date") && adds {
            s.pattern = Some("{date:%Y-%m-%d} {name}".into());
        } else if lower_text.contains("number") && !lower_text.contains("numbers") {
            s.pattern = Some("{name}_{n:03}".into());
        }
    }
    for (words, case) in [
        (
            &["lowercase", "lower case", "lower-case", "small letters"][..],
            "lower",
        ),
        (
            &[
                "uppercase",
                "upper case",
                "upper-case",
                "capital letters",
                "all caps",
            ],
            "upper",
        ),
        (
            &["title case", "title-case", "capitalize", "capitalise"],
            "title",
        ),
    ] {
        if words.iter().any(|w| lower_text.contains(w)) {
            s.case = Some(case.into());
        }
    }

    while let Some(c) = EXCLUDE.captures(&text) {
        let list = c.get(1).map_or("", |m| m.as_str());
        for part in list.split([',']).flat_map(|p| p.split(" and ")) {
            let p = part.trim();
            if p.is_empty() {
                continue;
            }
            let value = lookup(p).unwrap_or_else(|| unquote(p));
            let lower = value.to_lowercase();
            if DETERMINERS.contains(&lower.as_str()) || NOT_A_PLACE.contains(&lower.as_str()) {
                continue;
            }
            s.exclude.push(g.entry(&value).map_or(value, str::to_owned));
        }
        let r = c.get(0).expect("match").range();
        cut(&mut text, r);
    }

    if let Some(c) = READ_LIMIT
        .captures(&text)
        .or_else(|| READ_LIMIT_OF_IT.captures(&text))
    {
        let n: f64 = c[1].replace(',', ".").parse().unwrap_or(0.0);
        let unit = match c[2].to_lowercase().as_str() {
            "kib" | "kb" | "k" => 1024.0,
            "mib" | "mb" | "m" => 1024.0 * 1024.0,
            _ => 1.0,
        };
        if n > 0.0 {
            s.max_bytes = Some((n * unit).round() as u64);
            let r = c.get(0).expect("match").range();
            cut(&mut text, r);
        }
    }
    while let Some(c) = SIZE.captures(&text) {
        let op = c[1].to_lowercase();
        let value = format!("{}{}", c[2].replace(',', "."), c[3].to_uppercase());
        let value = match value
            .strip_suffix('K')
            .or(value.strip_suffix('M'))
            .or(value.strip_suffix('G'))
        {
            Some(_) => format!("{value}B"),
            None => value,
        };
        let is_min = !matches!(
            op.as_str(),
            "smaller" | "less" | "under" | "below" | "at most" | "lighter" | "up to" | "<" | "<="
        );
        if is_min {
            s.min_size = Some(value);
        } else {
            s.max_size = Some(value);
        }
        let r = c.get(0).expect("match").range();
        cut(&mut text, r);
    }
    if let Some(c) = SIZE_PLUS.captures(&text) {
        s.min_size = Some(format!("{}{}", &c[1], c[2].to_uppercase()));
        let r = c.get(0).expect("match").range();
        cut(&mut text, r);
    }

    while let Some(c) = ISO_DATE.captures(&text) {
        let date = c[2].to_owned();
        match c[1].to_lowercase().as_str() {
            "before" | "until" | "till" | "older than" => s.modified_before = Some(date),
            _ => s.modified_after = Some(date),
        }
        let r = c.get(0).expect("match").range();
        cut(&mut text, r);
    }
    while let Some(c) = AGE.captures(&text) {
        let op = c[1].to_lowercase();
        let n = number_word(c.get(2).map_or("", |m| m.as_str())).unwrap_or(1);
        let value = age(n, &c[3]);
        let older = op.starts_with("older")
            || op.starts_with("not ")
            || op.starts_with("never ")
            || op.starts_with("untouched")
            || (op == "more than" || op == "over") && c.get(4).is_some();
        if older || (op == "more than" || op == "over") {
            s.modified_before = Some(value);
        } else {
            s.modified_after = Some(value);
        }
        let r = c.get(0).expect("match").range();
        cut(&mut text, r);
    }
    if let Some(c) = RELATIVE_DAY.captures(&text) {
        let v = match c[1].to_lowercase().as_str() {
            "today" => "1days",
            "yesterday" => "2days",
            "this week" | "last week" | "recently" | "recent" | "lately" | "new files"
            | "latest files" => "7days",
            "this month" | "last month" => "30days",
            _ => "365days",
        };
        if s.modified_after.is_none() {
            s.modified_after = Some(v.into());
        }
        let r = c.get(0).expect("match").range();
        cut(&mut text, r);
    }
    if let Some(c) = NOT_SINCE_YEAR.captures(&text) {
        s.modified_before = Some(format!("{}-01-01", &c[1]));
        let r = c.get(0).expect("match").range();
        cut(&mut text, r);
    }
    if s.modified_after.is_none()
        && s.modified_before.is_none()
        && let Some(c) = YEAR.captures(&text)
    {
        let y: u32 = c[1].parse().unwrap_or(2000);
        s.modified_after = Some(format!("{y}-01-01"));
        s.modified_before = Some(format!("{}-01-01", y + 1));
        let r = c.get(0).expect("match").range();
        cut(&mut text, r);
    }

    let lower_text = text.to_lowercase();
    if (lower_text.contains("keep")
        || lower_text.contains("keeping")
        || lower_text.contains("preserv")
        || lower_text.contains("leave the"))
        && let Some(c) = KEEP.captures(&text)
    {
        s.keep = Some(
            match c[1].to_lowercase().as_str() {
                "newest" | "latest" | "most recent" | "newer" | "youngest" => "newest",
                "shortest" | "shortest path" | "first" => "shortest_path",
                _ => "oldest",
            }
            .into(),
        );
    }

    let lower_text = text.to_lowercase();
    // The format may be in the name of the archive to make ("into Archive/old.tar.gz").
    let with_names = std::iter::once(text.as_str())
        .chain(quoted.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    for (word, fmt) in [
        ("tar.zst", "tar.zst"),
        ("zstd", "tar.zst"),
        ("zst", "tar.zst"),
        ("tar.gz", "tar.gz"),
        ("tarball", "tar.gz"),
        ("tgz", "tar.gz"),
        (".tar", "tar.gz"),
        (" tar ", "tar.gz"),
        ("zip", "zip"),
    ] {
        if with_names.contains(word) || with_names.ends_with(word.trim()) && word.starts_with(' ') {
            s.format = Some(fmt.into());
            break;
        }
    }
    if DELETE_ORIGINALS.is_match(&lower_text) {
        s.delete_originals = true;
    }
    // "with maximum compression", "as small as possible", "fast", "without compression".
    let said = |ws: &[&str]| ws.iter().any(|w| lower_text.contains(w));
    if said(&[
        "max compression",
        "maximum compression",
        "best compression",
        "highest compression",
        "strongest compression",
        "as small as possible",
        "smallest",
    ]) {
        s.compression = Some("max");
    } else if said(&[
        "no compression",
        "without compression",
        "uncompressed",
        "store only",
    ]) {
        s.compression = Some("none");
    } else if said(&[
        "fastest",
        "fast compression",
        "quick compression",
        "compress quickly",
    ]) {
        s.compression = Some("fast");
    }

    if let Some(c) = CALLED.captures(&text) {
        let raw = c.get(1).map_or("", |m| m.as_str());
        s.name = Some(lookup(raw).unwrap_or_else(|| unquote(raw)));
        let r = c.get(0).expect("match").range();
        cut(&mut text, r);
    }

    if let Some(c) = GLOB.captures(&text) {
        let glob = c[1].trim_end_matches(',').to_owned();
        if let Some(ext) = glob
            .strip_prefix("*.")
            .filter(|e| e.chars().all(char::is_alphanumeric))
        {
            s.extensions.push(ext.to_lowercase());
        } else {
            s.glob = Some(glob);
        }
        let r = c.get(1).expect("match").range();
        cut(&mut text, r);
    }
    for c in DOT_EXT.captures_iter(&text) {
        let e = c[1].to_lowercase();
        if known_extension(&e) && !s.extensions.contains(&e) {
            s.extensions.push(e);
        }
    }

    let lower_text = text.to_lowercase();
    s.refers_back = REFERS_BACK.is_match(&lower_text);
    if RECURSIVE_OFF.is_match(&lower_text) {
        s.recursive = Some(false);
    } else if RECURSIVE_ON.is_match(&lower_text) {
        s.recursive = Some(true);
    }
    s.whole_root = WHOLE_ROOT.is_match(&lower_text);
    if [
        "empty",
        "zero-byte",
        "zero byte",
        "0-byte",
        "0 byte",
        "blank files",
    ]
    .iter()
    .any(|w| lower_text.contains(w))
    {
        s.empty = true;
    }
    s.there = lower_text
        .split_whitespace()
        .any(|w| w.trim_matches(|c: char| !c.is_alphabetic()) == "there");
    let has_word = |w: &str| {
        lower_text
            .split(|c: char| !c.is_alphanumeric())
            .any(|x| x == w)
    };
    if has_word("folders")
        || has_word("directories")
        || s.empty && (has_word("folder") || has_word("directory"))
    {
        s.kind = Some("dir".into());
    } else if s.empty && has_word("files") {
        s.kind = Some("file".into());
    }
    if let Some(c) = LIMIT.captures(&text) {
        s.limit = c.get(1).or(c.get(2)).and_then(|m| m.as_str().parse().ok());
    }

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
        let is_prep = LOCATION_PREPS.contains(&w.as_str()) || TARGET_PREPS.contains(&w.as_str());
        if is_prep {
            let to_target = TARGET_PREPS.contains(&w.as_str());
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
            // "into a folder called X" / "to a new folder named X" was read as `name`.
            if let Some(q) = words.get(i + 1).and_then(|n| lookup(n)) {
                push_place(&mut s, to_target, g.entry(&q).map_or(q, str::to_owned));
                consumed[i + 1] = true;
                i += 2;
                continue;
            }
            // "of the photos in Downloads": a kind of file, not a folder (unless one exists or
            // it is written as a name: "in Photos").
            let after_determiner = words
                .get(i + 1)
                .is_some_and(|n| DETERMINERS.contains(&n.to_lowercase().as_str()));
            // Written in lower case ("the photos", not "the Photos") it is the kind, even when
            // a folder of that name exists.
            let written = words.get(i + 2).copied().unwrap_or_default();
            let kind_word = |_: &str| {
                after_determiner
                    && written.starts_with(|c: char| c.is_lowercase())
                    && CATEGORY_WORDS.iter().any(|(c, _)| *c == written)
            };
            if let Some((place, next)) =
                place_token(&words, i + 1, g).filter(|(p, _)| to_target || !kind_word(p))
            {
                push_place(&mut s, to_target, place);
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
        for cand in [w.as_str(), singular] {
            if known_extension(cand)
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
        // "Photos" written with a capital, naming a folder that exists, is that folder.
        let names_folder = raw.starts_with(|c: char| c.is_uppercase()) && g.entry(&w).is_some();
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
        // Paths and file names standing as objects ("delete old.log", "unzip backup.zip").
        if FORMAT_WORDS.contains(&w.as_str()) {
            consumed[i] = true;
        } else if !consumed[i] && (w.contains('/') || w.starts_with('~') || w.contains('.')) {
            if let Some((place, _)) = place_token(&words, i, g) {
                s.objects.push(place);
                consumed[i] = true;
            }
        } else if !consumed[i]
            && (g.entry(&w).is_some()
                || COMMON_FOLDERS.contains(&w.as_str()) && i > 0 && !describes_files(next)
                || misspelt_folder(&w)
                // "copy the folder Recipes to Backup", "a folder Taxes 2024": a name written
                // with a capital right after the word folder.
                || is_folder_noun(&prev)
                    && !prev.ends_with('s')
                    && raw.starts_with(|c: char| c.is_uppercase())
                    && !LOCATION_PREPS.contains(&w.as_str())
                    && !TARGET_PREPS.contains(&w.as_str())
                || i > 0
                    && words
                        .get(i + 1)
                        .is_some_and(|n| is_folder_noun(n) && !n.ends_with('s'))
                    && w.chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
                    && !NOT_A_PLACE.contains(&w.as_str())
                    && !DETERMINERS.contains(&w.as_str())
                    && !LOCATION_PREPS.contains(&w.as_str())
                    && !TARGET_PREPS.contains(&w.as_str())
                    && !["per", "by", "new", "same", "one", "another", "sub"].contains(&w.as_str()))
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
    files_are_objects(&mut s);
    // A place mentioned as the root's own name means the root.
    for list in [&mut s.locations, &mut s.objects, &mut s.targets] {
        for p in list.iter_mut() {
            if g.is_root(p) {
                ".".clone_into(p);
            }
        }
    }

    if let Some(c) = QUERY.captures(clause) {
        let q = c[1].trim();
        // Stop at the location phrase: "about taxes in Documents" → "taxes".
        let q = [" in ", " inside ", " within ", " under ", " from "]
            .iter()
            .filter_map(|p| q.find(p))
            .min()
            .map_or(q, |i| &q[..i]);
        let q = unquote(q);
        // "for 90 days" is a duration, not something to search for.
        if !q.is_empty() && !DURATION.is_match(&q) {
            s.query = Some(q);
        }
    }
    s
}

/// The quoted (or protected) text a placeholder word `⟦n⟧` stands for.
fn quoted_at(quoted: &[String], w: &str) -> Option<String> {
    let t = w.trim_end_matches([',', ';', ':', '.', '!', '?']);
    t.strip_prefix('⟦')
        .and_then(|r| r.strip_suffix('⟧'))
        .and_then(|n| n.parse::<usize>().ok())
        .and_then(|n| quoted.get(n).cloned())
}

/// Whether a word is a path or a file name ("Work/recent.zip", "~/Downloads", "report.pdf"):
/// not a pattern (`*.jpg`), an extension (`.jpg`), an archive format (`tar.gz`) or a number.
fn names_a_path(word: &str) -> bool {
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

/// Paths and file names are names, like quoted text: each becomes a placeholder, so the words
/// inside them are not read as dates, extensions or folders ("recent" and "zip" of
/// "Work/recent.zip").
fn protect_paths(text: &mut String, quoted: &mut Vec<String>) {
    let mut out: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        let bare = word.trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
        if names_a_path(bare) {
            quoted.push(bare.to_owned());
            out.push(format!("⟦{}⟧{}", quoted.len() - 1, &word[bare.len()..]));
        } else {
            out.push(word.to_owned());
        }
    }
    *text = out.join(" ");
}

/// "the gist of report.pdf", "the text of notes.md": a file named after a preposition is what
/// the clause acts on, not a place. An archive stays where it is ("compress X in x.zip" names
/// the archive to make; the tool's fill decides).
fn files_are_objects(s: &mut Slots) {
    let is_archive = |p: &str| {
        p.rsplit_once('.')
            .is_some_and(|(_, ext)| sandbox::category_of(Some(&ext.to_lowercase())) == "Archives")
    };
    let (files, places): (Vec<String>, Vec<String>) = std::mem::take(&mut s.locations)
        .into_iter()
        .partition(|p| names_a_path(p) && super::looks_like_file(p) && !is_archive(p));
    s.locations = places;
    for f in files {
        if !s.objects.contains(&f) {
            s.objects.push(f);
        }
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

#[cfg(test)]
mod tests;

/// A word saying what kind of files ("installers", "photos", "pdfs"): the word before it is an
/// adjective ("the old installers"), not a folder called "old".
fn describes_files(word: &str) -> bool {
    let singular = word.strip_suffix('s').unwrap_or(word);
    KIND_WORDS.iter().any(|(w, _, _)| *w == word)
        || CATEGORY_WORDS.iter().any(|(w, _)| *w == word)
        || FILE_NOUNS.contains(&word)
        || known_extension(singular)
}
