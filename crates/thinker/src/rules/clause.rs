//! Splitting a request into clauses, one action each: "then", "and then", ";", "after that", and
//! "and" / "," when an action verb follows. A leading "X – Y" or "X: Y" makes X a header that only
//! sets the place (or, naming a file, what the first step acts on). Action verbs are the lexicon's
//! and the first words of the skills' triggers.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

mod action;
mod heading;
mod joins;
mod kept;
mod split;
use action::*;
pub(super) use action::{NOUN_MARKERS, is_question_word};
use heading::what_a_header_names;
use joins::*;
use kept::keep_with_what_goes;
pub use split::{split, split_with};

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
    /// Whether `word` is an action: a verb of the lexicon or a skill's trigger, or a casual
    /// word for a change ("squash" is "compress", "yeet" is "delete"; "gimme" still asks to be
    /// shown what the part before asked about).
    fn is_action(&self, word: &str) -> bool {
        let lex = super::lexicon::lexicon();
        lex.action_verbs.contains(word)
            || self.extra.contains(word)
            || lex
                .synonyms
                .get(word)
                .is_some_and(|s| lex.change_verbs.contains(s))
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
        || opens_with_an_action_noun(text)
}

/// "a short summary of each quote in X", "a copy of X for Y", "total size of Voice Memos?": a
/// part that opens with a noun asking for its action (after an article and up to two words
/// saying which), with "of" after it, asks for that action.
fn opens_with_an_action_noun(text: &str) -> bool {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .skip_while(|w| LEAD_INS.contains(&w.as_str()) || matches!(w.as_str(), "and" | "then"))
        .take(5)
        .collect();
    let nouns = &super::lexicon::lexicon().action_nouns;
    let start = usize::from(
        words
            .first()
            .is_some_and(|w| matches!(w.as_str(), "a" | "an" | "the" | "one" | "my")),
    );
    (start..words.len().min(start + 3)).any(|i| {
        nouns.contains(&words[i])
            && words.get(i + 1).is_some_and(|w| w == "of")
            && words[start..i]
                .iter()
                .all(|w| !w.contains('/') && w != "of")
    })
}

/// Whether " - " between `head` and `rest` is inside one name: a path ends `head` and a file
/// name ends the first words of `rest`, with no action between.
fn dash_inside_a_name(head: &str, rest: &str) -> bool {
    let lex = super::lexicon::lexicon();
    head.split_whitespace()
        .rev()
        .take(3)
        .any(|w| w.contains('/'))
        && rest
            .split_whitespace()
            .take(4)
            .take_while(|w| !lex.action_verbs.contains(&w.to_lowercase()) && !w.contains('/'))
            .any(|w| super::looks_like_file(w.trim_end_matches([',', ';', ':', '!', '?'])))
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

/// "Photos/2024 needs an Iceland subfolder", "Documents/Taxes needs a subfolder named 2026", "I
/// need in Dokumente/Nebenkosten a subfolder named Belege 2025": a folder someone needs is one
/// to make, said as the skills say it.
fn folder_wished_for(text: &str) -> String {
    static PLACE_NEEDS: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)^(?P<place>[^\s;,]+(?: [A-Z0-9][^\s;,]*)?) (?:needs|wants|could use|should get|should have) (?:a new|an?|one more|another) (?P<name>[^;,]+?) (?:sub ?folder|subdir|sub-folder|folder|directory|dir)\b",
        )
        .expect("a valid pattern")
    });
    // "Documents/Taxes needs a subfolder named 2026", "Work needs a new folder called Clients".
    static PLACE_NEEDS_NAMED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)^(?P<place>[^\s;,]+(?: [A-Z0-9][^\s;,]*)?) (?:needs|wants|could use|should get|should have) (?:a new|an?|one more|another) (?:sub ?folder|subdir|sub-folder|folder|directory|dir) (?:named|called) (?P<name>[^;,]+)",
        )
        .expect("a valid pattern")
    });
    static NEED_IN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)^(?:i )?(?:need|want) in (?P<place>\S+) (?:an?|a new|one more|another) (?:sub ?folders?|subdirs?|folders?|directory|dir) (?:named|namens|called) (?P<name>[^;,]+)",
        )
        .expect("a valid pattern")
    });
    if let Some(c) = PLACE_NEEDS_NAMED
        .captures(text)
        .or_else(|| PLACE_NEEDS.captures(text))
        .or_else(|| NEED_IN.captures(text))
    {
        let made = format!(
            "create a new subfolder named \"{}\" in {}",
            c["name"]
                .trim()
                .trim_matches(['\'', '"', '‘', '’', '“', '”']),
            &c["place"]
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
    super::lexicon::lexicon().misspells_an_action(&first.to_lowercase())
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
            // "Scans/Untitled scan 14.pdf → rename to x.pdf": what comes before, with no action
            // of its own, is what the action is done to.
            let boundary = out.rfind("; ").map_or(0, |i| i + 2);
            let before = out[boundary..].trim();
            // A path that ends in a file name is a name, whatever words it has ("scan").
            let a_name = before
                .split_whitespace()
                .next()
                .is_some_and(|w| w.contains('/'))
                && !before.contains(", ")
                && before
                    .split_whitespace()
                    .last()
                    .is_some_and(super::looks_like_file);
            if has_action(before, verbs) && !a_name {
                out.push_str(", then ");
            } else {
                out.push_str(": ");
            }
        } else {
            let boundary = out.rfind("; ").map_or(0, |i| i + 2);
            if boundary > 0 && !has_action(&out[boundary..], verbs) {
                out.insert_str(boundary, "then ");
            }
            // "Work/Drafts items untouched for a year → Archive/old.tar.gz": with no verb, an
            // arrow to an archive's name packs into it.
            let archive = after
                .split_whitespace()
                .next()
                .map(|w| w.trim_end_matches([',', ';', '.', '!', '?']).to_lowercase())
                .is_some_and(|w| {
                    [".zip", ".tar.gz", ".tgz", ".tar.zst", ".tar", ".7z"]
                        .iter()
                        .any(|e| w.ends_with(e))
                });
            let said_before = has_action(&out[boundary..], verbs);
            if archive && !said_before {
                out.push_str(" pack into ");
            } else if !said_before && goes_to_a_folder(after, verbs) {
                // "every .stl sitting in Downloads → 3D Prints/Inbox": with no verb on either
                // side, an arrow to a folder moves there.
                out.push_str(" move to ");
            } else {
                out.push_str(" to ");
            }
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Whether the text after an arrow names a folder and no action, up to the end of its part
/// ("3D Prints/Inbox; keep both…" does, "Ableton/Samples/Vol3 (extract)" and "folders by
/// date" do not).
fn goes_to_a_folder(after: &str, verbs: &Verbs) -> bool {
    // "→ External/Car Archive. after that I'd like a breakdown": a sentence ends the part too.
    let part = after.split([';', ',']).next().unwrap_or_default();
    let part = [". ", "? ", "! "]
        .iter()
        .filter_map(|end| part.find(end))
        .min()
        .map_or(part, |at| &part[..at]);
    let first = part.split_whitespace().next().unwrap_or_default();
    let names_a_place = part.split_whitespace().take(3).any(|w| w.contains('/'))
        || first.starts_with(|c: char| c.is_uppercase());
    // "External/Car Archive": a word with a capital after a path goes on naming it.
    let mut in_a_name = false;
    let unnamed: Vec<&str> = part
        .split_whitespace()
        .filter(|w| {
            in_a_name = w.contains('/') || in_a_name && w.starts_with(char::is_uppercase);
            !in_a_name
        })
        .collect();
    names_a_place && !has_action(&unnamed.join(" "), verbs)
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
    // "if a name is taken, keep both" is about clashes; "if it looks fine unpack it, skipping
    // files that exist" is a step, its remark on clashes after the comma.
    let first_part = [", ", " — ", " – ", " - "]
        .iter()
        .filter_map(|sep| piece.find(sep))
        .min()
        .map_or(piece, |at| &piece[..at]);
    !about_a_clash(first_part)
        && rest.split_whitespace().skip(1).any(|w| {
            verbs.is_action(
                &w.trim_matches(|c: char| !c.is_alphanumeric())
                    .to_lowercase(),
            )
        })
}

/// "how would Downloads/Firefox split up, if you sorted by type?": a condition after a question
/// of what would happen is what the question supposes, not a step.
fn conditions_a_question(last: &str, piece: &str) -> bool {
    let lex = super::lexicon::lexicon();
    let last = format!(" {} ", last.to_lowercase());
    (last.contains(" would ") || last.contains(" würde "))
        && lex
            .condition_leads
            .iter()
            .any(|lead| strip_lead(piece.trim(), lead).is_some())
}

/// "if not", "if so", "if there's nothing": a condition with no action of its own.
fn only_a_condition(piece: &str, verbs: &Verbs) -> bool {
    let lex = super::lexicon::lexicon();
    let piece = piece.trim();
    lex.condition_leads
        .iter()
        .find_map(|lead| strip_lead(piece, lead))
        .is_some_and(|rest| {
            let words: Vec<String> = rest
                .split_whitespace()
                .map(|w| {
                    w.trim_matches(|c: char| !c.is_alphanumeric())
                        .to_lowercase()
                })
                .collect();
            words.len() <= 3 && !words.iter().any(|w| verbs.is_action(w))
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

/// "rename on clash", "and skip on conflict": what to do when a name is taken, in a few words
/// naming no file, folder or type.
pub(super) fn only_says_what_to_do_on_a_clash(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    about_a_clash(text) && words.len() <= 5 && !words.iter().any(|w| super::normalize::is_name(w))
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

/// "supplier PDFs", "menu photos, the lot": a part that names things and says nothing to do
/// with them (no verb of an action, no question, no phrase for one). A change is never read
/// into it; with a place to go ("PDFs into Documents") it still says where things go.
pub fn says_nothing_to_do(text: &str, extra_verbs: &BTreeSet<String>) -> bool {
    let verbs = Verbs { extra: extra_verbs };
    !has_action(text, &verbs)
        && !says_an_action_in_a_phrase(text, &verbs)
        && !says_a_verb_of_any_kind(text)
}

/// "Back in June I split it into type folders": a part whose action verbs only tell what the
/// person did, with no question and no phrase that asks.
pub fn only_tells(text: &str, extra_verbs: &BTreeSet<String>) -> bool {
    let verbs = Verbs { extra: extra_verbs };
    !has_action(text, &verbs)
        && !text.contains('?')
        && !says_an_action_in_a_phrase(text, &verbs)
        && only_tells_what_was_done(text, &verbs)
}

/// "actually do it, but the category folders should be made in Sorted/Brave": the clause asks
/// to carry out what the step before showed.
pub fn carries_out(text: &str) -> bool {
    let mut t = text.to_lowercase();
    while let Some(rest) = ["then ", "now ", "ok ", "okay ", "and ", "so "]
        .iter()
        .find_map(|lead| t.strip_prefix(lead))
    {
        t = rest.trim_start().to_owned();
    }
    super::lexicon::lexicon().carry_out_phrases.iter().any(|p| {
        t.strip_prefix(p.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([',', ' ', '.', '!', ';']))
    })
}

/// "…? just list them", "and show them to me": the clause only asks to see what the step
/// before found, which that step's result already shows (a look adds nothing to a look).
pub(super) fn only_asks_to_see_them(text: &str) -> bool {
    const SHOW: &[&str] = &["show", "list", "display", "see", "print", "tell"];
    const SAYS_NOTHING_MORE: &[&str] = &[
        "me", "us", "them", "those", "these", "the", "results", "result", "matches", "hits", "all",
        "just", "only", "please", "pls", "and", "then", "to", "so", "i", "can", "let", "want",
        "what", "you", "found", "find", "out", "up", "first", "now", "of", "em", "ones", "which",
        "they", "are", "were",
        // "list them biggest first": the order they are shown in.
        "biggest", "largest", "smallest", "newest", "oldest", "latest", "sorted", "order", "by",
        "size", "in",
    ];
    let lex = super::lexicon::lexicon();
    let words: Vec<String> = retrieval::text::words(&without_negations(text))
        .into_iter()
        .map(|w| lex.synonyms.get(&w).cloned().unwrap_or(w))
        .collect();
    words.iter().any(|w| SHOW.contains(&w.as_str()))
        && words.iter().any(|w| lex.back_references.contains(w))
        && words
            .iter()
            .all(|w| SHOW.contains(&w.as_str()) || SAYS_NOTHING_MORE.contains(&w.as_str()))
}

/// "open 'vetiver accord.txt' in it and show me the recipe": after a file is read, "show me the
/// X" (one word, no place, no kind of file) asks to see what was read.
pub(super) fn only_asks_to_see_what_was_read(text: &str) -> bool {
    let words = retrieval::text::words(text);
    // (A plural is more files to look for: "show me the pdfs".)
    matches!(words.as_slice(), [show, me, the, what]
        if matches!(show.as_str(), "show" | "display" | "print")
            && matches!(me.as_str(), "me" | "us")
            && the == "the"
            && !what.ends_with('s')
            && !text.contains(['/', '.']))
}

/// "got anything for trimming silence off podcast audio": a question about the agent's skills
/// is something to answer, not where the rest happens.
fn asks_what_the_agent_can_do(text: &str) -> bool {
    let t = format!(" {} ", text.to_lowercase().replace(['?', ',', '!'], " "));
    super::lexicon::lexicon()
        .ability_questions
        .iter()
        .any(|q| t.contains(&format!(" {q} ")))
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
    // "do not unzip X.zip, only show what is inside": when the negation and the restriction
    // together are all there is, what is asked is the restriction.
    match leave_out(text, true) {
        all if all == text => leave_out(text, false),
        out => out,
    }
}

/// Whether `text` opens with a negation ("don't …"), or a casual phrase for one ("keep it
/// zipped" reads as "don't unpack it").
pub(super) fn opens_with_a_negation(text: &str) -> bool {
    let lex = super::lexicon::lexicon();
    lex.negations.iter().any(|n| strip_lead(text, n).is_some())
        || acts_on_nothing(text)
        || lex.phrases.iter().any(|(from, to)| {
            strip_lead(text, from).is_some()
                && lex.negations.iter().any(|n| strip_lead(to, n).is_some())
        })
}

/// "delete nothing", "rename none of them": an action or change verb said of nothing.
fn acts_on_nothing(text: &str) -> bool {
    let lex = super::lexicon::lexicon();
    let Some((verb, rest)) = text.split_once(' ') else {
        return false;
    };
    let verb = verb.to_lowercase();
    (lex.action_verbs.contains(&verb) || lex.change_verbs.contains(&verb))
        && lex.denied_objects.iter().any(|o| {
            // "delete nothing", "move none of them yet"; not "check nothing odd went there".
            let after = strip_lead(rest, o).or_else(|| {
                rest.trim_end_matches(['.', '!', ';', ','])
                    .eq_ignore_ascii_case(o)
                    .then_some("")
            });
            after.is_some_and(|a| {
                let a = a.trim_end_matches(['.', '!', ';', ',', '?']).to_lowercase();
                [
                    "", "yet", "at all", "else", "of them", "of it", "for now", "please",
                ]
                .contains(&a.as_str())
            })
        })
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
        // "…, rename on clash" says how the step behaves, not which step it is.
        let condition = conditions
            && after_a_break
            && (lex
                .condition_leads
                .iter()
                .chain(&lex.qualifier_leads)
                .any(|n| strip_lead(&rest, n).is_some())
                || only_says_what_to_do_on_a_clash(&rest));
        let negation = opens_with_a_negation(&rest);
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
    // "extract X to Y, and if a name is taken, ask me": the link before what is left out goes too.
    let mut out = out.trim().trim_end_matches([',', ';']).trim();
    for link in [" and", " but", " or", " —", " –"] {
        if out.len() > link.len()
            && out
                .get(out.len() - link.len()..)
                .is_some_and(|end| end.eq_ignore_ascii_case(link))
        {
            out = out[..out.len() - link.len()].trim_end_matches([',', ' ']);
        }
    }
    let out = out.to_owned();
    // "X.jpg is the first dance, name it first-dance.jpg": what is left out was the only action.
    // ("X.jpg is the one where Clover flopped over, call it Y.jpg": a question word asks only
    // when it opens the part.)
    let acts = |t: &str| {
        let l = t.to_lowercase();
        l.contains("name it ")
            || l.contains("call it ")
            || l.split_whitespace().enumerate().any(|(i, w)| {
                let w = w.trim_matches(|c: char| !c.is_alphanumeric());
                lex.action_verbs.contains(w) && (i == 0 || !QUESTION_WORDS.contains(&w))
            })
    };
    if out.split_whitespace().count() < 2 || conditions && !negated && !acts(&out) && acts(text) {
        text.to_owned()
    } else {
        out
    }
}

#[cfg(test)]
mod tests;
