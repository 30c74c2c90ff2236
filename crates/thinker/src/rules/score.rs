//! Scoring a clause's candidate tools: change-vs-look intent, trigger-phrase coverage, fit of the
//! meta skills, and the text helpers the planner's step descriptions and queries use. Pure.

use std::collections::BTreeSet;

use contracts::{ActsOn, SkillDefinition, ToolDefinition, strip_placeholders};
use retrieval::text::{content_words, stem};

use super::extract::Slots;
use super::lexicon::lexicon;
use super::normalize::in_lexicon_words;

/// A mutating tool for a clause that asks for a change; a read-only one for a clause that only
/// asks to look, and a mutating one counts against such a clause ("where is my file called
/// taxes.pdf" is not a reason to delete it). `no_change` (a question about the agent's skills, or
/// said as if) asks for no change, whatever verbs it says.
pub(super) fn intent_bonus(tool: &ToolDefinition, text: &str, no_change: bool) -> f32 {
    let words = retrieval::text::words(text);
    // "what did I put in compose.yml again?": a change the person asks about, done before.
    let asked_about = words
        .first()
        .is_some_and(|w| matches!(w.as_str(), "what" | "where" | "when" | "which"))
        && words.iter().any(|w| w == "did");
    // "any built-in way to make PDFs smaller?": a change asked about, not asked for.
    // "tell me which files went into the archive": a clause opening with a look asks about
    // what it names, as a question does.
    let question = opens_a_question(&words, text.contains('?'))
        || words
            .first()
            .is_some_and(|w| lexicon().look_verbs.contains(w));
    let change = !asked_about
        && !no_change
        && words.iter().enumerate().any(|(i, w)| {
            (lexicon().change_verbs.contains(w) || asked_done_at(&words, i))
                && said_as_a_verb(&words, i, question)
        });
    let look = words.iter().any(|w| lexicon().look_verbs.contains(w));
    // "roughly how old is everything in X": a question asks about the files, not for anything
    // done to them.
    let asks = words.iter().any(|w| {
        matches!(
            w.as_str(),
            "how" | "what" | "which" | "where" | "when" | "who"
        )
    });
    match (tool.mutates(), change, look) {
        (true, true, _) => 0.1,
        (false, false, true) => 0.05,
        (true, false, true) if asks => -0.2,
        (true, false, true) => -0.1,
        // "is even one of them 2 GB or heavier?": a question that says no change asks about
        // the files, even without a verb of looking.
        (true, false, false) if question => -0.3,
        // "make an empty file called notes.md": a clause that only asks for a change is no
        // look-up, least of all when it opens with the change ("remove the empty folders in X").
        (false, true, false) if opens_with_a_change(text) => -0.2,
        (false, true, false) => -0.1,
        _ => 0.0,
    }
}

/// What a tool is for, said by the verb its one-line description opens with ("Move each
/// classified file …", "Delete or remove files …"): a clause opening with that verb points at it
/// ("move each into Loans, Savings or Cards" is the sort, not the tag).
pub(super) fn verb_fit(tool: &ToolDefinition, text: &str) -> f32 {
    const VERB_FIT: f32 = 0.05;
    let described = retrieval::text::words(&tool.description);
    let mut leading: Vec<&str> = described.first().map(String::as_str).into_iter().collect();
    if described.get(1).is_some_and(|w| w == "or") {
        leading.extend(described.get(2).map(String::as_str));
    }
    // The verb the clause opens with (one a verb of going became, "… belong in X", is not said).
    let asked = retrieval::text::words(text)
        .into_iter()
        .find(|w| {
            !matches!(
                w.as_str(),
                "please" | "now" | "just" | "also" | "then" | "and"
            )
        })
        .is_some_and(|w| leading.contains(&w.as_str()));
    if asked && tool.mutates() {
        VERB_FIT
    } else {
        0.0
    }
}

/// "… should be copied to USB/Choir", "needs to get moved": a change said in the passive after
/// a word that wants it asks for it (not "the files I moved" or "what got added", which say
/// which files, nor "whatever didn't get moved").
pub(super) fn asked_done_at(words: &[String], i: usize) -> bool {
    let w = &words[i];
    // "anything 5 GB or larger gets relocated to X": said as the rule, in the present.
    // "… can then be binned": a word saying when may come between.
    let modal = |at: usize| {
        matches!(
            words[at].as_str(),
            "should" | "must" | "to" | "can" | "could" | "will" | "would" | "shall" | "may"
        )
    };
    let wanted = i > 1
        && matches!(words[i - 1].as_str(), "be" | "get")
        && (modal(i - 2)
            || i > 2
                && matches!(
                    words[i - 2].as_str(),
                    "then" | "now" | "simply" | "just" | "safely"
                )
                && modal(i - 3))
        || i > 0 && words[i - 1] == "gets";
    let lex = lexicon();
    // ("binned": "bin" is the lexicon's casual word for "delete".)
    let changes = |w: &str| {
        let base = w.strip_suffix("ed").map(|b| {
            let n = b.len();
            // "binned" → "bin".
            if n > 2 && b.as_bytes()[n - 1] == b.as_bytes()[n - 2] {
                b[..n - 1].to_owned()
            } else {
                b.to_owned()
            }
        });
        lex.change_verbs.iter().any(|v| stem(v) == stem(w))
            || base.is_some_and(|b| {
                lex.synonyms
                    .get(&b)
                    .is_some_and(|v| lex.change_verbs.contains(v))
            })
    };
    wanted && w.ends_with("ed") && changes(w)
}

/// Whether `words[i]`, a verb, is said as one: not after an article in a question ("is there an
/// archive of Photos in Backup?" asks about one) nor as the kind of a file ("list the zip files
/// in Downloads").
fn said_as_a_verb(words: &[String], i: usize, question: bool) -> bool {
    let after_an_article = i > 0
        && (super::clause::NOUN_MARKERS.contains(&words[i - 1].as_str()) || words[i - 1] == "all");
    let names_a_kind = words.get(i + 1).is_some_and(|n| {
        super::extract::names_a_kind_of_thing(n) || n == "archives" || n == "archive"
    });
    !(after_an_article && (question || names_a_kind))
}

/// Whether the clause opens as a question about the files: a question word, or a verb that
/// opens a yes/no question and is not addressed to the agent ("is X over 2 GB?", not "can you
/// zip X?" or "do you …").
fn opens_a_question(words: &[String], question_mark: bool) -> bool {
    let second = words.get(1).map(String::as_str);
    words.first().is_some_and(|w| match w.as_str() {
        "how" | "what" | "which" | "where" | "when" | "who" | "why" => true,
        // "Desktop is chaos again": without a question mark, a statement.
        "is" | "are" | "was" | "were" | "does" | "do" | "did" | "has" | "have" => {
            question_mark && second != Some("you") && second != Some("u")
        }
        _ => false,
    })
}

/// Whether the clause's first word asks for a change ("remove the empty folders in X").
pub(super) fn opens_with_a_change(text: &str) -> bool {
    retrieval::text::words(text)
        .first()
        .is_some_and(|w| lexicon().change_verbs.contains(w))
}

/// A clause that names one file (and no folder to act on) is about that file: a tool that acts on
/// one file fits it ("what's in todo.txt on my Desktop" is reading it, "what is in fotos.zip"
/// listing the archive), one that acts on a folder does not (listing the Desktop).
pub(super) fn object_fit(
    tool: &ToolDefinition,
    slots: &Slots,
    before: Option<&str>,
    is_file: &dyn Fn(&str) -> bool,
) -> f32 {
    const FIT: f32 = 0.06;
    const FOLDER_FOR_A_FILE: f32 = 0.15;
    // Named as what to act on, or as the only place ("what is in fotos.zip"); a clause naming
    // nothing is about what the request named before ("…backup.zip? show me the contents").
    let said_before: Vec<String> = before.map(str::to_owned).into_iter().collect();
    let named = if !slots.objects.is_empty() {
        &slots.objects
    } else if !slots.locations.is_empty() {
        &slots.locations
    } else {
        &said_before
    };
    let plain = !slots.has_filter() && !slots.refers_back;
    let one_file = matches!(named.as_slice(), [o] if is_file(o)) && plain;
    // And one folder named as the only thing ("show what's in Freelance/Invoices") is no file.
    let one_folder = matches!(named.as_slice(), [o] if !is_file(o) && o != ".")
        && slots.objects.len() <= 1
        && plain;
    // "show the spreadsheets in Finance I've edited since March": files chosen by a filter are
    // many, which a tool reading one file cannot take.
    let filtered_many = slots.has_filter() && !named.iter().any(|o| is_file(o));
    // "show me what I've saved in Downloads since Monday" is no one file to read.
    if filtered_many && tool.planning.acts_on == ActsOn::File {
        // ("what's that pdf say again" names no folder: it may be one file.)
        let folder_named = named.iter().any(|o| o != ".");
        let unfit = if folder_named { FOLDER_FOR_A_FILE } else { FIT };
        return -unfit + kind_fit(tool, named, is_file);
    }
    let fit = match (one_file, one_folder, tool.planning.acts_on) {
        (true, _, ActsOn::File) | (_, true, ActsOn::Folder) => FIT,
        // A tool that takes a file or a folder fits either, less than one made for it.
        (true, _, ActsOn::Node) | (_, true, ActsOn::Node) => FIT / 2.0,
        // "what did I put in Dev/dotfiles/.zshrc": a file named by its path is no place to look
        // in; a bare name may be one to find ("where's report.pdf").
        (true, _, ActsOn::Folder) if named.iter().any(|o| o.contains('/')) => -FOLDER_FOR_A_FILE,
        (true, _, ActsOn::Folder) => -FIT,
        // A tool that reads one file cannot read a folder at all.
        (_, true, ActsOn::File) => -FOLDER_FOR_A_FILE,
        _ => 0.0,
    };
    fit + kind_fit(tool, named, is_file)
}

/// "make Videos/Salsa class/Improvers": a change that takes no place at all (a new skill's name
/// and description) and nothing from an earlier step does not act on the one place the clause
/// names: it loses what `object_fit` gave it for that place and as much again. Only for a clause
/// that says nothing of the agent (`meta_fit` below zero).
pub(super) fn placeless_change_fit(tool: &ToolDefinition, slots: &Slots) -> f32 {
    const UNFIT: f32 = 0.12;
    let takes_a_place = !tool.planning.takes_from.is_empty()
        || tool
            .required_params
            .iter()
            .chain(&tool.optional_params)
            .any(|p| matches!(p.as_str(), "path" | "source" | "target" | "paths"));
    let named = if slots.objects.is_empty() {
        &slots.locations
    } else {
        &slots.objects
    };
    if tool.mutates() && !takes_a_place && !slots.asks_ability && named.len() == 1 {
        -UNFIT
    } else {
        0.0
    }
}

/// What the kind of the one file named says about a tool that declares the kinds it `reads`:
/// "what's in fotos.zip" is for a tool that reads archives, not one that reads documents.
fn kind_fit(tool: &ToolDefinition, named: &[String], is_file: &dyn Fn(&str) -> bool) -> f32 {
    const KIND_FIT: f32 = 0.1;
    let [one] = named else {
        return 0.0;
    };
    if tool.planning.reads.is_empty() || !is_file(one) {
        return 0.0;
    }
    let name = one.rsplit('/').next().unwrap_or(one).to_lowercase();
    // "backup.tar.gz" is an archive by its last extension.
    let kind = sandbox::category_of(name.rsplit_once('.').map(|(_, e)| e));
    if kind == "Other" {
        0.0
    } else if tool.planning.reads.iter().any(|k| k == kind) {
        // A tool made for this kind alone ("backup.zip" and the archive tools) fits it better
        // than one that reads every kind (a file's metadata).
        KIND_FIT * (1.0 + 1.0 / tool.planning.reads.len() as f32)
    } else {
        // It cannot read that kind at all: the run would fail.
        -2.0 * KIND_FIT
    }
}

/// Where things go named as a file of some kind ("… could live in Archive/old.tar.gz"): a tool
/// that makes that kind at its target (`makes`) fits, one that puts things in a folder there
/// does not.
pub(super) fn target_fit(tool: &ToolDefinition, slots: &Slots) -> f32 {
    const FIT: f32 = 0.3;
    let kinds: Vec<&str> = slots
        .targets
        .iter()
        .filter(|t| super::looks_like_file(t))
        .map(|t| {
            let name = t.rsplit('/').next().unwrap_or(t).to_lowercase();
            sandbox::category_of(name.rsplit_once('.').map(|(_, e)| e))
        })
        .filter(|k| *k != "Other")
        .collect();
    let takes_target = tool
        .required_params
        .iter()
        .chain(&tool.optional_params)
        .any(|p| p == "target");
    if kinds.is_empty() || !takes_target {
        0.0
    } else if kinds
        .iter()
        .any(|k| tool.planning.makes.iter().any(|m| m == k))
    {
        FIT
    } else if tool.planning.makes.is_empty() {
        // A folder named like an archive is almost never what was meant.
        -2.0 * FIT
    } else {
        0.0
    }
}

/// Skills tagged `meta` (about the agent itself) fit only a clause that talks about the agent:
/// "which document talks about insurance" is a file search, not a skill search.
pub(super) fn meta_fit(
    skill: &SkillDefinition,
    tool: &ToolDefinition,
    text: &str,
    asks_ability: bool,
) -> f32 {
    let words = retrieval::text::words(text);
    let meta_skill = skill.tags.iter().any(|t| t == "meta");
    if !meta_skill {
        // "which of your skills would sort my photos by month" asks about the agent's skills,
        // not to sort: a clause naming the agent's skills, or asking whether it can do
        // something to nothing in particular, leans away from the file tools.
        let names_skills = words.iter().any(|w| lexicon().agent_nouns.contains(w));
        return if asks_ability {
            -0.3
        } else if names_skills {
            -0.15
        } else {
            0.0
        };
    }
    // Asking whether it can is looking its skills up, not making one; asking for a new or own
    // skill ("I'd like a new ability, font-inventory, that reports …") is making one, whatever
    // the skill would do.
    let asks_for_one = super::extract::asks_for_a_new_skill(&words);
    if asks_ability && !tool.mutates() || asks_for_one && tool.mutates() {
        0.3
    } else if asks_ability {
        // "…, or is there a skill for that?" asks about the skills there are.
        -0.15
    } else if words.iter().enumerate().any(|(i, w)| {
        lexicon().meta_words.contains(w)
            // "the estate agent": an agent with a noun before it is a person, not this one.
            && !(w == "agent"
                && i > 0
                && !matches!(
                    words[i - 1].as_str(),
                    "the" | "this" | "you" | "your" | "an" | "a" | "my" | "our"
                ))
    }) {
        0.0
    } else {
        -0.3
    }
}

/// Said as if ("hypothetically", "would end up", "don't move anything"): a tool that `previews`
/// a change fits, and a tool that changes files does not.
pub(super) fn as_if_fit(tool: &ToolDefinition, as_if: bool) -> f32 {
    const FIT: f32 = 0.1;
    match (as_if, tool.planning.previews.is_some(), tool.mutates()) {
        (false, _, _) => 0.0,
        (true, true, _) => FIT,
        (true, false, true) => -2.0 * FIT,
        (true, false, false) => 0.0,
    }
}

/// A skill about one thing (its `topic` words) fits a clause that says none of them less ("remove
/// the 0-byte files" is no duplicate removal), unless the clause goes on from a step of it
/// ("…, then move them to Dupes"); and one that says them fits a general action ("tidy",
/// "handle that") better: the problem named is what to set right.
pub(super) fn topic_fit(
    skill: &SkillDefinition,
    said: &dyn Fn(&str) -> bool,
    goes_on: bool,
) -> f32 {
    const OFF_TOPIC: f32 = 0.15;
    if skill.topic.is_empty() || goes_on {
        return 0.0;
    }
    if !skill.topic.iter().any(|w| said(w)) {
        return -OFF_TOPIC;
    }
    // "bitte aufräumen" with "doppelt": a general verb takes the meaning of another word of
    // the skill's topic, not of itself ("tidy" is in the topic of sorting too).
    let general = &lexicon().general_verbs;
    if general.iter().any(|w| said(w))
        && skill
            .topic
            .iter()
            .any(|w| said(w) && !general.iter().any(|g| g == w))
    {
        OFF_TOPIC
    } else {
        0.0
    }
}

/// A tool's `keywords` said in the clause point at it; a tool without keywords is its skill's
/// choice among siblings of the same kind (both change, or both look) when none of theirs is said
/// ("sort by month" is the date tool, any other sort the type tool).
pub(super) fn keyword_fit(
    skill: &SkillDefinition,
    tool: &ToolDefinition,
    said: &dyn Fn(&str) -> bool,
) -> f32 {
    const FIT: f32 = 0.08;
    let own = &tool.planning.keywords;
    // "duration + bitrate": two of its own words say it more than one.
    let owned = own.iter().filter(|w| said(w)).count();
    if owned > 0 {
        return FIT * owned.min(2) as f32;
    }
    if !own.is_empty() {
        return 0.0;
    }
    let mut siblings = skill
        .tools
        .values()
        .filter(|t| t.name != tool.name && t.mutates() == tool.mutates())
        .filter(|t| !t.planning.keywords.is_empty())
        .peekable();
    if siblings.peek().is_none() {
        return 0.0;
    }
    if siblings.any(|t| t.planning.keywords.iter().any(|w| said(w))) {
        0.0
    } else {
        FIT
    }
}

/// How much a tool's trigger phrases back the clause: the share of a trigger's literal words the
/// clause contains, best trigger, squared (a full match counts, a one-word overlap barely).
///
/// A trigger only partly said backs a reading less when the clause has nothing for one of its
/// value slots (`unsaid`): "sort {path} into {categories}" is not "sort it".
pub(super) fn trigger_bonus(
    skill: &SkillDefinition,
    tool: &str,
    text: &str,
    unsaid: &dyn Fn(&str) -> bool,
) -> f32 {
    // A trigger said word for word ("what can you do") is the clearest reading there is, even
    // when every word of it is an everyday word retrieval cannot weigh.
    if says_trigger_whole(skill, tool, text) {
        return WHOLE_TRIGGER_BONUS;
    }
    if let Some(words) = trigger_frame_said(skill, tool, text) {
        tracing::trace!(skill = %skill.name, tool, words, "trigger frame said");
        return (FRAME_WORD_BONUS * words as f32).min(WHOLE_TRIGGER_BONUS);
    }
    // "move the zip files to Archive": a verb said as the kind of a file backs no trigger.
    let words = retrieval::text::words(text);
    let question = opens_a_question(&words, text.contains('?'));
    let nouns: BTreeSet<&String> = words
        .iter()
        .enumerate()
        .filter(|(i, w)| {
            lexicon().change_verbs.contains(*w) && !said_as_a_verb(&words, *i, question)
        })
        .map(|(_, w)| w)
        .collect();
    // "tenant's" is no "what's": the "s" of a possessive backs nothing.
    let clause: BTreeSet<String> = content_words(&without_possessives(text))
        .iter()
        .filter(|w| !nouns.contains(w))
        .map(|w| stem(w))
        .collect();
    triggers(skill, tool)
        .iter()
        .map(|t| {
            let literal: String = strip_placeholders(t);
            // "anything" names nothing: "do you have anything that can {query}" is not backed
            // by "anything in Movies/Rips at 4 GB or more?".
            let words: Vec<String> = content_words(&literal)
                .iter()
                .filter(|w| !lexicon().vague_words.contains(w.as_str()))
                .map(|w| stem(w))
                .collect();
            if words.is_empty() {
                return 0.0;
            }
            let hit = words.iter().filter(|w| clause.contains(*w)).count();
            let share = hit as f32 / words.len() as f32;
            let slot_unsaid = slots_of(t).any(unsaid);
            0.2 * share * share * if slot_unsaid { UNSAID_SLOT_SHARE } else { 1.0 }
        })
        .fold(0.0, f32::max)
}

/// `text` with the "'s" of each possessive dropped ("the tenant's email" → "the tenant email");
/// a "'s" that is "is" ("what's", "there's") stays.
fn without_possessives(text: &str) -> String {
    const IS_AFTER: &[&str] = &[
        "what", "that", "it", "there", "here", "who", "where", "how", "let", "he", "she", "which",
    ];
    text.split(' ')
        .map(|w| {
            let Some(i) = w.find(['\'', '’']) else {
                return w.to_owned();
            };
            let (stem, rest) = w.split_at(i);
            let after = &rest[rest.chars().next().map_or(0, char::len_utf8)..];
            let possessive = after.trim_end_matches(|c: char| !c.is_alphanumeric()) == "s"
                && !IS_AFTER.contains(&stem.to_lowercase().as_str());
            if possessive {
                format!("{stem}{}", &after[1..])
            } else {
                w.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// How much of its backing a partly said trigger keeps when one of its value slots is unsaid.
const UNSAID_SLOT_SHARE: f32 = 0.5;

/// The slot names of a trigger ("{path}", "{categories}").
fn slots_of(trigger: &str) -> impl Iterator<Item = &str> {
    trigger
        .split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name))
}

/// What a trigger said word for word adds to a reading's score: enough to clear the floor of
/// understood clauses on its own.
const WHOLE_TRIGGER_BONUS: f32 = 0.5;

/// What each literal word of a trigger said in order around its slots adds ("which of your
/// skills would {query}" in "which of your skills would sort my photos"): a longer phrase said
/// verbatim is surer, up to a whole trigger's bonus.
const FRAME_WORD_BONUS: f32 = 0.1;
/// Fewer literal words than this are no phrase ("sort {path} into {target}").
const FRAME_MIN_WORDS: usize = 3;

/// The literal words of the longest of the tool's triggers the clause says with every slot
/// filled by some words: its literal parts in order, at least one word where each slot is.
pub(super) fn trigger_frame_said(skill: &SkillDefinition, tool: &str, text: &str) -> Option<usize> {
    let said = plain(text);
    let said: Vec<&str> = said.split(' ').filter(|w| !w.is_empty()).collect();
    triggers(skill, tool)
        .iter()
        .filter(|t| t.contains('{'))
        .filter_map(|t| frame_matches(t, &said))
        .filter(|n| *n >= FRAME_MIN_WORDS)
        .max()
}

/// `trigger`'s literal words found in `said` in order, a slot standing for one word or more:
/// how many literal words it has.
fn frame_matches(trigger: &str, said: &[&str]) -> Option<usize> {
    // Literal pieces, each with whether a slot comes before it; and whether one ends the trigger.
    let mut pieces: Vec<(bool, Vec<String>)> = Vec::new();
    let mut slot_before = false;
    let mut rest = trigger;
    loop {
        let (literal, after) = match rest.find('{') {
            Some(open) => (
                &rest[..open],
                rest[open..].find('}').map(|c| &rest[open + c + 1..]),
            ),
            None => (rest, None),
        };
        let words: Vec<String> = plain(literal)
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect();
        if !words.is_empty() {
            pieces.push((slot_before, words));
            slot_before = false;
        }
        match after {
            Some(a) => {
                slot_before = true;
                rest = a;
            }
            None => break,
        }
    }
    let slot_at_end = slot_before;
    let mut at = 0;
    for (slot, words) in &pieces {
        let from = at + usize::from(*slot);
        let found = (from..=said.len().saturating_sub(words.len())).find(|&i| {
            said.get(i..i + words.len())
                .is_some_and(|s| s.iter().zip(words).all(|(a, b)| a == b))
        });
        match found {
            // A trigger starting with words may still follow a lead-in ("I'd like you to").
            Some(i) => at = i + words.len(),
            None => return None,
        }
    }
    (!slot_at_end || at < said.len()).then(|| pieces.iter().map(|(_, w)| w.len()).sum())
}

/// The tool's triggers, and the same read as a clause is read for matching: casual words and phrases in the
/// lexicon's words ("are you able to {query}" is "can you {query}").
/// Both the triggers as written and so read.
fn triggers(skill: &SkillDefinition, tool: &str) -> Vec<String> {
    let written = retrieval::triggers_for_tool(skill, tool);
    let mut all: Vec<String> = written.iter().map(|t| t.to_string()).collect();
    for t in written {
        let read = trigger_read(t);
        if !all.contains(&read) {
            all.push(read);
        }
    }
    all
}

/// A trigger read in the lexicon's words, remembered: the same few hundred triggers are read for
/// every clause of every request, and reading one walks the whole lexicon.
fn trigger_read(trigger: &str) -> String {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static READ: OnceLock<Mutex<HashMap<String, String>>> = OnceLock::new();
    let memo = READ.get_or_init(Default::default);
    if let Some(read) = memo.lock().unwrap_or_else(|e| e.into_inner()).get(trigger) {
        return read.clone();
    }
    let read = in_lexicon_words(trigger);
    let mut memo = memo.lock().unwrap_or_else(|e| e.into_inner());
    // Skills edited in a long session bring new triggers; the old ones are read again if needed.
    if memo.len() > 20_000 {
        memo.clear();
    }
    memo.insert(trigger.to_owned(), read.clone());
    read
}

/// `text` without case, punctuation and extra spaces.
fn plain(text: &str) -> String {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `text` is one of the tool's triggers that has no `{slot}`, word for word (a skill's
/// own trigger without slots belongs to its tool when it has only one).
pub(super) fn says_trigger_whole(skill: &SkillDefinition, tool: &str, text: &str) -> bool {
    let said = plain(text);
    let only_tool = skill.tools.len() == 1 && skill.tools.contains_key(tool);
    let skill_wide = skill
        .triggers
        .iter()
        .filter(|_| only_tool)
        .map(String::as_str);
    !said.is_empty()
        && triggers(skill, tool)
            .iter()
            .map(String::as_str)
            .chain(skill_wide)
            .any(|t| !t.contains('{') && (plain(t) == said || plain(&trigger_read(t)) == said))
}

/// The words of a search clause that say what to look for: the clause minus its verb words.
pub(super) fn query_text(text: &str) -> String {
    const VERBS: &[&str] = &[
        "search",
        "find",
        "look",
        "locate",
        "show",
        "me",
        "files",
        "file",
        "documents",
        "for",
        "which",
        "where",
        "is",
        "are",
        "the",
        "my",
        "all",
        "any",
        "that",
        "mention",
    ];
    const PREPOSITIONS: &[&str] = &["in", "inside", "within", "under", "from", "of", "on", "at"];
    let mut words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| !VERBS.contains(&w.to_lowercase().as_str()))
        .collect();
    // "find all pdf files in Downloads" leaves "pdf in" once the place is taken out.
    while words
        .last()
        .is_some_and(|w| PREPOSITIONS.contains(&w.to_lowercase().as_str()))
    {
        words.pop();
    }
    words.join(" ")
}

/// The topic of a clause with filters: what `query_text` leaves once the filter words are out
/// ("find all pdf files over 1 MB" has none; "find budget spreadsheets" has "budget").
pub(super) fn topic_text(text: &str, slots: &Slots) -> String {
    let q = query_text(text);
    if !slots.has_filter() {
        return q;
    }
    q.split_whitespace()
        .filter(|w| !super::extract::filter_word(w))
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn describe_selection(s: &Slots, place: Option<&str>) -> String {
    let mut what = Vec::new();
    if s.empty {
        what.push("empty".to_owned());
    }
    if !s.extensions.is_empty() {
        let list: Vec<&str> = s.extensions.iter().take(4).map(String::as_str).collect();
        what.push(format!("{} files", list.join("/")));
    } else if s.kind.as_deref() == Some("dir") {
        what.push("folders".to_owned());
    } else {
        what.push("files".to_owned());
    }
    if let Some(g) = &s.glob {
        what.push(format!("matching {g}"));
    }
    if let Some(n) = &s.name {
        what.push(format!("named like \"{n}\""));
    }
    if let Some(v) = &s.min_size {
        what.push(format!("of at least {v}"));
    }
    if let Some(v) = &s.max_size {
        what.push(format!("of at most {v}"));
    }
    // "30days" is an age, "2022-01-01" a date.
    let age = |v: &str| {
        v.strip_suffix("days")
            .or(v.strip_suffix("day"))
            .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
            .map(|n| format!("{n} days"))
    };
    if let Some(v) = &s.modified_after {
        what.push(match age(v) {
            Some(a) => format!("modified in the last {a}"),
            None => format!("modified after {v}"),
        });
    }
    if let Some(v) = &s.modified_before {
        what.push(match age(v) {
            Some(a) => format!("not modified in the last {a}"),
            None => format!("not modified since {v}"),
        });
    }
    format!(
        "find {} in {}",
        what.join(" "),
        place.unwrap_or("the working folder")
    )
}
