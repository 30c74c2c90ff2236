//! Cutting a request into clauses: a header, then pieces at sequencing words, sentence ends and
//! "and" / "," before an action.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

use super::*;

/// Splits `request` into clauses with the lexicon's action verbs.
pub fn split(request: &str) -> Vec<Clause> {
    split_with(request, &BTreeSet::new())
}

/// Sequencing words: what follows one is a step of its own.
const SEQUENCERS: &[&str] = &[
    // "duplicate it into Backup/Camino, and only then give every day its own folder".
    ", and only then ",
    " and only then ",
    ", and then ",
    " and then ",
    ", then ",
    " then ",
    ", and after that ",
    " and after that ",
    ", after that ",
    " after that ",
    // "What files does X have? After that, read me …" (not "afterwards,": "the folder can go
    // afterwards, it's all handed in" ends a part with it).
    " after that, ",
    ", and afterwards ",
    " and afterwards ",
    ", afterwards ",
    " afterwards ",
    ", and once that's done ",
    ", once that's done ",
    " once that's done ",
    ", and when that's done ",
    " when that's done ",
    ", after which ",
    " after which ",
];

/// Splits `request` into clauses; `extra_verbs` start actions too.
pub fn split_with(request: &str, extra_verbs: &BTreeSet<String>) -> Vec<Clause> {
    // "jot 'order Citra, check FG on day 10' into todo.txt": what is quoted is said whole, its
    // commas split nothing.
    let mut held: Vec<String> = Vec::new();
    let request = crate::rules::extract::QUOTED.replace_all(request, |c: &regex::Captures| {
        let quote = c[0].to_owned();
        if quote.contains([',', ';']) {
            held.push(quote);
            format!("⟪{}⟫", held.len() - 1)
        } else {
            quote
        }
    });
    let request = paths_in_brackets_as_asides(&request);
    let request = copies_said_from_where_they_go(&request);
    let mut clauses = split_unquoted(&request, extra_verbs);
    for c in &mut clauses {
        for (i, quote) in held.iter().enumerate() {
            c.text = c.text.replace(&format!("⟪{i}⟫"), quote);
        }
    }
    clauses
}

/// "Backup/Canoe gets a copy of Pictures/Canoe trip first; after that, …": a copy said from
/// where it goes is that copy said the usual way round ("copy Pictures/Canoe trip first to
/// Backup/Canoe").
fn copies_said_from_where_they_go(request: &str) -> String {
    static GETS_A_COPY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)(^|[\s,;:]|so\s)(\S+/\S+)\s+(?:gets|get|should get|can get|receives)\s+(?:a|an)\s+(?:copy|duplicate|backup)\s+of\s+([^,;.!?]+)",
        )
        .expect("a valid pattern")
    });
    GETS_A_COPY
        .replace_all(request, |c: &regex::Captures| {
            format!("{}copy {} to {}", &c[1], c[3].trim_end(), &c[2])
        })
        .into_owned()
}

/// "my bike rides (Pictures/Bike rides) should get …": a folder said in brackets is a name said
/// whole, as if quoted; brackets inside a file's name ("report (1).pdf") and around kinds
/// ("(jpg/png)") stay.
fn paths_in_brackets_as_asides(request: &str) -> String {
    static PATH_IN_BRACKETS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(^|\s)\(([^()\s/"]+/[^()"]*?)\)([\s,;:.!?]|$)"#).expect("a valid pattern")
    });
    static KINDS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^[[:alnum:]]{1,5}(?:/[[:alnum:]]{1,5})+$").expect("a valid pattern")
    });
    PATH_IN_BRACKETS
        .replace_all(request, |c: &regex::Captures| {
            if KINDS.is_match(&c[2]) {
                c[0].to_owned()
            } else {
                format!("{}\"{}\"{}", &c[1], &c[2], &c[3])
            }
        })
        .into_owned()
}

fn split_unquoted(request: &str, extra_verbs: &BTreeSet<String>) -> Vec<Clause> {
    let verbs = Verbs { extra: extra_verbs };
    // "biger then 50MB": "then" between a comparison and a number is a misspelt "than", not
    // the start of a step.
    static THEN_FOR_THAN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(\w+er|more|less)\s+then(\s+\d)").expect("a valid pattern")
    });
    let text = THEN_FOR_THAN.replace_all(request.trim(), "$1 than$2");
    // "tl;dr" is one word, not two clauses; "re:" is "about", not a header.
    let text = text
        .replace("tl;dr", "tldr")
        .replace("TL;DR", "tldr")
        .replace(" re: ", " about ");
    let text = arrows_read(&text, &verbs);
    let text = unwanted_removed(&text);
    let text = folder_wished_for(&text);
    let text = text.as_str();
    let (header, body) = header_of(text, &verbs);
    let mut out: Vec<Clause> = header.into_iter().collect();
    for p in pieces(body, &verbs) {
        let t = p
            .trim()
            .trim_start_matches(|c: char| c == ',' || c.is_whitespace());
        // "scan0001.tif, scan0002.tif...": an ellipsis says "and so on", no full stop.
        let mut t = if t.ends_with("...") {
            t
        } else {
            t.trim_end_matches(['.', ',', '!']).trim()
        };
        let mut sequenced = false;
        for lead in [
            "and then ",
            "and then, ",
            "then, ",
            "afterwards, ",
            "after that, ",
            "then ",
            "and ",
            "plus ",
            "after that ",
            "afterwards ",
            "after, ",
        ] {
            // `get`: a clause may start with a letter of two bytes ("Résumé/…").
            if t.len() > lead.len()
                && t.get(..lead.len())
                    .is_some_and(|h| h.eq_ignore_ascii_case(lead))
            {
                t = t[lead.len()..].trim();
                sequenced |= lead != "and " && lead != "plus ";
            }
        }
        // "…? if nothing existing fits, build watermark-photos": a step done on a condition
        // is a step of its own, never the rest of the one before.
        sequenced |= conditional_step(t, &verbs);
        if !t.is_empty() {
            out.push(Clause {
                text: t.to_owned(),
                header: false,
                sequenced,
            });
        }
    }
    drop_fillers(&mut out);
    say_what_is_gone_through(&mut out);
    merge_qualifiers(&mut out, &verbs);
    // "the desktop looks like a bomb went off, group everything by type": a first clause with
    // no action in it only says where.
    if out.len() >= 2
        && !out[0].header
        && !has_action(&out[0].text, &verbs)
        && !says_an_action_in_a_phrase(&out[0].text, &verbs)
        && !opens_with_a_misspelt_action(&out[0].text)
        && !asks_what_the_agent_can_do(&out[0].text)
        // "Unity/Projects total size? plus squash …": a question is asked, not where.
        && !out[0].text.ends_with('?')
        && !text.contains(&format!("{}?", out[0].text))
    {
        out[0].header = true;
    }
    // "before I unzip Downloads/drama-scripts.zip, which files are in it?": what will be done
    // later only says what the rest is about.
    if !out.is_empty()
        && !out[0].header
        && crate::rules::lexicon::lexicon()
            .later_leads
            .iter()
            .any(|lead| strip_lead(&out[0].text, lead).is_some())
    {
        // "before I unzip X, what's inside it?" is one part with no action of its own after
        // the comma: the part before the comma says what the rest is about.
        if out.len() == 1
            && let Some((later, rest)) = out[0].text.split_once(", ")
        {
            let rest = Clause {
                text: rest.to_owned(),
                header: false,
                sequenced: false,
            };
            out[0].text = later.to_owned();
            out.push(rest);
        }
        out[0].header = out.len() >= 2;
    }
    keep_with_what_goes(&mut out, &verbs);
    name_what_it_means(&mut out, &verbs);
    say_what_to_clean_up(&mut out, &verbs);
    say_which_one(&mut out, &verbs);
    if out.len() == 1 {
        out[0].header = false;
    }
    out
}

/// A leading "X – Y", "X - Y" or "X: Y" with something actionable after it: X as a header, and
/// the body after it (all of `text` when there is none).
fn header_of<'t>(text: &'t str, verbs: &Verbs) -> (Option<Clause>, &'t str) {
    // Header: "X – Y", "X - Y", "X: Y" with something actionable after it.
    for sep in [" – ", " — ", " - ", ": "] {
        if let Some((head, rest)) = text.split_once(sep)
            && !head.contains('"')
            && !rest.trim().is_empty()
            // A dash sets off a longer heading when an action opens what follows ("the
            // Pictures/Phone backup folder holds pictures going back to 2016 — give every year
            // its own folder").
            && (head.split_whitespace().count() <= 8
                || matches!(sep, " – " | " — ")
                    && head.split_whitespace().count() <= 14
                    && starts_with_action(rest, verbs)
                    && !rest
                        .split_whitespace()
                        .next()
                        .is_some_and(|w| is_question_word(&bare_word(w))))
            // "by topic: Tax, Medical, Car" ends with a list, not a header.
            && !(sep == ": " && rest.contains(", ") && !has_action(rest, verbs))
            // "zoom-janitor: teach yourself to …" names what to make, in the clause.
            && !(sep == ": " && looks_like_a_skill_name(head))
            // "tl;dr pls: Zotero/paper.pdf": the action, then what it is done to; "delete
            // X.wav — I kept take 3": the action, then a remark on it.
            // "roll X into Y.tar — plain tar, no compression": a remark after an action.
            && (!has_action(head, verbs)
                || starts_with_action(rest, verbs)
                // "räum Downloads auf: erst Duplikate weg, dann …": steps in order after it.
                || has_action(rest, verbs)
                    && SEQUENCERS.iter().any(|s| rest.to_lowercase().contains(s)))
            // "PhD/Literature/Nguyen 2024 - soil microbiome.pdf": a dash inside a file's name.
            && !(sep != " — " && sep != ": " && dash_inside_a_name(head, rest))
            // "…, target: Backup/blog.tar.gz" says where, in the clause it ends.
            && !head
                .rsplit(|c: char| c.is_whitespace() || c == ',')
                .next()
                .is_some_and(|w| ["target", "to", "into", "as"].contains(&w.to_lowercase().as_str()))
        {
            let header = Clause {
                text: head.trim().to_owned(),
                header: true,
                sequenced: false,
            };
            return (Some(header), rest);
        }
    }
    (None, text)
}

/// The body cut at sequencing words, sentence ends, and "and" / "," before an action; a piece
/// after a sequencing word opens with "then".
fn pieces(body: &str, verbs: &Verbs) -> Vec<String> {
    let mut parts: Vec<String> = vec![body.to_owned()];
    // Unconditional separators first (a sequencing word stays as the piece's first word, to mark
    // it), then conditional ones.
    for sep in SEQUENCERS {
        parts = parts
            .iter()
            .flat_map(|p| {
                split_ci(p, sep)
                    .into_iter()
                    .enumerate()
                    .map(|(i, piece)| {
                        if i == 0 {
                            piece
                        } else {
                            format!("then {piece}")
                        }
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
    }
    for sep in [";", ". ", "? ", "! "] {
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
                            if !(starts_with_action(&piece, verbs)
                                || conditional_step(&piece, verbs))
                                || about_originals(&piece)
                                || ends_in_a_list(last)
                                || only_elaborates(last)
                                || clash_condition(last)
                                || conditions_a_question(last, &piece)
                                || names_go_on(last, &piece)
                                || changes_that_text(last, &piece) =>
                        {
                            last.push_str(sep);
                            last.push_str(&piece);
                        }
                        // "… for that? if not, create one called x": a condition with no
                        // action of its own says nothing a plan can do; the action after it is
                        // the step.
                        Some(last) if only_a_condition(last, verbs) => *last = piece,
                        _ => joined.push(piece),
                    }
                }
                joined
            })
            .collect();
    }
    parts
}

/// Words written with a full stop that ends no sentence.
const ABBREVIATIONS: &[&str] = &[
    "e.g", "i.e", "eg", "ie", "etc", "vs", "v", "approx", "ca", "mr", "mrs", "ms", "dr", "st",
    "no", "nr",
];

/// Case-insensitive split on `sep` (ASCII separators only).
fn split_ci(text: &str, sep: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let mut out = Vec::new();
    let mut last = 0;
    let mut from = 0;
    while let Some(i) = lower[from..].find(sep) {
        let at = from + i;
        // "e.g. contract_EN.docx", "Okonkwo v. Hartley": an abbreviation's full stop ends no
        // sentence.
        if sep == ". " {
            let before = lower[..at].rsplit(' ').next().unwrap_or_default();
            if ABBREVIATIONS.contains(&before) {
                from = at + sep.len();
                continue;
            }
        }
        // "anything older can then be binned": "then" between a modal and its verb says when.
        if sep == " then " {
            let before = lower[..at].rsplit(' ').next().unwrap_or_default();
            if [
                "can", "could", "should", "will", "would", "may", "might", "must",
            ]
            .contains(&before)
            {
                from = at + sep.len();
                continue;
            }
        }
        // "is anything stored twice in X? don't delete anything": a question stays one, whatever
        // is said after it.
        let kept = if sep == "? " { at + 1 } else { at };
        out.push(text[last..kept].to_owned());
        last = at + sep.len();
        from = last;
    }
    out.push(text[last..].to_owned());
    out.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// A word without its punctuation, in lower case ("Which?" → "which").
fn bare_word(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}
