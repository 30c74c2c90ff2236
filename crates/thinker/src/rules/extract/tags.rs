//! Tags a clause gives: "tag the PDFs with Taxes 2024", "label the invoices as paid, urgent",
//! "add the tags urgent and work to report.pdf".

use std::sync::LazyLock;

use regex::Regex;

/// A word that asks for tags.
static TAG_VERB: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:tag|tagg|tags|tagged|label|labels|labelled|lable|lables|labled|mark)\b")
        .unwrap()
});
/// "… with X" / "… as X" closing the clause, after a tag verb ("wiht" too); "with A and B as
/// tags" and "with a Discussed tag" too.
static WITH_TAGS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\s(?:with|wiht|wtih|as)\s+(?:the\s+|an?\s+)?(?:(?:tags?|labels?)\s+)?(.+?)(?:\s+(?:tag|label))?(?:\s+as\s+(?:the\s+)?(?:tags?|labels?))?[.!?]*$")
        .unwrap()
});
/// "with tags work, backup", "tagged music, rename", "tags: a, b" closing the clause.
static TAGS_LIST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:with\s+(?:the\s+)?)?(?:tags|tagged|labels|labelled)\s*:?\s+(.+?)(?:(?:,\s+(?:that|which|so|to|for)|:)\s.*)?[.!?]*$")
        .unwrap()
});
/// "(tags: audio, stems)": a list in brackets ends where they close.
static TAGS_IN_BRACKETS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\((?:tags|tagged|labels|labelled)\s*:?\s+([^)]+)\)").unwrap()
});
/// "the tag(s) X to/on …", "a Kyoto tag on …": the tags, then what gets them.
static THE_TAGS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:(?:the\s+|an?\s+)?(?:tags?|labels?|lables?)\s+(.+?)|(?:an?|the)\s+(\S+(?:\s+\S+)?)\s+(?:tag|label))\s+(?:to|on)\s",
    )
    .unwrap()
});

/// "… needs the tag Christmas Concert": the tag closing the clause after "the tag".
static THE_TAG_CLOSING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:the|a|an)\s+(?:tags?|labels?|lables?)\s+(.+?)[.!?]*$").unwrap()
});
/// "… needs a 'Renewal due' tag", "give it the Urgent label": a quoted name, or one written
/// with a capital, before the word "tag" closing the clause (or a reason after it: "… label so
/// the cleaner knows").
static A_NAMED_TAG_CLOSING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?i:an?|the)\s+(⟦\d+⟧|[A-Z][\w-]*(?:\s+[A-Z0-9][\w-]*)?)\s+(?i:tag|label)(?:,?\s+(?i:so|because|since)\s.*)?[.!?]*$",
    )
    .unwrap()
});
/// "tag that file Onboarding", "label them Paid", "tag it 'Briefed'": a name written with a
/// capital (or quoted) closing the clause after what gets it ("… Baptisms 1880s afterwards" too).
static TAG_IT_NAME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(?i:tag|label|lable|mark)\s+(?:(?i:all|each|both|every one|any)\s+(?i:of)\s+(?i:them|those|these|it)|(?i:that|this|the|it|them|each|every|all|both)(?:\s+(?i:file|files|one|ones|pdf|pdfs|document|documents|folder))?|⟦\d+⟧)\s+(⟦\d+⟧|[A-Z][\w-]*(?:\s+[A-Z0-9][\w-]*){0,2})(?:,?\s+(?i:afterwards|afterward|after that|too|as well|then|later|please))?[.!?]*$",
    )
    .unwrap()
});

/// Words that open a description of a file rather than a tag ("with what it covers").
const DESCRIBES: &[&str] = &["what", "whatever", "which", "how", "where", "who", "whom"];

/// Words that start a reason or a time after a tag ("so it's easy to spot", "once done").
const SAYS_WHY_OR_WHEN: &[&str] = &[
    "so", "because", "cause", "cuz", "coz", "since", "once", "when", "whenever", "after", "before",
    "until", "then", "while", "if",
];

/// The tags and the range of `text` they (with their "with", "as" or "the tag … to") take.
pub(super) fn tag_list(
    text: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Option<(Vec<String>, std::ops::Range<usize>)> {
    // "to Brewery/Labels and skip …": a word inside a path is no tag verb or list.
    let masked = paths_blanked(text);
    let at = |m: regex::Match| (&text[m.range()], m.range());
    let verb = TAG_VERB.find(&masked)?;
    let (raw, range) = if let Some(c) = TAGS_IN_BRACKETS.captures(&masked) {
        (at(c.get(1)?).0, c.get(0)?.range())
    } else if let Some(c) = WITH_TAGS.captures_at(&masked, verb.end()) {
        (at(c.get(1)?).0, c.get(0)?.range())
    } else if let Some(c) = THE_TAGS.captures(&masked) {
        (at(c.get(1).or(c.get(2))?).0, c.get(0)?.range())
    } else if let Some(c) = THE_TAG_CLOSING.captures(&masked) {
        (at(c.get(1)?).0, c.get(0)?.range())
    } else if let Some(c) = A_NAMED_TAG_CLOSING.captures(&masked) {
        (at(c.get(1)?).0, c.get(0)?.range())
    } else if let Some(c) = TAG_IT_NAME.captures(&masked) {
        // "… Baptisms 1880s afterwards": the word after the name goes with it.
        (at(c.get(1)?).0, c.get(1)?.start()..c.get(0)?.end())
    } else {
        let c = TAGS_LIST.captures(&masked)?;
        (at(c.get(1)?).0, c.get(0)?.range())
    };
    // "label each one with what it covers": what a file is about is no tag's name.
    let first = raw.split_whitespace().next().unwrap_or("").to_lowercase();
    if DESCRIBES.contains(&first.as_str()) {
        return None;
    }
    // "tag them with Paid, don't move them": what the person says not to do is no tag.
    // "with Heating so it's easy to spot", "with Taxes; once done, …": a reason or a time
    // said after the tag is no part of it.
    let raw = raw
        .split([',', ';'])
        .map(|part| {
            let words: Vec<&str> = part.split_whitespace().collect();
            let end = words
                .iter()
                .position(|w| SAYS_WHY_OR_WHEN.contains(&w.to_lowercase().as_str()))
                .unwrap_or(words.len());
            words[..end].join(" ")
        })
        .take_while(|part| !part.is_empty() && !crate::rules::clause::opens_with_a_negation(part))
        .collect::<Vec<_>>()
        .join(", ");
    let mut list = format!(" {raw} ");
    for sep in [" and ", " & ", ";"] {
        list = list.replace(sep, ",");
    }
    let tags: Vec<String> = list
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| lookup(t).unwrap_or_else(|| t.trim_matches(['"', '\'']).to_owned()))
        .collect();
    (!tags.is_empty()).then_some((tags, range))
}

/// `text` with every word that holds a slash blanked letter by letter (same length).
fn paths_blanked(text: &str) -> String {
    text.split_inclusive(char::is_whitespace)
        .map(|w| {
            if w.contains('/') {
                w.chars()
                    .map(|c| {
                        if c.is_whitespace() {
                            c.to_string()
                        } else {
                            "_".repeat(c.len_utf8())
                        }
                    })
                    .collect()
            } else {
                w.to_owned()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::tag_list;

    #[test]
    fn tags_follow_with_or_as_after_a_tag_verb_or_come_before_to() {
        let none = |_: &str| None;
        for (text, tags, left) in [
            (
                "tag the PDFs in Downloads with Taxes 2024",
                vec!["Taxes 2024"],
                "tag the PDFs in Downloads",
            ),
            (
                "make a skill called weekly-report that zips Work, with tags work, backup",
                vec!["work", "backup"],
                "make a skill called weekly-report that zips Work,",
            ),
            (
                "create a skill music-renamer tagged music, rename",
                vec!["music", "rename"],
                "create a skill music-renamer",
            ),
            // Regression: the reason and the time after the tag were part of it.
            (
                "tag the manual with Heating so it's easy to spot",
                vec!["Heating"],
                "tag the manual",
            ),
            (
                "label each pdf in Taxes with Taxes; once done, list that folder",
                vec!["Taxes"],
                "label each pdf in Taxes",
            ),
            (
                "label the invoices in Inbox as paid, urgent and work",
                vec!["paid", "urgent", "work"],
                "label the invoices in Inbox",
            ),
            (
                "add the tags urgent and work to report.pdf",
                vec!["urgent", "work"],
                "add report.pdf",
            ),
            (
                "everything in Choir/Advent needs the tag Christmas Concert",
                vec!["Christmas Concert"],
                "everything in Choir/Advent needs",
            ),
            (
                "plus tag that file Onboarding",
                vec!["Onboarding"],
                "plus tag that file",
            ),
            (
                "put a lable Maintenance on Car/oil-change.pdf",
                vec!["Maintenance"],
                "put Car/oil-change.pdf",
            ),
            // What the skill does, after the list, is no tag; "all of them" gets the name after
            // it, and so does a named file (m008, m033, m035).
            (
                "make a skill pgn-splitter with tags chess, pgn: one giant PGN in, a file per game out",
                vec!["chess", "pgn"],
                "make a skill pgn-splitter",
            ),
            (
                "create a skill called gpx-trimmer, tags cycling and gps, that cuts the café stops",
                vec!["cycling", "gps"],
                "create a skill called gpx-trimmer,",
            ),
            (
                "then tag all of them Awaiting Approval",
                vec!["Awaiting Approval"],
                "then tag all of them",
            ),
            (
                "after that tag ⟦0⟧ Priority",
                vec!["Priority"],
                "after that tag ⟦0⟧",
            ),
            (
                "and label each of them Baptisms 1880s afterwards",
                vec!["Baptisms 1880s"],
                "and label each of them",
            ),
            (
                "Documents/Insurance/contents policy 2026.pdf needs a ⟦0⟧ tag",
                vec!["⟦0⟧"],
                "Documents/Insurance/contents policy 2026.pdf needs",
            ),
        ] {
            let (got, range) = tag_list(text, &none).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(got, tags, "{text}");
            let mut rest = text.to_owned();
            rest.replace_range(range, " ");
            assert_eq!(
                rest.split_whitespace().collect::<Vec<_>>().join(" "),
                left,
                "{text}"
            );
        }
        assert_eq!(
            tag_list("move the report with the others to Old", &none),
            None
        );
        // A word inside a path is no tag verb.
        assert_eq!(
            tag_list(
                "extract Downloads/a.zip to Brewery/Labels and skip existing ones",
                &none
            ),
            None
        );
        // What a file is about is no tag.
        assert_eq!(
            tag_list("label each letter in Inbox with what it covers", &none),
            None
        );
        // Regression: what not to do, after the tags, was read as one of them.
        let (got, _) =
            tag_list("tag the pdfs in Inbox with Paid, don't move them", &none).expect("tags");
        assert_eq!(got, ["Paid"]);
    }
}
