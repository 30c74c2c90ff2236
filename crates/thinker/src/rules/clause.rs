//! Splitting a request into clauses, one action each: "then", "and then", ";", "after that", and
//! "and" / "," when an action verb follows. A leading "X – Y" or "X: Y" makes X a header that only
//! sets the place (or, naming a file, what the first step acts on). Action verbs are the lexicon's
//! and the first words of the skills' triggers.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

/// One action of the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clause {
    pub text: String,
    /// A summary before a dash or colon ("Clean up my Downloads folder – ..."): its places count,
    /// its verb does not when other clauses follow.
    pub header: bool,
    /// Said after "then", "after that" or "once that's done": a step of its own, never only a
    /// qualifier of the one before.
    pub sequenced: bool,
}

/// The verbs that start an action: the lexicon's and any the caller adds (the first words of the
/// skills' triggers, so a skill written in the editor splits requests too).
struct Verbs<'a> {
    extra: &'a BTreeSet<String>,
}

impl Verbs<'_> {
    fn is_action(&self, word: &str) -> bool {
        super::lexicon::lexicon().action_verbs.contains(word) || self.extra.contains(word)
    }
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

fn starts_with_action(text: &str, verbs: &Verbs) -> bool {
    let mut words = text.split_whitespace().map(|w| {
        w.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
    });
    let mut w = words.next();
    while w.as_deref().is_some_and(|x| LEAD_INS.contains(&x)) {
        w = words.next();
    }
    // "…, zip format": a verb naming a format is a noun there.
    let next = words.next();
    w.is_some_and(|x| verbs.is_action(&x)) && next.as_deref() != Some("format")
}

/// "into Paid and Open": a capitalised word after a capitalised name goes on naming, even when
/// it is also a verb.
fn names_go_on(last: &str, piece: &str) -> bool {
    let capitalised =
        |w: &str| w.starts_with(char::is_uppercase) && w.chars().skip(1).all(|c| c.is_lowercase());
    last.split_whitespace().nth(1).is_some()
        && last.split_whitespace().last().is_some_and(capitalised)
        && piece.split_whitespace().next().is_some_and(capitalised)
}

/// "don't need three versions of every song, just one each": what is not wanted is what to
/// remove (not "don't want to lose", and not "…, don't need it", which says why).
fn unwanted_removed(text: &str) -> String {
    let lex = super::lexicon::lexicon();
    let mut out = text.to_owned();
    for lead in &lex.unwanted_leads {
        let lower = out.to_lowercase();
        let Some(at) = lower.find(lead.as_str()) else {
            continue;
        };
        let after = &lower[at + lead.len()..];
        let next = after
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_matches(|c: char| !c.is_alphanumeric());
        let whole = (at == 0 || !lower[..at].ends_with(char::is_alphanumeric))
            && after.starts_with(' ')
            && next != "to"
            && !lex.back_references.contains(next)
            && !lex.possessives.contains(next);
        if whole {
            out.replace_range(at..at + lead.len(), "remove");
        }
    }
    out
}

/// "Photos/2024 needs an Iceland subfolder", "I need in Dokumente/Nebenkosten a subfolder named
/// Belege 2025": a folder someone needs is one to make, said as the skills say it.
fn folder_wished_for(text: &str) -> String {
    static PLACE_NEEDS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)^(?P<place>[^\s;,]+(?: [A-Z0-9][^\s;,]*)?) (?:needs|wants|could use|should get|should have) (?:an?|a new|one more|another) (?P<name>[^;,]+?) (?:sub ?folder|subdir|sub-folder|folder|directory|dir)\b",
        )
        .expect("a valid pattern")
    });
    static NEED_IN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)^(?:i )?(?:need|want) in (?P<place>\S+) (?:an?|a new|one more|another) (?:sub ?folders?|subdirs?|folders?|directory|dir) (?:named|namens|called) (?P<name>[^;,]+)",
        )
        .expect("a valid pattern")
    });
    if let Some(c) = PLACE_NEEDS
        .captures(text)
        .or_else(|| NEED_IN.captures(text))
    {
        let made = format!(
            "create a new subfolder named {} in {}",
            &c["name"], &c["place"]
        );
        let whole = c.get(0).expect("match").range();
        let mut out = text.to_owned();
        out.replace_range(whole, &made);
        return out;
    }
    text.to_owned()
}

/// "dedpue Pictrues then sort …": a first word one slip from an action verb is that action (the
/// part is a step, not a header); not one that is also said of files ("duplcate photso").
fn opens_with_a_misspelt_action(text: &str) -> bool {
    let Some(first) = text.split_whitespace().next() else {
        return false;
    };
    let w = first.to_lowercase();
    w.len() >= 5
        && w.chars().all(char::is_alphabetic)
        && !super::lexicon::lexicon().common_words.contains(&w)
        && super::lexicon::lexicon().action_verbs.iter().any(|v| {
            v.len() >= 5
                && super::normalize::osa_distance(&w, v) == 1
                && !super::lexicon::lexicon()
                    .verbs_before_a_target
                    .contains_key(v)
        })
}

/// "zoom-janitor", "invoice-zipper": one lower-case word joined with hyphens, as skills are named
/// (a folder's name is written with capitals or a slash).
fn looks_like_a_skill_name(text: &str) -> bool {
    let t = text.trim();
    t.contains('-')
        && !t.starts_with('-')
        && !t.ends_with('-')
        && t.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// "Podcasts/Raw files over 500MB → Archive/raw.zip": an arrow says where things go ("to"), or,
/// before an action ("x.zip → unpack to Pictures"), what comes next. A later part whose only
/// verb is the arrow ("…; whatever turns up → Archive/docs.zip") is a step of its own.
fn arrows_read(text: &str, verbs: &Verbs) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((at, arrow)) = ["→", "->", "=>", "⇒"]
        .iter()
        .filter_map(|a| rest.find(&format!(" {a} ")).map(|i| (i, *a)))
        .min()
    {
        out.push_str(&rest[..at]);
        let after = &rest[at + arrow.len() + 2..];
        if starts_with_action(after, verbs) {
            out.push_str(", then ");
        } else {
            if let Some(boundary) = out.rfind("; ").map(|i| i + 2)
                && !has_action(&out[boundary..], verbs)
            {
                out.insert_str(boundary, "then ");
            }
            out.push_str(" to ");
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// "…first and if it looks fine extract to Code/legacy-site": a condition followed by an action
/// is a step of its own, done when the condition holds (unless it is about a name that clashes,
/// which says how the step before behaves).
fn conditional_step(piece: &str, verbs: &Verbs) -> bool {
    let lex = super::lexicon::lexicon();
    let Some(rest) = lex
        .condition_leads
        .iter()
        .find_map(|lead| strip_lead(piece.trim(), lead))
    else {
        return false;
    };
    !about_a_clash(piece)
        && rest.split_whitespace().skip(1).any(|w| {
            verbs.is_action(
                &w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase(),
            )
        })
}

/// "where a name clashes" before its consequence: what follows says what to do about a clash.
fn clash_condition(piece: &str) -> bool {
    let lex = super::lexicon::lexicon();
    let piece = piece.trim();
    lex.condition_leads
        .iter()
        .any(|lead| strip_lead(piece, lead).is_some())
        && about_a_clash(piece)
}

/// Whether `text` speaks of a name already taken ("a name clashes", "it already exists").
pub(super) fn about_a_clash(text: &str) -> bool {
    let lex = super::lexicon::lexicon();
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
        })
        .any(|w| lex.clash_words.contains(&w))
}

/// "like" alone before a comma opens a restatement ("like, which years it comes from"): what
/// follows is not a clause of its own.
fn only_elaborates(piece: &str) -> bool {
    let piece = piece.trim();
    super::lexicon::lexicon()
        .elaboration_leads
        .iter()
        .any(|lead| lead.trim_end_matches(',').eq_ignore_ascii_case(piece))
}

/// "delete the originals" after "zip X" belongs to the archive step, not a step of its own.
fn about_originals(piece: &str) -> bool {
    let l = piece.to_lowercase();
    // "…, remove originals once packed" as well as "the originals".
    l.split(|c: char| !c.is_alphanumeric())
        .any(|w| w == "original" || w == "originals")
        || l.contains("the source files")
        || l.contains("the uncompressed")
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

/// Splits `request` into clauses with the lexicon's action verbs.
pub fn split(request: &str) -> Vec<Clause> {
    split_with(request, &BTreeSet::new())
}

/// Sequencing words: what follows one is a step of its own.
const SEQUENCERS: &[&str] = &[
    ", and then ",
    " and then ",
    ", then ",
    " then ",
    ", and after that ",
    " and after that ",
    ", after that ",
    " after that ",
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
    let mut out = Vec::new();
    // Header: "X – Y", "X - Y", "X: Y" with something actionable after it.
    let mut body = text;
    for sep in [" – ", " — ", " - ", ": "] {
        if let Some((head, rest)) = text.split_once(sep)
            && !head.contains('"')
            && !rest.trim().is_empty()
            && head.split_whitespace().count() <= 8
            // "by topic: Tax, Medical, Car" ends with a list, not a header.
            && !(sep == ": " && rest.contains(", ") && !has_action(rest, &verbs))
            // "zoom-janitor: teach yourself to …" names what to make, in the clause.
            && !(sep == ": " && looks_like_a_skill_name(head))
            // "tl;dr pls: Zotero/paper.pdf": the action, then what it is done to.
            && !(sep == ": " && has_action(head, &verbs) && !has_action(rest, &verbs))
            // "…, target: Backup/blog.tar.gz" says where, in the clause it ends.
            && !head
                .rsplit(|c: char| c.is_whitespace() || c == ',')
                .next()
                .is_some_and(|w| ["target", "to", "into", "as"].contains(&w.to_lowercase().as_str()))
        {
            out.push(Clause {
                text: head.trim().to_owned(),
                header: true,
                sequenced: false,
            });
            body = rest;
            break;
        }
    }
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
    for sep in [";", ". ", "? "] {
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
                            if !(starts_with_action(&piece, &verbs)
                                || conditional_step(&piece, &verbs))
                                || about_originals(&piece)
                                || ends_in_a_list(last)
                                || only_elaborates(last)
                                || clash_condition(last)
                                || names_go_on(last, &piece)
                                || changes_that_text(last, &piece) =>
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
        let mut sequenced = false;
        for lead in [
            "and then ",
            "then ",
            "and ",
            "after that ",
            "afterwards ",
            "after, ",
        ] {
            if t.len() > lead.len() && t[..lead.len()].eq_ignore_ascii_case(lead) {
                t = t[lead.len()..].trim();
                sequenced |= lead != "and ";
            }
        }
        if !t.is_empty() {
            out.push(Clause {
                text: t.to_owned(),
                header: false,
                sequenced,
            });
        }
    }
    drop_fillers(&mut out);
    merge_qualifiers(&mut out, &verbs);
    // "the desktop looks like a bomb went off, group everything by type": a first clause with
    // no action in it only says where.
    if out.len() >= 2
        && !out[0].header
        && !has_action(&out[0].text, &verbs)
        && !opens_with_a_misspelt_action(&out[0].text)
    {
        out[0].header = true;
    }
    name_what_it_means(&mut out, &verbs);
    say_what_to_clean_up(&mut out, &verbs);
    say_which_one(&mut out, &verbs);
    if out.len() == 1 {
        out[0].header = false;
    }
    out
}

/// "duplicate photos in Pictures/Family, find them and get rid of them": a header that only
/// names some files (no action, no statement about them) is what the next clause's "them" means,
/// said in its place: "find duplicate photos in Pictures/Family". So is what a header says there
/// is ("there's a pile of old stuff in Downloads, shift it to Archive").
fn name_what_it_means(clauses: &mut Vec<Clause>, verbs: &Verbs) {
    let [head, next, ..] = clauses.as_slice() else {
        return;
    };
    if !head.header {
        return;
    }
    let Some(named) = what_a_header_names(&head.text, verbs) else {
        return;
    };
    let lex = super::lexicon::lexicon();
    let words: Vec<&str> = next.text.split_whitespace().collect();
    let bare = |w: &str| {
        w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
            .to_lowercase()
    };
    let Some(at) = words
        .iter()
        .position(|w| lex.back_references.contains(&bare(w)))
    else {
        return;
    };
    // "dig it up" says "dig up <them>": the particle stays with its verb.
    let particle = words
        .get(at + 1)
        .filter(|w| lex.verb_particles.contains(&bare(w)));
    let mut text: Vec<String> = words[..at].iter().map(|w| (*w).to_owned()).collect();
    text.extend(particle.map(|p| (*p).to_owned()));
    text.push(words[at].replacen(&bare(words[at]), &named, 1));
    let after = at + 1 + usize::from(particle.is_some());
    text.extend(words[after..].iter().map(|w| (*w).to_owned()));
    clauses[1].text = text.join(" ");
    clauses.remove(0);
}

/// "I keep downloading the same installers twice, clean that up in Downloads": a clause whose
/// only action is a general one (tidy, clean up, fix) is about what the header says is wrong, so
/// the header's words count for it.
fn say_what_to_clean_up(clauses: &mut Vec<Clause>, verbs: &Verbs) {
    let [head, next, ..] = clauses.as_slice() else {
        return;
    };
    let lex = super::lexicon::lexicon();
    let actions: Vec<String> = next
        .text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| verbs.is_action(w))
        .collect();
    let general = !actions.is_empty() && actions.iter().all(|w| lex.general_verbs.contains(w));
    if head.header && general {
        let header = head.text.trim_end_matches([',', ':', ' ']).to_owned();
        clauses[1].text = format!("{}, {header}", clauses[1].text);
        clauses.remove(0);
    }
}

/// "can any of your skills send files by email? if none can, make one called mail-files": "one"
/// after an action is one of what the clause before asked about (a skill), said as such.
fn say_which_one(clauses: &mut [Clause], verbs: &Verbs) {
    let lex = super::lexicon::lexicon();
    for i in 1..clauses.len() {
        let asked_about = clauses[i - 1].text.split_whitespace().find_map(|w| {
            let w = w
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            lex.agent_nouns
                .contains(&w)
                .then(|| w.trim_end_matches('s').to_owned())
        });
        let Some(noun) = asked_about else {
            continue;
        };
        let words: Vec<&str> = clauses[i].text.split_whitespace().collect();
        let at = words.windows(2).position(|pair| {
            verbs.is_action(&pair[0].to_lowercase())
                && pair[1]
                    .trim_end_matches([',', '.', '?', '!'])
                    .eq_ignore_ascii_case("one")
        });
        if let Some(at) = at {
            let mut text: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
            text[at + 1] = text[at + 1]
                .to_lowercase()
                .replacen("one", &format!("a new {noun}"), 1);
            clauses[i].text = text.join(" ");
        }
    }
}

/// The files a header names: all of it when it says nothing about them ("duplicate photos in
/// Pictures/Family"), what it says there is ("somewhere in Documents there's a letter about the
/// boiler"), or nothing ("the desktop looks like a bomb went off").
fn what_a_header_names(header: &str, verbs: &Verbs) -> Option<String> {
    let lex = super::lexicon::lexicon();
    let words: Vec<&str> = header
        .trim_end_matches([',', ':', ' '])
        .split_whitespace()
        .collect();
    let lower: Vec<String> = words
        .iter()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
        })
        .collect();
    let states = |w: &String| {
        lex.statement_verbs.contains(w)
            || w.split_once('\'')
                .is_some_and(|(_, end)| lex.statement_verbs.contains(&format!("'{end}")))
    };
    // "there's", "there is", "there are": what follows is what there is.
    let there = lower
        .iter()
        .position(|w| w == "there" || w.starts_with("there'"));
    if let Some(at) = there {
        let joined = lower[at] != "there";
        let skip = if joined { 1 } else { 2 };
        if joined || lower.get(at + 1).is_some_and(states) {
            let rest: Vec<&str> = words[..at]
                .iter()
                .chain(&words[(at + skip).min(words.len())..])
                .copied()
                .collect();
            let rest_lower: Vec<String> = lower[..at]
                .iter()
                .chain(&lower[(at + skip).min(lower.len())..])
                .cloned()
                .collect();
            return (!rest.is_empty() && !rest_lower.iter().any(states)).then(|| rest.join(" "));
        }
    }
    // "Logs/app is full of 0-byte junk files", ".part files are littering ~/Downloads": the
    // files said to fill or clutter a place, in that place.
    if let Some(v) = lower.iter().position(states).filter(|v| *v > 0) {
        let subject = words[..v].join(" ");
        let (rest, rest_lower) = (&words[v + 1..], &lower[v + 1..]);
        let names_a_place =
            |w: &&str| w.contains('/') || w.starts_with(|c: char| c == '~' || c.is_uppercase());
        if rest_lower.len() > 2 && rest_lower[0] == "full" && rest_lower[1] == "of" {
            return Some(format!("{} in {subject}", rest[2..].join(" ")));
        }
        // "somewhere in Documents is that tax office letter about my refund": what is in a
        // place said first.
        if matches!(lower[0].as_str(), "somewhere" | "in") && !rest.is_empty() {
            let place = words[..v]
                .iter()
                .skip_while(|w| w.eq_ignore_ascii_case("somewhere"))
                .copied()
                .collect::<Vec<_>>()
                .join(" ");
            return Some(format!("{} {place}", rest.join(" ")));
        }
        if rest_lower.first().is_some_and(|w| w.ends_with("ing")) {
            let place: Vec<&str> = rest[1..]
                .iter()
                .skip_while(|w| ["up", "in", "on", "the"].contains(&w.to_lowercase().as_str()))
                .copied()
                .collect();
            if place.first().is_some_and(names_a_place) {
                return Some(format!("{subject} in {}", place.join(" ")));
            }
        }
    }
    (!has_action(header, verbs) && !lower.iter().any(states)).then(|| words.join(" "))
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
fn qualifies_previous(c: &Clause, verbs: &Verbs) -> bool {
    let text = c.text.as_str();
    let lex = super::lexicon::lexicon();
    if lex.negations.iter().any(|n| strip_lead(text, n).is_some()) {
        return true;
    }
    if !c.sequenced
        && lex
            .elaboration_leads
            .iter()
            .any(|n| strip_lead(text, n).is_some())
    {
        return true;
    }
    // "…; where a name's already used, leave that file alone": a condition whose consequence
    // asks for no action of its own says how the step before behaves; so does one about names
    // that clash, whatever it says to do ("where a name clashes, rename the incoming file").
    if let Some(rest) = lex
        .condition_leads
        .iter()
        .find_map(|lead| strip_lead(text, lead))
        && let Some((condition, consequence)) = rest.split_once(", ")
    {
        return about_a_clash(condition) || !starts_with_action(consequence, verbs);
    }
    // "…; ask me whenever a name clashes": what to do when a name is taken, said first.
    let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
    if about_a_clash(text)
        && lex.condition_leads.iter().any(|lead| {
            let lead: Vec<&str> = lead.split(' ').collect();
            words.windows(lead.len()).any(|w| w.iter().eq(lead.iter()))
        })
    {
        return true;
    }
    if let Some(rest) = lex
        .qualifier_leads
        .iter()
        .find_map(|lead| strip_lead(text, lead))
    {
        return !starts_with_action(rest, verbs);
    }
    asks_to_be_shown(text, true) || !c.sequenced && !has_action(text, verbs)
}

/// "the photo names start with DSC; make that Porto instead", "names all start with 'Copy of ',
/// strip that bit off": "that" is the text the part before says the names have.
fn changes_that_text(before: &str, piece: &str) -> bool {
    static SAYS_TEXT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:starts?|ends?) with \S+|\S+ (?:everywhere|all over)$")
            .expect("a valid pattern")
    });
    static CHANGES_THAT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)^(?:make|change|turn|replace|strip|remove|drop|cut|lose|take) (?:that|it|this)\b",
        )
        .expect("a valid pattern")
    });
    SAYS_TEXT.is_match(before.trim_end_matches([',', ';', ' ']))
        && CHANGES_THAT.is_match(piece.trim())
}

/// "are there identical copies in X, and how many MB are they costing me": a question about what
/// the question before found ("they", no place of its own) asks more of the same step.
fn asks_more_about(prev: &Clause, c: &Clause) -> bool {
    let lex = super::lexicon::lexicon();
    let words = |t: &str| -> Vec<String> {
        t.split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                    .to_lowercase()
            })
            .collect()
    };
    let (before, now) = (words(&prev.text), words(&c.text));
    let question = |ws: &[String]| {
        ws.first()
            .is_some_and(|w| QUESTION_WORDS.contains(&w.as_str()))
    };
    question(&before)
        && question(&now)
        && !c.sequenced
        && !c.text.contains('/')
        && now.iter().any(|w| lex.back_references.contains(w))
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
fn merge_qualifiers(clauses: &mut Vec<Clause>, verbs: &Verbs) {
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
            Some(prev)
                if !prev.header
                    && !c.header
                    && (qualifies_previous(&c, verbs)
                        || asks_more_about(prev, &c)
                        || changes_that_text(&prev.text, &c.text)) =>
            {
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
            sequenced: false,
        });
    }
    *clauses = merged;
}

/// `text` without what it says not to do: from a negation ("don't", "without") to the end of
/// its part of the sentence ("which files are packed in x.tar.zst, don't unpack it" asks to look,
/// not to unpack). The whole text when nothing else is left.
pub fn without_negations(text: &str) -> String {
    leave_out(text, false)
}

/// What the clause asks for: `text` without its negations and without a condition said after
/// the action, to the end of its part ("unzip it into Restore, and if a name is taken keep both
/// by renaming" is an extraction; the condition still chooses values).
pub fn affirmed(text: &str) -> String {
    leave_out(text, true)
}

fn leave_out(text: &str, conditions: bool) -> String {
    let lex = super::lexicon::lexicon();
    let mut out = String::new();
    let mut skipping = false;
    // Whether a negation was left out ("don't extract it yet" is never the action).
    let mut negated = false;
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let rest = words[i..].join(" ");
        let after_a_break = i > 0
            && (words[i - 1].ends_with(',')
                || ["and", "but", "or"].contains(&words[i - 1].to_lowercase().as_str()));
        // "…, only files over 20 MB matter": a restriction after a break narrows the step (its
        // values count) but says nothing about which step it is.
        let condition = conditions
            && after_a_break
            && lex
                .condition_leads
                .iter()
                .chain(&lex.qualifier_leads)
                .any(|n| strip_lead(&rest, n).is_some());
        let negation = lex.negations.iter().any(|n| strip_lead(&rest, n).is_some());
        if !skipping && (condition || negation) {
            skipping = true;
            negated |= negation;
            // "…, where a name clashes, rename the incoming file": what to do about a clash
            // is how the step behaves, to the end of the clause.
            if condition && about_a_clash(&rest) {
                break;
            }
        }
        let w = words[i];
        if !skipping {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(w);
        }
        if w.ends_with([',', ';', '.', '?', '!']) {
            skipping = false;
        }
        i += 1;
    }
    let out = out.trim().trim_end_matches([',', ';']).trim().to_owned();
    // "X.jpg is the first dance, name it first-dance.jpg": what is left out was the only action.
    let acts = |t: &str| {
        let l = t.to_lowercase();
        l.contains("name it ")
            || l.contains("call it ")
            || l.split_whitespace().any(|w| {
                lex.action_verbs
                    .contains(w.trim_matches(|c: char| !c.is_alphanumeric()))
            })
    };
    if out.split_whitespace().count() < 2 || conditions && !negated && !acts(&out) && acts(text) {
        text.to_owned()
    } else {
        out
    }
}

/// Words that open a question.
const QUESTION_WORDS: &[&str] = &[
    "what", "what's", "whats", "which", "how", "where", "who", "why", "when", "is", "are", "do",
    "does", "can", "could",
];

/// Whether `word` opens a question (a trigger's first word that is no verb).
pub(super) fn is_question_word(word: &str) -> bool {
    QUESTION_WORDS.contains(&word)
}

/// An action verb anywhere, or a question (a question asks to look).
fn has_action(text: &str, verbs: &Verbs) -> bool {
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
        || words.iter().enumerate().any(|(i, w)| {
            // "biggest file wins", "the file": a verb after a determiner or a superlative is
            // a noun there.
            let noun = i > 0
                && (NOUN_MARKERS.contains(&words[i - 1].as_str()) || words[i - 1].ends_with("est"));
            verbs.is_action(w) && !noun && words.get(i + 1).is_none_or(|n| n != "format")
        })
}

/// Words after which a verb is a noun ("the file", "every copy").
const NOUN_MARKERS: &[&str] = &[
    "the", "a", "an", "each", "every", "this", "that", "my", "your",
];

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
        // An arrow is "to", or "then" before an action.
        assert_eq!(
            texts("Downloads/pics.zip → unpack to Pictures/Anna, then dedupe there"),
            [
                "[header] Downloads/pics.zip",
                "unpack to Pictures/Anna",
                "dedupe there"
            ]
        );
        assert_eq!(
            texts("Podcasts/Raw files over 500MB → Archive/raw.zip"),
            ["Podcasts/Raw files over 500MB to Archive/raw.zip"]
        );
        assert_eq!(
            texts("hunt for docs about the move; whatever turns up → Archive/docs.zip"),
            [
                "hunt for docs about the move",
                "whatever turns up to Archive/docs.zip"
            ]
        );
        // "make that …" after text the names have changes that text, in the same step.
        assert_eq!(
            texts("in Pictures/Porto the photo names start with DSC; make that Porto instead"),
            ["in Pictures/Porto the photo names start with DSC, make that Porto instead"]
        );
        assert_eq!(
            texts("Drive/Docs names all start with 'Copy of ', strip that bit off"),
            ["Drive/Docs names all start with 'Copy of ', strip that bit off"]
        );
        // A misspelt action opening the request is a step.
        assert_eq!(
            texts("dedpue Pictrues then sort downlods by tyep"),
            ["dedpue Pictrues", "sort downlods by tyep"]
        );
        // A folder someone needs is one to make.
        assert_eq!(
            texts("Photos/2024 needs an Iceland subfolder; copy Camera/SD Card into it"),
            [
                "create a new subfolder named Iceland in Photos/2024",
                "copy Camera/SD Card into it"
            ]
        );
        assert_eq!(
            texts("Tax Stuff wants a Receipts 2024 subdir"),
            ["create a new subfolder named Receipts 2024 in Tax Stuff"]
        );
        // What is not wanted is what to remove.
        assert_eq!(
            texts("don't need three versions of every song in Music, just one each"),
            ["remove three versions of every song in Music, just one each"]
        );
        assert_eq!(
            texts("trash Desktop/old.docx, don't need it"),
            ["trash Desktop/old.docx, don't need it"]
        );
        assert_eq!(
            texts("I don't want to lose Writing/Novel, copy it to Backup"),
            ["I don't want to lose Writing/Novel", "copy it to Backup"]
        );
        // A superlative before a verb makes it a noun: "biggest file wins" qualifies.
        assert_eq!(
            texts("dedupe Music; biggest file wins"),
            ["dedupe Music, biggest file wins"]
        );
        // A question about what the question before found asks more of it.
        assert_eq!(
            texts("are there identical copies in Backup/Old, and how many MB are they costing me"),
            ["are there identical copies in Backup/Old, how many MB are they costing me"]
        );
        // A condition followed by an action is a step of its own.
        assert_eq!(
            texts("look in Archive/old.tar.gz first and if it looks fine extract to Code/old"),
            [
                "look in Archive/old.tar.gz first",
                "if it looks fine extract to Code/old"
            ]
        );
        // An action before a colon and only its object after it is one clause.
        assert_eq!(
            texts("tl;dr pls: Zotero/paper.pdf"),
            ["tldr pls: Zotero/paper.pdf"]
        );
        // A colon after "target" says where, inside the clause.
        assert_eq!(
            texts("Projekte/Blog please as tar.gz archive back up, target: Backup/blog.tar.gz"),
            ["Projekte/Blog please as tar.gz archive back up, target: Backup/blog.tar.gz"]
        );
    }

    #[test]
    fn what_a_clause_says_not_to_do_is_left_out_of_matching() {
        assert_eq!(
            without_negations("which files are packed in mail.tar.zst, don't unpack it"),
            "which files are packed in mail.tar.zst"
        );
        assert_eq!(
            without_negations(
                "analyze Backup but don't bother checking for duplicates, the tree is huge"
            ),
            "analyze Backup the tree is huge"
        );
        assert_eq!(
            without_negations("zip Photos without deleting the originals"),
            "zip Photos"
        );
        assert_eq!(without_negations("don't"), "don't");
        // A condition after the action says how it behaves; one that opens the clause may be
        // the first step.
        assert_eq!(
            affirmed(
                "extract x.zip into Restore, and if a name is already taken there keep both by \
                 renaming the new one"
            ),
            "extract x.zip into Restore, and"
        );
        assert_eq!(
            affirmed("if there are duplicates in Music delete them"),
            "if there are duplicates in Music delete them"
        );
        // What is left out is kept when it was the only action.
        assert_eq!(
            affirmed("Photos/DSC_4410.jpg is the first dance, name it first-dance.jpg"),
            "Photos/DSC_4410.jpg is the first dance, name it first-dance.jpg"
        );
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
        assert_eq!(
            texts("is there duplicate junk in ~/Music/Live Sets? only files over 20 MB matter"),
            ["is there duplicate junk in ~/Music/Live Sets, only files over 20 MB matter"]
        );
        assert_eq!(
            texts(
                "I'd like Clients/Hoffmann as a single compressed bundle I can email, zip format"
            ),
            ["I'd like Clients/Hoffmann as a single compressed bundle I can email, zip format"]
        );
        assert_eq!(
            texts("dedupe the .wav files in Music biger then 50MB, then zip Music"),
            [
                "dedupe the .wav files in Music biger than 50MB",
                "zip Music"
            ]
        );
        // A restriction followed by its own verb is a clause of its own.
        assert_eq!(
            texts("find the logs in Temp; just delete them"),
            ["find the logs in Temp", "just delete them"]
        );
        // A restatement, and a condition whose consequence is no action of its own.
        assert_eq!(
            texts("roughly how old is everything in Old Stuff? like, which years it comes from"),
            ["roughly how old is everything in Old Stuff, like, which years it comes from"]
        );
        assert_eq!(
            texts("sort To Sort by type; where a name's already used, leave that file alone"),
            ["sort To Sort by type, where a name's already used, leave that file alone"]
        );
        assert_eq!(
            texts("unpack kit.zip to Work/Brand; where a name clashes, rename the incoming file"),
            ["unpack kit.zip to Work/Brand, where a name clashes, rename the incoming file"]
        );
        assert_eq!(
            texts("split the invoices into Paid and Open by what they say"),
            ["split the invoices into Paid and Open by what they say"]
        );
        // A consequence that is an action stays a step.
        assert_eq!(
            texts("scan Downloads; if there are duplicates, delete them"),
            ["scan Downloads, if there are duplicates", "delete them"]
        );
    }

    #[test]
    fn a_header_naming_files_is_what_the_next_clause_means_by_them() {
        assert_eq!(
            texts("old logs in Downloads, find them and delete them"),
            ["find old logs in Downloads", "delete them"]
        );
        assert_eq!(
            texts("there's a pile of old stuff in Downloads, shift it over to Archive/Stale"),
            ["shift over a pile of old stuff in Downloads to Archive/Stale"]
        );
        assert_eq!(
            texts("Work/Reports stuff untouched since 2022: bundle it as Archive/old.zip"),
            ["bundle Work/Reports stuff untouched since 2022 as Archive/old.zip"]
        );
        // What a place is said to be full of, or cluttered with.
        assert_eq!(
            texts("Logs/app is full of 0-byte junk files; remove those, then list Logs/app"),
            ["remove 0-byte junk files in Logs/app", "list Logs/app"]
        );
        assert_eq!(
            texts("old .part files are littering ~/Downloads, trash those"),
            ["trash old .part files in ~/Downloads"]
        );
        // "one" after an action is one of what the clause before asked about.
        assert_eq!(
            texts(
                "can any of your skills send files by email? if none can, make one called mail-files"
            ),
            [
                "can any of your skills send files by email, if none can",
                "make a new skill called mail-files"
            ]
        );
        // A statement about a place is no name for what "it" means.
        assert_eq!(
            texts("the desktop looks like a bomb went off, sort it by type"),
            [
                "[header] the desktop looks like a bomb went off",
                "sort it by type"
            ]
        );
        // But what it says is wrong is what a general "clean that up" means.
        assert_eq!(
            texts("I keep downloading the same installers twice, clean that up in Downloads"),
            ["clean that up in Downloads, I keep downloading the same installers twice"]
        );
    }
}
