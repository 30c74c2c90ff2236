//! Amounts read from a clause: how much of a file to read, sizes, what to leave out, dates and
//! ages, and which copy to keep. Each read is cut from the text. Pure.

use super::lexicon::*;
use super::{Grounding, Slots, cut};
use regex::Regex;
use std::sync::LazyLock;

/// Words before a size that leave those files out ("ignore anything under 100 MB").
const IGNORE_WORDS: &[&str] = &[
    "ignore",
    "ignoring",
    "skip",
    "skipping",
    "exclude",
    "excluding",
    "except",
];

/// Reads the amounts of `text` into `s`, cutting what it read.
/// Reads the amounts of `text` into `s`, cutting what it read.
pub(super) fn read(
    s: &mut Slots,
    text: &mut String,
    g: &Grounding,
    lookup: &dyn Fn(&str) -> Option<String>,
) {
    say_amounts_plainly(text);
    read_limit(s, text);
    read_sizes(s, text);
    // After sizes: "ignore anything under 100 MB" is a size, not a place to leave out.
    read_exclusions(s, text, g, lookup);
    read_dates(s, text);
    read_keep(s, text);
}

/// "half a year", "its opening kilobyte", "over a gig": amounts said in words, said in numbers.
fn say_amounts_plainly(text: &mut String) {
    // "nobody has opened for half a year": six months.
    for half in ["half a year", "a half year"] {
        while let Some(at) = text.to_lowercase().find(half) {
            text.replace_range(at..at + half.len(), "6 months");
        }
    }
    // "its opening kilobyte": one of the unit.
    static ONE_UNIT: LazyLock<Regex> =
        LazyLock::new(|| re(r"(?i)\b(first|top|opening|initial)\s+(kilobyte|kb|megabyte|mb)\b"));
    if let std::borrow::Cow::Owned(t) = ONE_UNIT.replace_all(text, "$1 1 $2") {
        *text = t;
    }
    // "over a gig", "2 gigs": sizes said in words are read as sizes.
    let in_units = SIZE_IN_WORDS.replace_all(text, |c: &regex::Captures| {
        let unit = match c[2].to_lowercase().chars().next() {
            Some('g') => "GB",
            Some('m') => "MB",
            Some('t') => "TB",
            _ => "KB",
        };
        format!("{} {unit}", c.get(1).map_or("1", |m| m.as_str()))
    });
    if let std::borrow::Cow::Owned(t) = in_units {
        *text = t;
    }
}

/// "the first 2 KB of it": how much of a file to read (`max_bytes`).
fn read_limit(s: &mut Slots, text: &mut String) {
    if let Some(c) = READ_LIMIT
        .captures(text)
        .or_else(|| READ_LIMIT_OF_IT.captures(text))
        .or_else(|| READ_LIMIT_MAX.captures(text))
        .or_else(|| READ_LIMIT_FROM_TOP.captures(text))
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
            cut(text, r);
        }
    }
}

/// "over 100 MB", "2GB+": the sizes of the files meant.
fn read_sizes(s: &mut Slots, text: &mut String) {
    while let Some(c) = SIZE.captures(text) {
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
        let below = matches!(
            op.as_str(),
            "smaller" | "less" | "under" | "below" | "at most" | "lighter" | "up to" | "<" | "<="
        );
        // "ignore anything under 100 MB" keeps what is over it.
        let before = text[..c.get(0).expect("match").start()].to_lowercase();
        let left_out = before
            .split_whitespace()
            .rev()
            .take(3)
            .any(|w| IGNORE_WORDS.contains(&w));
        let is_min = below == left_out;
        if is_min {
            s.min_size = Some(value);
        } else {
            s.max_size = Some(value);
        }
        let r = c.get(0).expect("match").range();
        cut(text, r);
    }
    if let Some(c) = SIZE_PLUS.captures(text) {
        let value = format!("{}{}", &c[1], c[2].to_uppercase());
        let value = if value.ends_with('B') {
            value
        } else {
            format!("{value}B")
        };
        let below = c.get(3).is_some_and(|m| {
            matches!(
                m.as_str().to_lowercase().as_str(),
                "less" | "smaller" | "lighter" | "under" | "below"
            )
        });
        if below {
            s.max_size = Some(value);
        } else {
            s.min_size = Some(value);
        }
        let r = c.get(0).expect("match").range();
        cut(text, r);
    }
}

/// "except Work/Keep", "leave out X and Y": places to leave out.
fn read_exclusions(
    s: &mut Slots,
    text: &mut String,
    g: &Grounding,
    lookup: &dyn Fn(&str) -> Option<String>,
) {
    // "but leave the ones from 2024" names no place: its words stay for the date.
    let mut from = 0;
    while let Some(c) = EXCLUDE.captures_at(text, from) {
        let list = c.get(1).map_or("", |m| m.as_str());
        let mut named = false;
        for part in list.split([',']).flat_map(|p| p.split(" and ")) {
            let p = part.trim();
            if p.is_empty() {
                continue;
            }
            let value = lookup(p).unwrap_or_else(|| unquote(p));
            let lower = value.to_lowercase();
            // "ignore anything under 100 MB" leaves out by size (read above), not a place.
            if DETERMINERS.contains(&lower.as_str())
                || NOT_A_PLACE.contains(&lower.as_str())
                || [
                    "anything",
                    "everything",
                    "files",
                    "all",
                    "what",
                    "whatever",
                    "those",
                    "these",
                    "ones",
                ]
                .contains(&lower.as_str())
            {
                continue;
            }
            s.exclude.push(g.entry(&value).map_or(value, str::to_owned));
            named = true;
        }
        let r = c.get(0).expect("match").range();
        let lead = c[0].to_lowercase();
        let sparing = [
            "leave",
            "except",
            "excluding",
            "but not",
            "apart from",
            "other than",
        ]
        .iter()
        .any(|l| lead.starts_with(l));
        if named || !sparing {
            cut(text, r.clone());
            from = r.start + 1;
        } else {
            from = r.end;
        }
    }
}

/// "since 3 March 2025", "before 2024-06-01": when the files meant were last changed, said as a
/// date (and as an age or a year: `read_ages`).
fn read_dates(s: &mut Slots, text: &mut String) {
    while let Some(c) = WORD_DATE.captures(text) {
        let day: u32 = c
            .get(2)
            .or(c.get(4))
            .and_then(|d| d.as_str().parse().ok())
            .unwrap_or(1);
        let month = month_number(&c[3].to_lowercase()).unwrap_or(1);
        let date = format!("{}-{month:02}-{day:02}", &c[5]);
        match c[1].to_lowercase().as_str() {
            "before" | "prior to" | "until" | "till" | "older than" | "earlier than"
            | "predates" | "predate" | "predating" | "pre-dates" => {
                s.modified_before = Some(date);
            }
            _ if denied_or_spared(text, c.get(0).expect("match").start()) => {
                s.modified_before = Some(date)
            }
            _ => s.modified_after = Some(date),
        }
        let r = c.get(0).expect("match").range();
        cut(text, r);
    }
    while let Some(c) = ISO_DATE.captures(text) {
        let date = c[2].to_owned();
        match c[1].to_lowercase().as_str() {
            "before" | "prior to" | "until" | "till" | "older than" => {
                s.modified_before = Some(date)
            }
            _ if denied_or_spared(text, c.get(0).expect("match").start()) => {
                s.modified_before = Some(date)
            }
            _ => s.modified_after = Some(date),
        }
        let r = c.get(0).expect("match").range();
        cut(text, r);
    }
    read_ages(s, text);
}

/// "older than 6 months", "this week", "since 2023", "from 2024": when the files meant were last
/// changed, said as an age or a year.
fn read_ages(s: &mut Slots, text: &mut String) {
    while let Some(c) = AGE.captures(text) {
        let op = c[1].to_lowercase();
        let n = number_word(c.get(2).map_or("", |m| m.as_str())).unwrap_or(1);
        let value = age(n, &c[3]);
        let older = op.starts_with("older")
            || op.starts_with("not ")
            || op.starts_with("never ")
            || op.starts_with("untouched")
            // "nobody has opened for half a year".
            || ["nobody", "no one", "noone"].iter().any(|w| op.starts_with(w))
            // "paperwork past three years old" (not "the past 3 days").
            || (op == "more than" || op == "over" || op == "past") && c.get(4).is_some()
            // "that I haven't opened in the last month".
            || denied(text, c.get(0).expect("match").start())
            || (op == "more than" || op == "over");
        // "delete the logs but keep the ones from the last 30 days": the others go.
        let older = older != spared(text, c.get(0).expect("match").start());
        if older {
            s.modified_before = Some(value);
        } else {
            s.modified_after = Some(value);
        }
        let r = c.get(0).expect("match").range();
        cut(text, r);
    }
    // "keep the most recent copy": which copy stays (`read_keep`), not when files changed.
    // "… to USB/Makler? the agent wants it today": when the person needs it, neither.
    if let Some(c) = RELATIVE_DAY.captures(text).filter(|c| {
        let before = text[..c.get(0).expect("match").start()].to_lowercase();
        !before.ends_with("most ") && !DEADLINE_BEFORE.is_match(&before)
    }) {
        let v = match c[1].to_lowercase().as_str() {
            "today" => "1days",
            "yesterday" => "2days",
            "this week" | "last week" | "recently" | "recent" | "lately" | "new files"
            | "latest files" => "7days",
            // "since Monday": within the last week, whatever day it is now; "since last
            // Friday" within two.
            w if w.starts_with("since last ") => "14days",
            w if w.starts_with("since ") => "7days",
            "this month" | "last month" => "30days",
            _ => "365days",
        };
        // "I haven't opened since last year": last changed before then.
        if denied_or_spared(text, c.get(0).expect("match").start()) {
            s.modified_before.get_or_insert_with(|| v.into());
        } else if s.modified_after.is_none() {
            s.modified_after = Some(v.into());
        }
        let r = c.get(0).expect("match").range();
        cut(text, r);
    }
    if let Some(c) = NOT_SINCE_YEAR.captures(text) {
        let year = c.get(1).or(c.get(2)).expect("a year").as_str();
        s.modified_before = Some(format!("{year}-01-01"));
        let r = c.get(0).expect("match").range();
        cut(text, r);
    }
    if let Some(c) = AROUND_YEAR.captures(text) {
        let y: u32 = c[2].parse().unwrap_or(2000);
        let op = c[1].to_lowercase();
        if ["after", "later than", "newer than", "post-"].contains(&op.as_str()) {
            s.modified_after
                .get_or_insert_with(|| format!("{}-01-01", y + 1));
        } else {
            s.modified_before
                .get_or_insert_with(|| format!("{y}-01-01"));
        }
        let r = c.get(0).expect("match").range();
        cut(text, r);
    }
    if s.modified_after.is_none()
        && s.modified_before.is_none()
        && let Some(c) = SINCE_YEAR.captures(text)
    {
        let date = format!("{}-01-01", &c[1]);
        if denied_or_spared(text, c.get(0).expect("match").start()) {
            s.modified_before = Some(date);
        } else {
            s.modified_after = Some(date);
        }
        let r = c.get(0).expect("match").range();
        cut(text, r);
    }
    if s.modified_after.is_none()
        && s.modified_before.is_none()
        && let Some(c) = YEAR.captures(text)
        // "new dir 2023 under Archive": a year right after "folder" is the folder's name.
        && !text[..c.get(0).expect("match").start()]
            .split_whitespace()
            .last()
            .is_some_and(|w| is_folder_noun(w) && !w.ends_with('s'))
    {
        let y: u32 = c[1].parse().unwrap_or(2000);
        // "move the pdfs but leave the ones from 2024": one range cannot say "all but 2024",
        // so the step keeps to what is older and leaves the year (and anything newer) alone.
        if spared(text, c.get(0).expect("match").start()) {
            s.modified_before = Some(format!("{y}-01-01"));
        } else {
            s.modified_after = Some(format!("{y}-01-01"));
            s.modified_before = Some(format!("{}-01-01", y + 1));
        }
        let r = c.get(0).expect("match").range();
        cut(text, r);
    }
}

/// "keep the newest", "the biggest file wins": which copy stays.
fn read_keep(s: &mut Slots, text: &str) {
    // "originals stay put", "the original stays where it is": the source stays, no choice
    // of which copy survives.
    let lower_text = [
        " stays put",
        " stay put",
        " stays where it is",
        " stay where they are",
    ]
    .iter()
    .fold(text.to_lowercase(), |t, p| t.replace(p, ""));
    if (lower_text.contains("keep")
        || lower_text.contains("keeping")
        || lower_text.contains("preserv")
        || lower_text.contains("leave the")
        // "the older version stays", "bigger version survives", "biggest file wins".
        || lower_text.contains(" stays")
        || lower_text.contains(" stay")
        || lower_text.contains(" surviv")
        || lower_text.contains(" wins")
        || lower_text.contains("hang on to")
        || lower_text.contains("hold on to"))
        && let Some(c) = KEEP.captures(text)
    {
        s.keep = Some(
            match c[1].to_lowercase().as_str() {
                "newest" | "latest" | "most recent" | "newer" | "youngest" => "newest",
                "shortest" | "shortest path" | "first" => "shortest_path",
                "biggest" | "bigger" | "largest" | "larger" => "largest",
                w if w.starts_with("highest") => "largest",
                _ => "oldest",
            }
            .into(),
        );
    }
}

/// Whether a date is said of files to spare ("… but keep the ones from this week", "except
/// those from 2024"): the step acts on the others.
fn spared(text: &str, at: usize) -> bool {
    const SPARING: &[&str] = &[
        "except",
        "excluding",
        "besides",
        "apart from",
        "other than",
        "but keep",
        "but leave",
        "but not",
        "not the ones",
        "not those",
        "keep the ones",
        "keep those",
        "leave the ones",
        "leave those",
        "spare the ones",
        "spare those",
    ];
    let before: Vec<String> = text[..at]
        .split_whitespace()
        .rev()
        .take(6)
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    let before = format!(
        " {} ",
        before.into_iter().rev().collect::<Vec<_>>().join(" ")
    );
    SPARING.iter().any(|m| before.contains(&format!(" {m} ")))
}

/// A date said as denied or of files to spare.
fn denied_or_spared(text: &str, at: usize) -> bool {
    denied(text, at) || spared(text, at)
}

/// Whether the few words before `at` deny what a date says ("not opened since", "I haven't
/// touched since"): the files are the ones last changed before it.
fn denied(text: &str, at: usize) -> bool {
    const DENIALS: &[&str] = &[
        "nobody",
        "nobody's",
        "not",
        "never",
        "haven't",
        "havent",
        "hasn't",
        "hasnt",
        "hadn't",
        "didn't",
        "don't",
        "doesn't",
        "untouched",
        "longer",
    ];
    text[..at]
        .split_whitespace()
        .rev()
        .take(4)
        .any(|w| DENIALS.contains(&w.to_lowercase().replace('’', "'").as_str()))
}
