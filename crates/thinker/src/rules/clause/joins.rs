//! What happens to the clauses after splitting: a clause that only names, qualifies or asks more
//! about the one before joins it; fillers go; a header says where or what the first step acts on.

use super::*;

/// "duplicate photos in Pictures/Family, find them and get rid of them": a header that only
/// names some files (no action, no statement about them) is what the next clause's "them" means,
/// said in its place: "find duplicate photos in Pictures/Family". So is what a header says there
/// is ("there's a pile of old stuff in Downloads, shift it to Archive").
pub(super) fn name_what_it_means(clauses: &mut Vec<Clause>, verbs: &Verbs) {
    let [head, next, ..] = clauses.as_slice() else {
        return;
    };
    if !head.header {
        return;
    }
    let Some(named) = what_a_header_names(&head.text, verbs) else {
        return;
    };
    let lex = crate::rules::lexicon::lexicon();
    let words: Vec<&str> = next.text.split_whitespace().collect();
    let bare = |w: &str| {
        w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
            .to_lowercase()
    };
    // "label each document, leaving everything where it is": no "it" of what is not done.
    let denied_from = (0..words.len())
        .find(|&i| opens_with_a_negation(&words[i..].join(" ")))
        .unwrap_or(words.len());
    // "Move that whole folder into Projects/Zine": the folder pointed at, with what says it.
    let that_folder = |i: usize| -> Option<usize> {
        let said = words[i + 1..]
            .iter()
            .take_while(|w| matches!(bare(w).as_str(), "whole" | "entire"))
            .count();
        let noun = words.get(i + 1 + said);
        // ("Make that folder smaller by …": what is said of it could join the name.)
        let then = words.get(i + 2 + said).map(|w| bare(w));
        (bare(words[i]) == "that"
            && noun.is_some_and(|w| matches!(bare(w).as_str(), "folder" | "directory" | "dir"))
            && (noun.is_some_and(|w| w.ends_with([',', ';', '.', '!', '?']))
                || then.is_none_or(|t| {
                    matches!(
                        t.as_str(),
                        "to" | "into" | "onto" | "in" | "on" | "under" | "over"
                    )
                })))
        .then_some(said + 1)
    };
    // "collect the lot into Music/Harp/Sheets": all of what the header names.
    let that_folder = |i: usize| {
        that_folder(i).or_else(|| {
            (bare(words[i]) == "the" && words.get(i + 1).is_some_and(|w| bare(w) == "lot"))
                .then_some(1)
        })
    };
    // "…, which one?": the one asked about is one of what the header names.
    let Some(at) = words[..denied_from].iter().enumerate().position(|(i, w)| {
        lex.back_references.contains(&bare(w))
            || bare(w) == "one" && i > 0 && matches!(bare(words[i - 1]).as_str(), "which" | "what")
            || that_folder(i).is_some()
    }) else {
        return;
    };
    if let Some(said) = that_folder(at) {
        let mut text: Vec<String> = words[..at].iter().map(|w| (*w).to_owned()).collect();
        text.push(named);
        text.extend(words[at + 1 + said..].iter().map(|w| (*w).to_owned()));
        clauses[1].text = text.join(" ");
        clauses.remove(0);
        return;
    }
    // "sent X.zip. Put its contents in …, since I have half of them": "its" said first is the
    // header's; a later "them" is what it holds.
    if words[..at].iter().any(|w| bare(w) == "its") {
        return;
    }
    // "… and those old sheets deleted once they're inside": a reference said with what it is
    // ("old", "new" and a noun) names it already.
    if matches!(bare(words[at]).as_str(), "those" | "these")
        && words.get(at + 1).is_some_and(|w| {
            matches!(
                bare(w).as_str(),
                "old" | "new" | "big" | "small" | "large" | "other" | "extra" | "spare"
            )
        })
    {
        return;
    }
    // "dig it up" says "dig up <them>": the particle stays with its verb.
    let particle = words
        .get(at + 1)
        .filter(|w| lex.verb_particles.contains(&bare(w)));
    // "remove those repeats, and …": the noun after "those" names what the header names too.
    let noun = words
        .get(at + 1)
        .filter(|w| {
            particle.is_none()
                && matches!(bare(words[at]).as_str(), "those" | "these")
                && w.chars().all(|c| c.is_alphabetic() || ",;:.!?".contains(c))
                && !retrieval::text::is_stop_word(&bare(w))
                && !verbs.is_action(&bare(w))
        })
        .map(|w| w.trim_start_matches(char::is_alphabetic));
    let mut text: Vec<String> = words[..at].iter().map(|w| (*w).to_owned()).collect();
    text.extend(particle.map(|p| (*p).to_owned()));
    let reference = words[at].replacen(&bare(words[at]), &named, 1);
    text.push(match noun {
        Some(stop) => format!(
            "{}{stop}",
            reference.trim_end_matches([',', ';', ':', '.', '!', '?'])
        ),
        None => reference,
    });
    let after = at + 1 + usize::from(particle.is_some() || noun.is_some());
    text.extend(words[after..].iter().map(|w| (*w).to_owned()));
    clauses[1].text = text.join(" ");
    clauses.remove(0);
}

/// "go through the letters and put every one into Scans, Bloods or Appointments": what is gone
/// through is what the next clause's "every one", "each one" or "it" means, said in its place;
/// going through is no step of its own.
pub(super) fn say_what_is_gone_through(clauses: &mut Vec<Clause>) {
    let lex = crate::rules::lexicon::lexicon();
    let mut i = 0;
    while i + 1 < clauses.len() {
        let gone_through = lex
            .going_through_leads
            .iter()
            .find_map(|lead| strip_lead(clauses[i].text.trim(), lead))
            .map(str::to_owned)
            .filter(|what| !what.is_empty());
        let Some(what) = gone_through else {
            i += 1;
            continue;
        };
        // "go through Journal for entries about the knee surgery" looks for them.
        if what
            .split_whitespace()
            .any(|w| w.eq_ignore_ascii_case("for"))
        {
            clauses[i].text = format!("look through {what}");
            i += 1;
            continue;
        }
        let next = clauses[i + 1].text.clone();
        let words: Vec<&str> = next.split_whitespace().collect();
        let bare = |w: &str| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        };
        // "every one", "each one", "each of them", or a back reference ("put it", "move them").
        let at = words.iter().enumerate().find_map(|(j, w)| {
            let one = words.get(j + 1).map(|n| bare(n));
            match (bare(w).as_str(), one.as_deref()) {
                ("every" | "each", Some("one")) => Some((j, 2)),
                ("each", Some("of")) if words.get(j + 2).is_some_and(|t| bare(t) == "them") => {
                    Some((j, 3))
                }
                (w, _) if j > 0 && lex.back_references.contains(w) => Some((j, 1)),
                _ => None,
            }
        });
        let Some((j, len)) = at else {
            i += 1;
            continue;
        };
        let mut text: Vec<String> = words[..j].iter().map(|w| (*w).to_owned()).collect();
        // "each one" stays said: "put each one of the documents in X with the similar ones".
        if len > 1 {
            text.push(format!("{} one of", words[j]));
        }
        text.push(what.clone());
        text.extend(words[j + len..].iter().map(|w| (*w).to_owned()));
        clauses[i + 1].text = text.join(" ");
        clauses.remove(i);
    }
}

/// "I keep downloading the same installers twice, clean that up in Downloads": a clause whose
/// only action is a general one (tidy, clean up, fix) is about what the header says is wrong, so
/// the header's words count for it.
pub(super) fn say_what_to_clean_up(clauses: &mut Vec<Clause>, verbs: &Verbs) {
    let [head, next, ..] = clauses.as_slice() else {
        return;
    };
    let lex = crate::rules::lexicon::lexicon();
    // Read in the lexicon's words: "sort that out" is "tidy that".
    let actions: Vec<String> = crate::rules::normalize::in_lexicon_words(&next.text)
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| verbs.is_action(w))
        .collect();
    let general = !actions.is_empty() && actions.iter().all(|w| lex.general_verbs.contains(w));
    // "Fonts/Downloaded has dupliactes — kepp the oldset of every set": a clause asking no change
    // it names, after a header that says what is there, is about that.
    let states = head.text.split_whitespace().any(|w| {
        lex.statement_verbs.contains(
            &w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase(),
        )
    });
    // ("File each by subject into …": a verb of placing opening the part is a change too.)
    let opens_placing = next
        .text
        .split_whitespace()
        .next()
        .is_some_and(|w| lex.placing_verbs.contains(&w.to_lowercase()));
    let changes = opens_placing || actions.iter().any(|w| lex.means(w, &lex.change_verbs));
    // "curious what's bundled in X.zip — keep it packed though": a part that only says what not
    // to do leaves the header as what to do.
    let only_denies = opens_with_a_negation(&next.text);
    // "track 12.mp3 has no proper name; which band recorded it?": a question of its own asks
    // about what the header names, not what it says ("… — which one was it?" asks about that).
    let question = next.text.trim_end().ends_with('?')
        || next
            .text
            .split_whitespace()
            .next()
            .is_some_and(|w| is_question_word(&w.to_lowercase()));
    let asks = question
        && retrieval::text::words(&next.text).iter().any(|w| {
            !retrieval::text::is_stop_word(w)
                && !is_question_word(w)
                && !lex.vague_words.contains(w)
                && !lex.statement_verbs.contains(w)
        });
    if head.header && (general || !changes && states && !asks || only_denies) {
        let header = head.text.trim_end_matches([',', ':', ' ']).to_owned();
        clauses[1].text = format!("{}, {header}", clauses[1].text);
        clauses.remove(0);
    }
}

/// "can any of your skills send files by email? if none can, make one called mail-files": "one"
/// after an action is one of what the clause before asked about (a skill), said as such.
pub(super) fn say_which_one(clauses: &mut [Clause], verbs: &Verbs) {
    let lex = crate::rules::lexicon::lexicon();
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

/// `text` without `lead` (whole words, any case) at its start, when it starts with it.
pub(super) fn strip_lead<'t>(text: &'t str, lead: &str) -> Option<&'t str> {
    let head = text.get(..lead.len())?;
    let rest = &text[lead.len()..];
    (head.eq_ignore_ascii_case(lead) && (rest.is_empty() || rest.starts_with([' ', ','])))
        .then(|| rest.trim_start_matches([' ', ',']))
}

/// "go ahead and sort it by type" says "sort it by type"; a clause of filler alone goes.
pub(super) fn drop_fillers(clauses: &mut Vec<Clause>) {
    let lex = crate::rules::lexicon::lexicon();
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
    let mut first = true;
    clauses.retain(|c| {
        let remark = !first
            && !c.sequenced
            && lex
                .remark_leads
                .iter()
                .any(|lead| strip_lead(&c.text, lead).is_some());
        first = false;
        !remark
    });
}

/// A later clause that only qualifies the one before it: a negation ("don't move anything
/// yet"), a restriction with no verb of its own ("just the top 3"), "show me" with at most a
/// number, or no action at all.
fn qualifies_previous(c: &Clause, verbs: &Verbs) -> bool {
    let text = c.text.as_str();
    let lex = crate::rules::lexicon::lexicon();
    if opens_with_a_negation(text) {
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
    // "…, and if nothing looks weird unpack it into X, skipping …": a step done on a condition
    // is a step, whatever its remark after a comma.
    if conditional_step(text.split(", ").next().unwrap_or(text), verbs) {
        return false;
    }
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
    // "…; skip any file whose name is already taken": no action, only what to do on a clash.
    if about_a_clash(text) && !c.sequenced && !starts_with_action(text, verbs) && !carries_out(text)
    {
        return true;
    }
    // "…, and rename on clash", "skip on conflict": what to do on a clash, said as a short
    // order that names nothing of its own.
    if about_a_clash(text) && !c.sequenced && only_says_what_to_do_on_a_clash(text) {
        return true;
    }
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
pub(super) fn changes_that_text(before: &str, piece: &str) -> bool {
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
    let lex = crate::rules::lexicon::lexicon();
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
    // "…, and which one is newest?": "which one" is one of what the question before found.
    let which_one = now.first().is_some_and(|w| w == "which")
        && now.get(1).is_some_and(|w| w == "one" || w == "ones");
    question(&before)
        && question(&now)
        && !c.sequenced
        && !c.text.contains('/')
        && (which_one || now.iter().any(|w| lex.back_references.contains(w)))
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
        && crate::rules::lexicon::lexicon()
            .look_verbs
            .contains(&words[0])
        && words[2..]
            .iter()
            .all(|w| w.chars().all(|c| c.is_ascii_digit()))
}

/// "…? show me your top 2 candidates", "top five please": a clause that only says how many to
/// show says how long the step before's list is.
fn only_limits_the_list(text: &str) -> bool {
    static LIMIT_ONLY: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)^(?:(?:show|give|list|tell)\s+me\s+)?(?:just\s+|only\s+)?(?:your\s+|the\s+)?(?:top|best|first)?\s*(?:\d+|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty)\s*(?:candidates|matches|results|options|hits|suggestions|ones|picks)?\s*(?:please|pls|plz)?[.!?]?$",
        )
        .expect("a valid pattern")
    });
    LIMIT_ONLY.is_match(text.trim())
}

/// "zip Band/Setlists into Band/s.zip, then trash the folder itself": a clause that only says
/// the originals go (and names no place of its own) says how the step before ends.
fn only_deletes_the_originals(text: &str) -> bool {
    !text.contains('/') && crate::rules::extract::DELETE_ORIGINALS.is_match(&text.to_lowercase())
}

/// "what camera shot IMG_4471.JPG? and call it heron-lake.jpg after that": after a question,
/// which makes nothing to name, "call it X" renames what was asked about (said as such).
fn names_what_a_question_was_about(prev: &Clause, c: &Clause) -> Option<String> {
    let asks = !prev.header
        && prev.text.split_whitespace().next().is_some_and(|w| {
            ["what", "which", "where", "how", "who", "when"].contains(&w.to_lowercase().as_str())
        });
    if !asks {
        return None;
    }
    ["call it", "name it", "call the file", "name the file"]
        .iter()
        .find_map(|lead| strip_lead(&c.text, lead))
        .map(|name| format!("rename it to {name}"))
}

/// "don't delete anything, just list the duplicates in Downloads": a clause that only says what
/// not to do, before a clause that acts, restricts that step; said after it ("list the
/// duplicates in Downloads, don't delete anything") it is left out of what is asked, never a step.
fn say_negations_after_their_step(clauses: &mut Vec<Clause>, verbs: &Verbs) {
    let lex = crate::rules::lexicon::lexicon();
    let mut i = 0;
    while i + 1 < clauses.len() {
        let (negation, next) = (&clauses[i], &clauses[i + 1]);
        let restricts = !negation.header
            && !next.header
            && !next.sequenced
            && opens_with_a_negation(&negation.text)
            // "I don't want to lose Writing/Novel, copy it to Backup": "it" is what the
            // clause before named, so that clause stays first.
            && !acts_on_what_was_named(&next.text)
            // "don't need three versions of every song, just one each" says what to remove.
            && !lex
                .unwanted_leads
                .iter()
                .any(|lead| strip_lead(&negation.text, lead).is_some())
            && !opens_with_a_negation(&next.text)
            && has_action(&next.text, verbs);
        if restricts {
            let negation = clauses.remove(i);
            let step = &mut clauses[i];
            let said = step.text.trim_end_matches([',', ';', ' ']);
            // "which files are duplicates?" ends a sentence already.
            let link = if said.ends_with(['?', '.', '!']) {
                " "
            } else {
                ", "
            };
            step.text = format!(
                "{said}{link}{}",
                negation.text.trim_end_matches([',', ';', ' '])
            );
            step.sequenced = negation.sequenced;
        }
        i += 1;
    }
}

/// Whether the clause's action is done to "it"/"them" ("copy it to Backup", "just move them").
fn acts_on_what_was_named(text: &str) -> bool {
    let lex = crate::rules::lexicon::lexicon();
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
        })
        .filter(|w| {
            !matches!(
                w.as_str(),
                "just" | "only" | "then" | "and" | "please" | "instead"
            )
        })
        .collect();
    words
        .get(1)
        .is_some_and(|w| lex.back_references.contains(w))
}

/// Joins every clause that only qualifies the one before onto it, and a leading "show me" onto
/// what it asks to see ("show me, what is in notes.txt").
pub(super) fn merge_qualifiers(clauses: &mut Vec<Clause>, verbs: &Verbs) {
    say_negations_after_their_step(clauses, verbs);
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
        if let Some(prev) = merged.last()
            && let Some(renamed) = names_what_a_question_was_about(prev, &c)
        {
            merged.push(Clause { text: renamed, ..c });
            continue;
        }
        match merged.last_mut() {
            Some(prev)
                if !prev.header
                    && !c.header
                    && (qualifies_previous(&c, verbs)
                        || only_deletes_the_originals(&c.text)
                        || only_limits_the_list(&c.text)
                        || asks_more_about(prev, &c)
                        || changes_that_text(&prev.text, &c.text)) =>
            {
                // "which notes talk about the garden shed?, just the top 3": a question keeps
                // its mark (what is asked stays a question), and the comma ends its part.
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
