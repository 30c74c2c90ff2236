//! Splitting a request into clauses, one action each: "then", "and then", ";", "after that", and
//! "and" / "," when an action verb follows. A leading "X – Y" or "X: Y" makes X a header that only
//! sets the place.

/// One action of the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clause {
    pub text: String,
    /// A summary before a dash or colon ("Clean up my Downloads folder – ..."): its places count,
    /// its verb does not when other clauses follow.
    pub header: bool,
}

const LEAD_INS: &[&str] = &[
    "also",
    "please",
    "now",
    "finally",
    "next",
    "lastly",
    "first",
    "just",
    "if",
    "not",
    "otherwise",
    "else",
];

fn starts_with_action(text: &str) -> bool {
    let mut words = text.split_whitespace().map(|w| {
        w.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    });
    let mut w = words.next();
    while w.as_deref().is_some_and(|x| LEAD_INS.contains(&x)) {
        w = words.next();
    }
    w.is_some_and(|x| super::lexicon::lexicon().action_verbs.contains(&x))
}

/// "delete the originals" after "zip X" belongs to the archive step, not a step of its own.
fn about_originals(piece: &str) -> bool {
    let l = piece.to_lowercase();
    l.contains("the original") || l.contains("the source files") || l.contains("the uncompressed")
}

/// "tagged music, rename": a list goes on after a comma, even with a verb in it.
fn ends_in_a_list(piece: &str) -> bool {
    const LIST_WORDS: &[&str] = &["tagged", "tags", "labelled", "labels", "categories"];
    piece
        .split_whitespace()
        .rev()
        .take(3)
        .any(|w| LIST_WORDS.contains(&w.to_lowercase().as_str()))
}

/// Splits `request` into clauses.
pub fn split(request: &str) -> Vec<Clause> {
    let text = request.trim();
    let mut out = Vec::new();
    // Header: "X – Y", "X - Y", "X: Y" with something actionable after it.
    let mut body = text;
    for sep in [" – ", " — ", " - ", ": "] {
        if let Some((head, rest)) = text.split_once(sep)
            && !head.contains('"')
            && !rest.trim().is_empty()
            && head.split_whitespace().count() <= 8
        {
            out.push(Clause {
                text: head.trim().to_owned(),
                header: true,
            });
            body = rest;
            break;
        }
    }
    let mut parts: Vec<String> = vec![body.to_owned()];
    // Unconditional separators first, then conditional ones.
    for sep in [
        ";",
        ", and then ",
        " and then ",
        ", then ",
        " then ",
        ", after that ",
        " after that ",
        ", afterwards ",
        " afterwards ",
        ". ",
        "? ",
    ] {
        parts = parts.iter().flat_map(|p| split_ci(p, sep)).collect();
    }
    for sep in [", and ", " and ", ", ", " & ", " plus "] {
        parts = parts
            .iter()
            .flat_map(|p| {
                let pieces = split_ci(p, sep);
                // Re-join pieces that do not start with a verb onto the previous one.
                let mut joined: Vec<String> = Vec::new();
                for piece in pieces {
                    match joined.last_mut() {
                        Some(last)
                            if !starts_with_action(&piece)
                                || about_originals(&piece)
                                || ends_in_a_list(last) =>
                        {
                            last.push_str(sep);
                            last.push_str(&piece);
                        }
                        _ => joined.push(piece),
                    }
                }
                joined
            })
            .collect();
    }
    for p in parts {
        let mut t = p
            .trim()
            .trim_start_matches(|c: char| c == ',' || c.is_whitespace())
            .trim_end_matches(['.', ',', '!'])
            .trim();
        for lead in ["and then ", "then ", "and ", "after that ", "afterwards "] {
            if t.len() > lead.len() && t[..lead.len()].eq_ignore_ascii_case(lead) {
                t = t[lead.len()..].trim();
            }
        }
        if !t.is_empty() {
            out.push(Clause {
                text: t.to_owned(),
                header: false,
            });
        }
    }
    drop_fillers(&mut out);
    merge_qualifiers(&mut out);
    // "the desktop looks like a bomb went off, group everything by type": a first clause with
    // no action in it only says where.
    if out.len() >= 2 && !out[0].header && !has_action(&out[0].text) {
        out[0].header = true;
    }
    if out.len() == 1 {
        out[0].header = false;
    }
    out
}

/// `text` without `lead` (whole words, any case) at its start, when it starts with it.
fn strip_lead<'t>(text: &'t str, lead: &str) -> Option<&'t str> {
    let head = text.get(..lead.len())?;
    let rest = &text[lead.len()..];
    (head.eq_ignore_ascii_case(lead) && (rest.is_empty() || rest.starts_with([' ', ','])))
        .then(|| rest.trim_start_matches([' ', ',']))
}

/// "go ahead and sort it by type" says "sort it by type"; a clause of filler alone goes.
fn drop_fillers(clauses: &mut Vec<Clause>) {
    let lex = super::lexicon::lexicon();
    for c in clauses.iter_mut() {
        while let Some(rest) = lex
            .filler_leads
            .iter()
            .find_map(|lead| strip_lead(&c.text, lead))
        {
            c.text = rest.to_owned();
        }
    }
    clauses.retain(|c| !c.text.trim().is_empty());
}

/// A later clause that only qualifies the one before it: a negation ("don't move anything
/// yet"), a restriction with no verb of its own ("just the top 3"), "show me" with at most a
/// number, or no action at all.
fn qualifies_previous(text: &str) -> bool {
    let lex = super::lexicon::lexicon();
    if lex.negations.iter().any(|n| strip_lead(text, n).is_some()) {
        return true;
    }
    if let Some(rest) = lex
        .qualifier_leads
        .iter()
        .find_map(|lead| strip_lead(text, lead))
    {
        return !starts_with_action(rest);
    }
    asks_to_be_shown(text, true) || !has_action(text)
}

/// "show me" or "tell me", and with `numbered` maybe a number after it ("show me 5").
fn asks_to_be_shown(text: &str, numbered: bool) -> bool {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    let most = if numbered { 3 } else { 2 };
    (2..=most).contains(&words.len())
        && words[1] == "me"
        && super::lexicon::lexicon().look_verbs.contains(&words[0])
        && words[2..]
            .iter()
            .all(|w| w.chars().all(|c| c.is_ascii_digit()))
}

/// Joins every clause that only qualifies the one before onto it, and a leading "show me" onto
/// what it asks to see ("show me, what is in notes.txt").
fn merge_qualifiers(clauses: &mut Vec<Clause>) {
    let mut merged: Vec<Clause> = Vec::with_capacity(clauses.len());
    let mut lead_in: Option<String> = None;
    for mut c in clauses.drain(..) {
        if let Some(lead) = lead_in.take() {
            c.text = format!("{lead} {}", c.text);
        }
        if !c.header && asks_to_be_shown(&c.text, false) && merged.last().is_none_or(|p| p.header) {
            lead_in = Some(c.text.trim_end_matches([',', ' ']).to_owned());
            continue;
        }
        match merged.last_mut() {
            Some(prev) if !prev.header && !c.header && qualifies_previous(&c.text) => {
                prev.text.push_str(", ");
                prev.text.push_str(&c.text);
            }
            _ => merged.push(c),
        }
    }
    if let Some(lead) = lead_in {
        merged.push(Clause {
            text: lead,
            header: false,
        });
    }
    *clauses = merged;
}

/// An action verb anywhere, or a question (a question asks to look).
fn has_action(text: &str) -> bool {
    const QUESTION_WORDS: &[&str] = &[
        "what", "what's", "whats", "which", "how", "where", "who", "why", "is", "are", "do",
        "does", "can", "could",
    ];
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
        })
        .collect();
    words
        .first()
        .is_some_and(|w| QUESTION_WORDS.contains(&w.as_str()))
        || words
            .iter()
            .any(|w| super::lexicon::lexicon().action_verbs.contains(w))
}

/// Case-insensitive split on `sep` (ASCII separators only).
fn split_ci(text: &str, sep: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut last = 0;
    let mut from = 0;
    while let Some(i) = lower[from..].find(sep) {
        let at = from + i;
        out.push(text[last..at].to_owned());
        last = at + sep.len();
        from = last;
    }
    out.push(text[last..].to_owned());
    out.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(r: &str) -> Vec<String> {
        split(r)
            .into_iter()
            .map(|c| {
                if c.header {
                    format!("[header] {}", c.text)
                } else {
                    c.text
                }
            })
            .collect()
    }

    #[test]
    fn splits_on_sequencing_words_and_verb_led_ands() {
        assert_eq!(
            texts(
                "Clean up my Downloads folder – remove duplicates, then organize the remaining \
                 files into subfolders by type"
            ),
            [
                "[header] Clean up my Downloads folder",
                "remove duplicates",
                "organize the remaining files into subfolders by type"
            ]
        );
        assert_eq!(
            texts("find all .log files in Temp and delete them"),
            ["find all .log files in Temp", "delete them"]
        );
        // "and" between nouns stays inside the clause.
        assert_eq!(
            texts("move photos and videos to Media; after that zip Media"),
            ["move photos and videos to Media", "zip Media"]
        );
        assert_eq!(
            texts("remove duplicates in ~/Downloads and keep the newest copy"),
            ["remove duplicates in ~/Downloads and keep the newest copy"]
        );
        assert_eq!(
            texts("dedupe Pictures. Then sort Desktop by type"),
            ["dedupe Pictures", "sort Desktop by type"]
        );
        assert_eq!(texts("organize"), ["organize"]);
    }

    #[test]
    fn a_clause_that_only_qualifies_the_one_before_joins_it() {
        assert_eq!(
            texts("which notes talk about the garden shed? just the top 3"),
            ["which notes talk about the garden shed, just the top 3"]
        );
        assert_eq!(
            texts("which category would each file in Inbox go into? don't move anything yet"),
            ["which category would each file in Inbox go into, don't move anything yet"]
        );
        assert_eq!(
            texts("I can't remember what notes.rtf says, show me"),
            ["I can't remember what notes.rtf says, show me"]
        );
        assert_eq!(
            texts("what tools do you have for PDFs? show me 5"),
            ["what tools do you have for PDFs, show me 5"]
        );
        assert_eq!(
            texts("preview the type folders for Unsorted, then go ahead and sort it by type"),
            ["preview the type folders for Unsorted", "sort it by type"]
        );
        assert_eq!(
            texts("show me, what is in Notes/einkauf.txt"),
            ["show me what is in Notes/einkauf.txt"]
        );
        // A restriction followed by its own verb is a clause of its own.
        assert_eq!(
            texts("find the logs in Temp; just delete them"),
            ["find the logs in Temp", "just delete them"]
        );
    }
}
