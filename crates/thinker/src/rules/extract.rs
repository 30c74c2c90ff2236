//! Parameter extraction for the rule planner: paths, targets, extensions, globs, sizes, dates, keep
//! policies, exclusions, archive formats, rename patterns and more, read from one clause. Pure.

mod amounts;
mod archive;
mod called;
mod categories;
mod lexicon;
mod names;
mod paths;
mod places;
mod rename;
mod tags;

use called::{drop_example_names, read_called};
pub(super) use lexicon::DELETE_ORIGINALS;
pub(super) use lexicon::NUMBER_WORDS;
pub(in crate::rules) use lexicon::QUOTED;
pub(super) use lexicon::is_folder_noun;
use lexicon::*;
pub(super) use names::only_a_name;
pub(in crate::rules) use paths::{file_path_end, verb_in_a_name};
use paths::{names_a_path, never_in_a_name, protect_paths};
pub(in crate::rules) use places::calendar_word;
use std::collections::BTreeSet;

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
    /// A compression level said as a number ("zstd level 19", "compression level 6").
    pub level: Option<u64>,
    /// How long a summary is ("in three sentences", "a 5-sentence summary").
    pub sentences: Option<u64>,
    pub pattern: Option<String>,
    pub find: Option<String>,
    pub replace: Option<String>,
    pub case: Option<String>,
    pub recursive: Option<bool>,
    pub empty: bool,
    /// `file` or `dir` when the clause is about one kind only.
    pub kind: Option<String>,
    pub limit: Option<u64>,
    /// The limit ranks by size: "the three biggest files", "which five shots weigh most".
    pub by_size: bool,
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
    /// "split the originals into …" after a copy: what was copied, where it still is.
    pub originals: bool,
    /// The clause names the whole working folder ("everything", "this folder", the root's name).
    pub whole_root: bool,
    /// "there": the place an earlier step moved things to.
    pub there: bool,
    /// "the whole thing", "all of it": the folder the request is about, taken whole.
    pub whole_place: bool,
    /// The person's own categories: "into Invoices, Recipes and Meeting notes" (two or more).
    pub categories: Vec<String>,
    /// Tags to give: "tag … with Taxes 2024", "label … as paid".
    pub tags: Vec<String>,
    /// Places whose copy is the one to keep: "prefer keeping the copies in Work/Final".
    pub priority: Vec<String>,
    /// Words said only in what the clause says not to do ("skip the duplicate check"): they
    /// choose values (`when_denied`), never a tool.
    pub denied: BTreeSet<String>,
    /// Words a size, date or keep value took ("six months" of "untouched for more than six
    /// months"): they say that value, not which tool ("months" is no by-month sort).
    pub spent: BTreeSet<String>,
    /// "bro can u batch-convert wav to flac or nah", "any built-in way to make PDFs smaller?":
    /// a question whether the agent can do something, about no file or folder in particular.
    pub asks_ability: bool,
    /// "purely hypothetical tally per category, don't move anything": said as if, nothing is
    /// to change (read on the clause with its words normalised, by the planner).
    pub as_if: bool,
}

/// Words a filter slot accounts for: extension and kind words, size and date words, numbers and
/// the comparisons around them. What is left of a clause after them (and the verbs) is a topic.
pub fn filter_word(word: &str) -> bool {
    let w = word.to_lowercase();
    let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-');
    let singular = w.strip_suffix('s').unwrap_or(w);
    FILTER_WORDS.contains(&w)
        || w.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
        || known_extension(w)
        || known_extension(singular)
        || CATEGORY_WORDS.iter().any(|(k, _)| *k == w)
        || KIND_WORDS.iter().any(|(k, _, _)| *k == w)
        || FILE_NOUNS.contains(&w)
}

/// The words of size, date and kind filters ("bigger", "older", "empty"): a typo of one is
/// corrected to it.
pub const FILTER_WORDS: &[&str] = &[
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
    // Which copy to keep ("kep the olderst one").
    "keep",
    "keeping",
    "oldest",
    "newest",
    "largest",
    "biggest",
    "folders",
    "folder",
    "directories",
    "type",
    "kind",
];

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
            // "the three biggest files in Renders" are some of its files, not the folder.
            || self.by_size && self.limit.is_some()
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
    /// The paths and quoted names the whole request says (`Grounding::with_names_said`): a
    /// name one part cuts short is read in full when another part says it so.
    pub said: Vec<String>,
}

impl Grounding {
    /// This grounding with the paths and quoted names of the whole `request` in `said`.
    pub fn with_names_said(mut self, request: &str) -> Self {
        let mut text = request.to_owned();
        let mut quoted = read_quoted(&mut text);
        protect_paths(&mut text, &mut quoted, &self);
        self.said = quoted;
        self
    }

    /// The entry whose name or path equals `word` (case-insensitive).
    /// A whole path wins over a name met deeper down ("Videos" is the top folder, not
    /// "External drive/Videos"), and a shallower entry over a deeper one.
    pub(super) fn entry(&self, word: &str) -> Option<&str> {
        let w = word.to_lowercase();
        self.path(word).or_else(|| {
            self.entries
                .iter()
                .filter(|e| e.rsplit('/').next().is_some_and(|n| n.to_lowercase() == w))
                .min_by_key(|e| e.matches('/').count())
                .map(String::as_str)
        })
    }

    /// The entry whose whole relative path is `path` (case-insensitive): "Projects/garden
    /// planner", not an entry named "planner" anywhere.
    pub(super) fn path(&self, path: &str) -> Option<&str> {
        let p = path.to_lowercase();
        self.entries
            .iter()
            .find(|e| e.to_lowercase() == p)
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

/// A word naming what a thing is ("file", "folders", "note"): it says nothing about what to do.
pub fn names_a_kind_of_thing(word: &str) -> bool {
    FILE_NOUNS.contains(&word) || is_folder_noun(word)
}

/// Reads every slot of one clause.
pub fn extract(clause: &str, g: &Grounding) -> Slots {
    let mut s = Slots::default();
    let affirmed = retrieval::text::words(&super::clause::without_negations(clause));
    s.denied = retrieval::text::words(clause)
        .into_iter()
        .filter(|w| !affirmed.contains(w))
        .collect();
    // "hasn't been touched" reads as "has not been touched".
    let mut text = clause.replace("n't ", " not ").replace("n’t ", " not ");
    let mut quoted = read_quoted(&mut text);
    let lookup = |w: &str| quoted_at(&quoted, w);
    read_lists_and_content(&mut s, &mut text, &lookup);
    read_names_pattern(&mut s, &mut text, &lookup);
    protect_paths(&mut text, &mut quoted, g);
    drop_example_names(&mut text, &quoted);
    let lookup = |w: &str| quoted_at(&quoted, w);
    read_case_and_numbering(&mut s, &text.to_lowercase());
    read_originals_and_preferred(&mut s, &mut text, g, &lookup);
    let before: BTreeSet<String> = retrieval::text::words(&text).into_iter().collect();
    amounts::read(&mut s, &mut text, g, &lookup);
    let after: BTreeSet<String> = retrieval::text::words(&text).into_iter().collect();
    s.spent = before.difference(&after).cloned().collect();
    archive::read(&mut s, &mut text);
    read_called(&mut s, &mut text, &lookup);
    read_globs(&mut s, &mut text);
    let lower_text = text.to_lowercase();
    read_switches(&mut s, &text, &lower_text);
    places::read_words(&mut s, &text, g, &lookup);
    places::drop_places_of_the_story(&mut s, &text, g);
    every_file_named(&mut s, &text, &lookup);
    archive::archive_to_make(&mut s, clause);
    s.asks_ability = asks_ability(&s, &lower_text);
    // The name of the archive to make says its format best ("zip X into Archive/old.tar.gz").
    if let Some(f) = s.targets.iter().find_map(|t| archive::format_in(t)) {
        s.format = Some(f.to_owned());
    }
    // "make X into a tar.gz": a format alone names no archive (its name comes from X).
    s.targets.retain(|t| {
        let t = t.to_lowercase();
        !FORMAT_WORDS
            .iter()
            .any(|f| f.trim_start_matches('.') == t.trim_start_matches('.'))
    });
    s.query = query_in(clause);
    s
}

/// The last text `text` quotes, without its quotes.
pub fn last_quoted(text: &str) -> Option<String> {
    QUOTED
        .find_iter(text)
        .last()
        .map(|m| unquote(m.as_str()))
        .filter(|q| !q.trim().is_empty())
}

/// Quoted strings are names or paths, taken verbatim; each is replaced by a placeholder so its
/// words are not read as anything else. Returns them, in order.
fn read_quoted(text: &mut String) -> Vec<String> {
    let mut quoted: Vec<String> = Vec::new();
    while let Some(m) = QUOTED.find(text) {
        let inner = unquote(m.as_str());
        let range = m.range();
        quoted.push(inner);
        text.replace_range(range, &format!("⟦{}⟧", quoted.len() - 1));
    }
    quoted
}

/// Categories and tags listed, and the text to write into a file.
fn read_lists_and_content(
    s: &mut Slots,
    text: &mut String,
    lookup: &dyn Fn(&str) -> Option<String>,
) {
    // "into Invoices, Recipes and Meeting notes": a list of names closing the clause is a set of
    // categories (one name after "into" stays a target).
    if let Some((names, r)) = categories::category_list(text, lookup) {
        s.categories = names;
        cut(text, r);
    }
    if let Some((tags, r)) = tags::tag_list(text, lookup) {
        s.tags = tags;
        cut(text, r);
    }
    if let Some(c) = CONTENT.captures(text) {
        // "write Garden/to-buy.txt with 'borage, calendula'": the file stays what is written.
        let (raw, r) = match (c.get(3), c.get(4)) {
            (Some(m), _) => (
                m.as_str(),
                text[..m.start()].rfind("with").unwrap_or(m.start())..m.end(),
            ),
            // "jot 'order Citra' into a new file todo.txt": the text, the rest stays.
            (_, Some(m)) => (m.as_str(), m.range()),
            (None, None) => (
                c.get(1).or(c.get(2)).map_or("", |m| m.as_str()),
                c.get(0).expect("match").range(),
            ),
        };
        let content = lookup(raw).unwrap_or_else(|| unquote(raw));
        if c.get(3).or(c.get(4)).is_none() || !names_a_path(&content) {
            s.content = Some(content);
            cut(text, r);
        }
    }
}

/// How new names are made: a pattern, a numbering start, text replaced inside names.
fn read_names_pattern(s: &mut Slots, text: &mut String, lookup: &dyn Fn(&str) -> Option<String>) {
    let renaming = rename::read(text, lookup);
    s.pattern = renaming.pattern;
    s.start = renaming.start;
    s.find = renaming.find;
    s.replace = renaming.replace;
    if s.pattern.is_none()
        && let Some(m) = PATTERN.find(text)
    {
        s.pattern = Some(m.as_str().trim_end_matches([',', ';']).to_owned());
        let r = m.range();
        cut(text, r);
    }
    // "names look like saga_vol_01.cbz", "DocuSign_8f3a.pdf-style names": an example of the
    // names there, no file to act on.
    while let Some(m) = NAMES_LIKE.find(text) {
        let r = m.range();
        cut(text, r);
    }
}

/// "number them" (a running number) and the letter case names are to get.
fn read_case_and_numbering(s: &mut Slots, lower_text: &str) {
    // "number them" with no example: a running number after the name.
    // ("number of files" counts them).
    if s.pattern.is_none()
        && lower_text.contains("number")
        && !lower_text.contains("numbers")
        && !lower_text.contains("number of")
    {
        s.pattern = Some("{name}_{n:03}".into());
    }
    for (case, words) in &super::lexicon::lexicon().case_words {
        // "all lowrcase": a one-word case written with a slip counts too.
        let slip = |w: &str| {
            !w.contains(' ')
                && lower_text.split_whitespace().any(|t| {
                    let t = t.trim_matches(|c: char| !c.is_alphabetic());
                    t.len() >= 8 && strsim::damerau_levenshtein(t, w) == 1
                })
        };
        if words
            .iter()
            .any(|w| lower_text.contains(w.as_str()) || slip(w))
        {
            s.case = Some(case.clone());
        }
    }
}

/// "the originals live in X" leaves X alone; "prefer keeping the copies in X" keeps X's.
fn read_originals_and_preferred(
    s: &mut Slots,
    text: &mut String,
    g: &Grounding,
    lookup: &dyn Fn(&str) -> Option<String>,
) {
    for (regex, list) in [(&*ORIGINALS_IN, 0), (&*PREFER_IN, 1)] {
        while let Some(c) = regex.captures(text) {
            let raw = (1..c.len())
                .find_map(|i| c.get(i))
                .map_or("", |m| m.as_str())
                .trim_end_matches([',', ';', '.']);
            let value = lookup(raw).unwrap_or_else(|| unquote(raw));
            let value = g.entry(&value).map_or(value, str::to_owned);
            let places = if list == 0 {
                &mut s.exclude
            } else {
                &mut s.priority
            };
            if !places.contains(&value) {
                places.push(value);
            }
            let r = c.get(0).expect("match").range();
            cut(text, r);
        }
    }
}

/// "*.tmp" (a pattern, or an extension when that is all it says) and ".pdf" words.
fn read_globs(s: &mut Slots, text: &mut String) {
    if let Some(c) = GLOB.captures(text) {
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
        cut(text, r);
    }
    for c in DOT_EXT.captures_iter(text) {
        let e = c[1].to_lowercase();
        if known_extension(&e) && !s.extensions.contains(&e) {
            s.extensions.push(e);
        }
    }
}

/// What the clause switches on or says in passing: a pointer back, subfolders, the whole
/// root, empty things, "there", folders or files, how many, how many sentences.
fn read_switches(s: &mut Slots, text: &str, lower_text: &str) {
    // "what's in backup.tar.gz, without unpacking it": what is said not to be done points back
    // at nothing.
    // "IT asked before migrating": the department, written in capitals, is no "it".
    let pointing: String = text
        .split_whitespace()
        .filter(|w| w.trim_matches(|c: char| !c.is_alphanumeric()) != "IT")
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    s.refers_back =
        REFERS_BACK.is_match(&super::clause::without_negations(&pointing).to_lowercase());
    s.originals = !s.delete_originals
        && [
            "the originals",
            "the original folder",
            "the original files",
            "the original ones",
        ]
        .iter()
        .any(|o| lower_text.contains(o));
    // "nested event folders too": the folders said for every level are no kind of thing asked.
    let mut levels_said = String::new();
    if RECURSIVE_OFF.is_match(lower_text) {
        s.recursive = Some(false);
    } else if let Some(m) = RECURSIVE_ON.find(lower_text) {
        s.recursive = Some(true);
        levels_said = m.as_str().to_owned();
    }
    s.whole_root = WHOLE_ROOT.is_match(lower_text);
    s.whole_place = WHOLE_PLACE.is_match(lower_text);
    // "new empty file ideas.md", "make an empty folder": what is made empty is no filter.
    if super::lexicon::lexicon()
        .empty_phrases
        .iter()
        .any(|w| lower_text.contains(w.as_str()))
        && !MADE_EMPTY.is_match(lower_text)
    {
        s.empty = true;
    }
    // "there", "that folder": where the step before put things.
    // "create it and shift a.pdf plus b.pdf inside": "inside" ending the clause is "in there".
    let bare = |w: &str| w.trim_matches(|c: char| !c.is_alphabetic()).to_owned();
    s.there = lower_text.split_whitespace().any(|w| bare(w) == "there")
        || lower_text
            .split_whitespace()
            .last()
            .is_some_and(|w| bare(w) == "inside" && !w.contains('/'))
        || ["that folder", "that directory", "the same folder"]
            .iter()
            .any(|p| lower_text.contains(p));
    let has_word = |w: &str| {
        lower_text
            .replacen(levels_said.as_str(), " ", 1)
            .split(|c: char| !c.is_alphanumeric())
            .any(|x| x == w)
    };
    if has_word("folders")
        || has_word("directories")
        || has_word("dirs")
        || s.empty && (has_word("folder") || has_word("directory") || has_word("dir"))
    {
        s.kind = Some("dir".into());
    } else if s.empty && has_word("files") {
        s.kind = Some("file".into());
    }
    if let Some(c) = LIMIT.captures(text) {
        s.limit = c
            .get(1)
            .or(c.get(2))
            .or(c.get(3))
            .or(c.get(4))
            .or(c.get(5))
            .and_then(|m| {
                let n = m.as_str().to_lowercase();
                n.parse().ok().or_else(|| number_word(&n))
            });
        let said = c[0].to_lowercase();
        s.by_size = [
            "largest", "biggest", "heaviest", "fattest", "weigh", "take up", "hog", "eat",
        ]
        .iter()
        .any(|w| said.contains(w));
    }

    s.sentences = sentences_in(lower_text);
}

/// "can u convert wav to flac?": asking what the agent can do, about nothing in particular
/// (not "can you sort my photos", "can u extract that thing" or "can you zip Downloads").
fn asks_ability(s: &Slots, lower_text: &str) -> bool {
    let lex = super::lexicon::lexicon();
    let question = format!(" {} ", lower_text.replace(['?', ',', '!'], " "));
    lex
        .ability_questions
        .iter()
        .any(|q| question.contains(&format!(" {q} ")))
        && !question
            .split_whitespace()
            .scan("", |prev, w| {
                // "something that can compress vids": "that" after an unnamed thing is no
                // pointer at one.
                let relative = lex.vague_words.contains(*prev);
                *prev = w;
                Some((w, relative))
            })
            .any(|(w, relative)| {
                lex.back_references.contains(w) || lex.possessives.contains(w) && !relative
            })
        // "something for renaming podcast episodes from their ID3 tags": "their" is the
        // episodes'.
        && !REFERS_BACK
            .find_iter(lower_text)
            .any(|m| m.as_str() != "their")
        && s.locations.is_empty()
        && s.objects.is_empty()
        && s.targets.is_empty()
        && !asks_for_a_new_skill(&retrieval::text::words(lower_text))
        || asks_about_its_skills(lower_text)
}

/// What to search the files' text for: "mentioning X", "about X" (up to where the clause
/// goes on to say where or asks something else).
fn query_in(clause: &str) -> Option<String> {
    if let Some(c) = MENTIONED
        .captures(clause)
        .or_else(|| QUERY.captures(clause))
    {
        let q = c[1].trim();
        // Stop at the location phrase: "about taxes in Documents" → "taxes"; and at a request
        // said after it ("about the broken boiler, can you dig it up").
        let q = [
            " in ", " inside ", " within ", " under ", " from ", ", can ", ", could ", ", please",
            ", pls", " — ", " – ", "?",
        ]
        .iter()
        .filter_map(|p| q.find(p))
        .min()
        .map_or(q, |i| &q[..i]);
        let q = unquote(q);
        // "for 90 days" is a duration, not something to search for.
        if !q.is_empty() && !DURATION.is_match(&q) {
            return Some(q);
        }
    }
    None
}

/// "delete every .DS_Store in DJ/Crates", "all the Thumbs.db in Pictures": a file's name after
/// "every" or "all" names every file so called, at any depth, not one file.
fn every_file_named(s: &mut Slots, text: &str, lookup: &dyn Fn(&str) -> Option<String>) {
    if s.name.is_some() || s.objects.len() != 1 || s.objects[0].contains('/') {
        return;
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let named = words.iter().enumerate().any(|(i, w)| {
        let bare = w.trim_end_matches([',', ';', ':', '!', '?']);
        let word = lookup(bare).unwrap_or_else(|| bare.to_owned());
        let before = |k: usize| {
            i >= k
                && matches!(
                    words[i - k].to_lowercase().as_str(),
                    "every" | "all" | "each"
                )
        };
        word == s.objects[0]
            && (super::looks_like_file(&word) || word.starts_with('.') && word.len() > 2)
            && (before(1) || i >= 2 && words[i - 1].eq_ignore_ascii_case("the") && before(2))
    });
    if named {
        s.name = s.objects.pop();
        s.recursive.get_or_insert(true);
    }
}

/// The quoted (or protected) text a placeholder word `⟦n⟧` stands for.
fn quoted_at(quoted: &[String], w: &str) -> Option<String> {
    let t = w.trim_end_matches([',', ';', ':', '.', '!', '?']);
    t.strip_prefix('⟦')
        .and_then(|r| r.strip_suffix('⟧'))
        .and_then(|n| n.parse::<usize>().ok())
        .and_then(|n| quoted.get(n).cloned())
}

/// "in three sentences", "a 5-sentence summary", "two sentences".
fn sentences_in(lower: &str) -> Option<u64> {
    let words: Vec<&str> = lower.split_whitespace().collect();
    words.iter().enumerate().find_map(|(i, w)| {
        let w = w.trim_end_matches([',', ';', '.', '!', '?']);
        if let Some(n) = w.strip_suffix("-sentence").or(w.strip_suffix("-sentences")) {
            return number_word(n).or_else(|| n.parse().ok());
        }
        if matches!(w, "sentence" | "sentences") && i > 0 {
            return number_word(words[i - 1]).or_else(|| words[i - 1].parse().ok());
        }
        None
    })
}

/// "any skil that can renmae fonts by family name?", "OCR my scans — got a skill for that?": a
/// question that names the agent's skills asks which one fits, whatever it is about, unless it
/// asks for a new one ("I'd like a new ability, font-inventory, that …").
pub(super) fn asks_about_its_skills(lower_text: &str) -> bool {
    let lex = super::lexicon::lexicon();
    let words: Vec<&str> = lower_text
        .split(|c: char| c.is_whitespace() || c == ',')
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .filter(|w| !w.is_empty())
        .collect();
    let names_skills = words.iter().any(|w| lex.means(w, &lex.agent_nouns));
    let asked = lower_text.contains('?')
        || words
            .first()
            .is_some_and(|w| lex.question_openers.contains(*w));
    // "got anything that files my tour receipts by city?": something unnamed that would do it.
    // Read in the lexicon's words on both sides ("things" may already read "files").
    let in_words = |t: &str| {
        t.split(' ')
            .map(|w| lex.synonyms.get(w).map_or(w, String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let padded = format!(" {} ", in_words(&words.join(" ")));
    let something_that = lex
        .capability_phrases
        .iter()
        .any(|p| padded.contains(&format!(" {} ", in_words(p))));
    (names_skills || something_that)
        && asked
        && !words.iter().any(|w| lex.making_words.contains(*w))
}

/// "I'd like a new ability, font-inventory, that …", "can you create a skill that …": the words
/// name the agent's skills and ask for one to be made.
pub(super) fn asks_for_a_new_skill(words: &[String]) -> bool {
    let lex = super::lexicon::lexicon();
    let names_skills = words.iter().any(|w| lex.means(w, &lex.agent_nouns));
    names_skills && words.iter().any(|w| lex.making_words.contains(w))
}

#[cfg(test)]
mod tests;
