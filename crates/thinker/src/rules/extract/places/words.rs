//! The word-level pass over a clause: extensions by name, category words, places after
//! prepositions and the objects of the verb, each word read once. Pure.

use super::super::lexicon::*;
use super::super::{Grounding, Slots};
use super::around::{CONTAINER_WORDS, a_noun_follows, persons_name, says_what_went_there};
use super::{
    LOCATION_PREPS, TARGET_PREPS, calendar_word, describes_files, files_are_objects,
    is_archive_name, is_common_folder, names_with_a_capital, opens_with_a_folder,
    opens_with_two_names, place_token, push_place,
};
use crate::rules::lexicon::lexicon;
use crate::rules::looks_like_file;

mod prepositions;

/// Words for pictures and recordings: "of" after one says what they show ("photos of Noah").
const DEPICTIONS: &[&str] = &[
    "photos",
    "photo",
    "pictures",
    "picture",
    "pics",
    "pic",
    "images",
    "image",
    "videos",
    "video",
    "clips",
    "shots",
    "snaps",
    "portraits",
    "footage",
    "recordings",
    "drawings",
    "scans",
];

/// The word-level pass over `text`: extensions by name, category words, places after
/// prepositions, objects; then files named as places become objects and the root's own name
/// means the root.
pub(in crate::rules::extract) fn read_words(
    s: &mut Slots,
    text: &str,
    g: &Grounding,
    lookup: &dyn Fn(&str) -> Option<String>,
) {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut pass = WordPass {
        words: &words,
        consumed: vec![false; words.len()],
        g,
        lookup,
    };
    let mut i = 0;
    while i < words.len() {
        i = pass.read_at(s, i);
    }
    files_are_objects(s);
    // "copy the photos I added to Pictures this week to Shared/Family": where things go is the
    // last "to"; an earlier one says where they are.
    if s.targets.len() >= 2 {
        let last = s.targets.pop().expect("two or more");
        for t in std::mem::replace(&mut s.targets, vec![last]) {
            if !s.locations.contains(&t) {
                s.locations.push(t);
            }
        }
    }
    // A place mentioned as the root's own name means the root.
    for list in [&mut s.locations, &mut s.objects, &mut s.targets] {
        for p in list.iter_mut() {
            if g.is_root(p) {
                ".".clone_into(p);
            }
        }
    }
}

/// The words of a clause and which of them a value took.
struct WordPass<'w> {
    words: &'w [&'w str],
    consumed: Vec<bool>,
    g: &'w Grounding,
    /// A placeholder's path or quoted name.
    lookup: &'w dyn Fn(&str) -> Option<String>,
}

/// A word as written, as read, and the words around it (in lower case).
struct At<'a> {
    i: usize,
    raw: &'a str,
    /// Read: in lower case, without the stop after it, a misspelt or borrowed preposition
    /// corrected.
    w: String,
    prev: String,
    next: String,
}

impl WordPass<'_> {
    /// Reads the word at `i`; returns the index of the next word to read.
    fn read_at(&mut self, s: &mut Slots, i: usize) -> usize {
        let words = self.words;
        let raw = words[i];
        let w = raw
            .trim_end_matches([',', ';', ':', '.', '!', '?', ')'])
            .to_lowercase();
        let prev = if i > 0 {
            words[i - 1].to_lowercase()
        } else {
            String::new()
        };
        if let Some(next) = self.new_extension_made(s, i, &w) {
            return next;
        }
        // "… created over in Documents/Montreal exchange rather than Downloads": a place said
        // as the one not meant is none.
        let not_meant = i >= 2
            && matches!(
                format!("{} {}", words[i - 2], words[i - 1])
                    .to_lowercase()
                    .as_str(),
                "rather than" | "instead of" | "other than"
            );
        if not_meant && let Some((_, next)) = place_token(words, i, self.g) {
            self.consume(i, next);
            return next;
        }
        let as_name = self.names_what_to_make(i, &w);
        let w = self.as_preposition(i, w, &prev);
        let is_prep =
            LOCATION_PREPS.contains(&w.as_str()) || TARGET_PREPS.contains(&w.as_str()) || as_name;
        if is_prep && let Some(next) = self.place_after_preposition(s, i, &w, as_name) {
            return next;
        }
        if let Some(next) = self.named_thing(s, i) {
            return next;
        }
        let next = words
            .get(i + 1)
            .map(|n| n.to_lowercase())
            .unwrap_or_default()
            .trim_end_matches([',', '.', ';'])
            .to_owned();
        let at = At {
            i,
            raw,
            w,
            prev,
            next,
        };
        self.kinds_of_file(s, &at);
        if let Some(next) = self.dotted_or_every_folder(s, &at) {
            return next;
        }
        self.object_or_place(s, &at).unwrap_or(i + 1)
    }

    /// "zip the folder as taxes.tar.gz": a file name after "as" is the one to make. So is an
    /// archive's name after "at" ("make a tar.zst of VMs at Backup/vms.tar.zst").
    fn names_what_to_make(&self, i: usize, w: &str) -> bool {
        // "make Backup/university-year1.zip of it": an archive after a verb of making.
        let making = matches!(w, "make" | "create" | "build");
        // "the pattern came as Downloads/crochet-blanket.zip": said of how a thing arrived,
        // "as" names what it is.
        let arrived = w == "as"
            && i >= 1
            && matches!(
                self.words[i - 1].to_lowercase().as_str(),
                "came" | "comes" | "arrived" | "arrives" | "downloaded" | "landed"
            );
        (w == "as" || w == "at" || making)
            && !arrived
            && self.words.get(i + 1).is_some_and(|n| {
                let n = n.trim_end_matches([',', ';', '.']);
                let n = (self.lookup)(n).unwrap_or_else(|| n.to_owned());
                looks_like_file(&n)
                    && !FORMAT_WORDS.contains(&n.to_lowercase().as_str())
                    && (w == "as" || is_archive_name(&n))
            })
    }

    /// "make them .md files", "turn those .jpeg", "give them .csv endings": a new extension
    /// said after a verb that makes and what it is done to is a name pattern, as "to .jpg" is.
    /// The index after it.
    fn new_extension_made(&mut self, s: &mut Slots, i: usize, w: &str) -> Option<usize> {
        let words = self.words;
        let pointing = words.get(i + 1)?.to_lowercase();
        let ext = words
            .get(i + 2)?
            .strip_prefix('.')?
            .trim_end_matches([',', ';', '.'])
            .to_lowercase();
        // "give them .csv endings": an ending given is the new extension too.
        let ending_given = w == "give"
            && words.get(i + 3).is_some_and(|n| {
                matches!(
                    n.trim_end_matches([',', ';', '.']).to_lowercase().as_str(),
                    "ending" | "endings" | "extension" | "extensions" | "suffix" | "suffixes"
                )
            });
        let makes = matches!(w, "make" | "turn" | "convert" | "change") || ending_given;
        let back_reference = matches!(
            pointing.as_str(),
            "them" | "it" | "those" | "these" | "all" | "everything" | "each"
        );
        (makes && back_reference && known_extension(&ext)).then(|| {
            s.pattern = Some(format!("{{name}}.{ext}"));
            // The new extension is what they become, not which files they are.
            s.extensions.retain(|e| *e != ext);
            self.consumed[i + 2] = true;
            i + 3
        })
    }

    /// After the preposition at `i`: a new extension ("to .jpg"), or the place it introduces
    /// (where it happens, or where things go). The index after what it took.
    fn place_after_preposition(
        &mut self,
        s: &mut Slots,
        i: usize,
        w: &str,
        as_name: bool,
    ) -> Option<usize> {
        let (words, g) = (self.words, self.g);
        let to_target = (TARGET_PREPS.contains(&w) || as_name) && !says_what_went_there(words, i);
        // "switch every one of them to a .jpg ending": an ending said with an article.
        if to_target
            && words
                .get(i + 1)
                .is_some_and(|a| matches!(a.to_lowercase().as_str(), "a" | "an" | "the"))
            && words.get(i + 3).is_some_and(|n| {
                matches!(
                    n.trim_end_matches([',', ';', '.']).to_lowercase().as_str(),
                    "ending" | "extension" | "suffix"
                )
            })
            && let Some(ext) = words.get(i + 2).and_then(|n| {
                n.strip_prefix('.')
                    .map(|e| e.trim_end_matches([',', ';', '.']).to_lowercase())
                    .filter(|e| known_extension(e))
            })
        {
            s.pattern = Some(format!("{{name}}.{ext}"));
            s.extensions.retain(|e| *e != ext);
            self.consumed[i + 1..=i + 3].fill(true);
            return Some(i + 4);
        }
        // "rename the .jpeg files to .jpg": a new extension is a name pattern, not a place.
        if to_target
            && let Some(ext) = words.get(i + 1).and_then(|n| {
                n.strip_prefix('.')
                    .map(|e| e.trim_end_matches([',', ';', '.']).to_lowercase())
                    .filter(|e| known_extension(e))
            })
        {
            s.pattern = Some(format!("{{name}}.{ext}"));
            // The new extension is what they become, not which files they are.
            s.extensions.retain(|e| *e != ext);
            self.consumed[i + 1] = true;
            return Some(i + 2);
        }
        // "into one archive, Backup/uni-application.zip,": the container said first, then
        // named after a comma.
        // The name must be what such a container is: a file for an archive, a folder for a
        // folder, closing the apposition ("turn it into one compressed file, Writing/Old
        // drafts is …" goes on with a heading).
        let named_after = (i + 2..(i + 5).min(words.len()))
            .find(|&j| words[j - 1].ends_with(','))
            .filter(|&j| {
                let container = words[j - 1].trim_end_matches(',').to_lowercase();
                let closes = words[j].ends_with([',', ';', '.']) || j + 1 == words.len();
                (self.lookup)(words[j]).is_some_and(|p| {
                    if is_folder_noun(&container) {
                        p.contains('/') && closes
                    } else {
                        CONTAINER_WORDS.contains(&container.as_str()) && looks_like_file(&p)
                    }
                })
            });
        if to_target && let Some(j) = named_after {
            let q = (self.lookup)(words[j]).expect("a path");
            push_place(s, true, g.entry(&q).map_or(q, str::to_owned));
            self.consume(i + 1, j + 1);
            return Some(j + 1);
        }
        // "into a folder called X" / "to a new folder named X" was read as `name`; "into the
        // Archiv/Alt" is the path after its article.
        let next = (i + 1..words.len())
            .find(|&j| !DETERMINERS.contains(&words[j].to_lowercase().as_str()))
            .unwrap_or(i + 1);
        if let Some(q) = words.get(next).and_then(|n| (self.lookup)(n)) {
            let q = g.entry(&q).map_or(q, str::to_owned);
            // "put a copy of Downloads/Montserrat.zip in it": what a copy is of is what is
            // copied, an archive too.
            let copy_noun = i >= 1 && lexicon().copy_nouns.contains(&words[i - 1].to_lowercase());
            if w == "of" && copy_noun {
                if !s.objects.contains(&q) {
                    s.objects.push(q);
                }
            } else {
                push_place(s, to_target, q);
            }
            self.consume(i + 1, next + 1);
            return Some(next + 1);
        }
        // "of the photos in Downloads": a kind of file, not a folder (unless one exists or it is
        // written as a name: "in Photos").
        let after_determiner = words
            .get(i + 1)
            .is_some_and(|n| DETERMINERS.contains(&n.to_lowercase().as_str()));
        // Written in lower case ("the photos", not "the Photos") it is the kind, even when a
        // folder of that name exists.
        let written = words
            .get(if after_determiner { i + 2 } else { i + 1 })
            .map(|w| w.trim_end_matches([',', ';', '.']))
            .unwrap_or_default();
        let kind_word = (after_determiner || w == "of")
            && written.starts_with(|c: char| c.is_lowercase())
            && CATEGORY_WORDS.iter().any(|(c, _)| *c == written);
        // "a mountain of old stuff", "go through the documents in X": after "of" or "through"
        // only a name is a place (a path, a folder that exists, a capital).
        // "a couple of QSOs", "a bunch of PDFs": after an amount, "of" says what there is, even
        // written with capitals.
        // "full of PPL exam PDFs": what a folder is filled with.
        let amount_of = w == "of"
            && i >= 1
            && (lexicon()
                .quantity_words
                .contains(&words[i - 1].to_lowercase())
                || lexicon()
                    .filled_with
                    .iter()
                    .any(|p| p.strip_suffix(" of") == Some(&words[i - 1].to_lowercase())));
        // "two thousand photos of Noah": after a word for pictures, "of" says who or what they
        // show.
        let shown_of =
            w == "of" && i >= 1 && DEPICTIONS.contains(&words[i - 1].to_lowercase().as_str());
        // "all of Aunt Margit's things": a person's name.
        let someone = persons_name(words, i + 1);
        let weak_of = |p: &str| {
            someone && g.entry(p).is_none()
                || (w == "of" || w == "through")
                    && !p.contains('/')
                    && g.entry(p).is_none()
                    && (!p.starts_with(char::is_uppercase) || amount_of || shown_of)
        };
        let (place, next) =
            place_token(words, i + 1, g).filter(|(p, _)| to_target || !kind_word && !weak_of(p))?;
        push_place(s, to_target, place);
        self.consume(i + 1, next);
        Some(next)
    }

    /// A quoted name or a path not after a preposition (the object of the verb), or a name of
    /// several words that exists ("Photos 2023"), which wins over its words' meanings.
    fn named_thing(&mut self, s: &mut Slots, i: usize) -> Option<usize> {
        let g = self.g;
        if let Some(q) = (self.lookup)(self.words[i]) {
            if s.name.as_deref() != Some(q.as_str()) {
                s.objects.push(g.entry(&q).map_or(q, str::to_owned));
            }
            self.consumed[i] = true;
            return Some(i + 1);
        }
        if self.consumed[i] {
            return None;
        }
        let (place, next) = place_token(self.words, i, g)?;
        let grounded_name = next > i + 1
            && place.contains(' ')
            && (g.entry(&place).is_some() || place.ends_with(|c: char| c.is_ascii_digit()));
        if !grounded_name {
            return None;
        }
        s.objects.push(place);
        self.consume(i, next);
        Some(next)
    }

    /// Kinds of file said as words: bare extensions ("pdfs", "jpg files", "mp3s"), category
    /// words ("photos") and kind words ("spreadsheets").
    fn kinds_of_file(&mut self, s: &mut Slots, at: &At) {
        let At {
            i,
            raw,
            ref w,
            ref prev,
            ref next,
        } = *at;
        let singular = w.strip_suffix("'s").or(w.strip_suffix('s')).unwrap_or(w);
        // A kind word that is also an extension ("markdown", "raw files") names the whole kind.
        let kind_word = |cand: &str| {
            KIND_WORDS.iter().any(|(word, noun, _)| {
                *word == cand && (!noun || FILE_NOUNS.contains(&next.as_str()))
            })
        };
        for cand in [w.as_str(), singular] {
            if known_extension(cand)
                && !kind_word(cand)
                && !ADJECTIVE_EXTENSIONS.contains(&cand)
                && (!AMBIGUOUS_EXTENSIONS.contains(&cand)
                    || FILE_NOUNS.contains(&next.as_str())
                    || (cand != w
                        && cand.len() > 2
                        && !matches!(cand, "key" | "page" | "number" | "log" | "doc" | "part")))
                && !s.extensions.contains(&cand.to_owned())
                && !(cand == "zip" && (i == 0 || prev == "then" || prev == "and"))
            {
                s.extensions.push(cand.to_owned());
                self.consumed[i] = true;
                break;
            }
        }
        // "the .xlsx spreadsheets", "mp4 videos": a kind said after an extension only
        // describes it; it adds no other extensions of its kind.
        let after_its_extension = i > 0 && {
            let before = self.words[i - 1]
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '.')
                .trim_start_matches('.')
                .to_lowercase();
            !before.is_empty() && s.extensions.contains(&before)
        };
        if !self.consumed[i]
            && after_its_extension
            && (CATEGORY_WORDS.iter().any(|(word, _)| word == w)
                || KIND_WORDS.iter().any(|(word, _, _)| word == w))
        {
            self.consumed[i] = true;
        }
        // "Photos" written with a capital, naming a folder that exists, is that folder. So is a
        // common folder's name written with a capital inside the sentence ("dedupe Pictures";
        // "the pictures" is the kind).
        let names_folder = raw.starts_with(|c: char| c.is_uppercase())
            && (self.g.entry(w).is_some()
                || (i > 0 || opens_with_a_folder(raw)) && COMMON_FOLDERS.contains(&w.as_str()));
        // "compress my lecture slides from Documents/Course/Slides": the kind the folder they
        // come from is named after is what it holds, no kind to pick out of it ("move the raw
        // files to Pictures/Raw" picks them).
        let its_folder_s_name = self.words.iter().enumerate().any(|(j, word)| {
            let bare = word.trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
            let where_they_go =
                j > 0 && TARGET_PREPS.contains(&self.words[j - 1].to_lowercase().as_str());
            !where_they_go
                && (self.lookup)(bare).is_some_and(|p| {
                    p.contains('/')
                        && p.rsplit('/')
                            .next()
                            .is_some_and(|l| l.eq_ignore_ascii_case(w))
                })
        });
        if !self.consumed[i] && its_folder_s_name && !raw.starts_with(char::is_uppercase) {
            self.consumed[i] = true;
        }
        if !self.consumed[i]
            && !names_folder
            && let Some((_, cat)) = CATEGORY_WORDS.iter().find(|(word, _)| word == w)
        {
            for e in category_extensions(cat) {
                if !s.extensions.contains(&e) {
                    s.extensions.push(e);
                }
            }
            self.consumed[i] = true;
        }
        if !self.consumed[i]
            && let Some((_, _, exts)) = KIND_WORDS
                .iter()
                .find(|(word, noun, _)| word == w && (!noun || FILE_NOUNS.contains(&next.as_str())))
            // "the raw clips": a kind before a word for another category's files says how
            // they are, not which files ("excel spreadsheets" are of one category).
            && !CATEGORY_WORDS.iter().any(|(word, cat)| {
                *word == next.as_str()
                    && exts
                        .first()
                        .is_some_and(|e| !category_extensions(cat).iter().any(|x| x == e))
            })
        {
            for e in *exts {
                if !s.extensions.iter().any(|x| x == e) {
                    s.extensions.push((*e).to_owned());
                }
            }
            self.consumed[i] = true;
        }
    }

    /// ".crdownload" (an extension all the same), "all the .DS_Store files" (a name said as a
    /// kind of file), "every node_modules folder" (every folder of that name).
    fn dotted_or_every_folder(&mut self, s: &mut Slots, at: &At) -> Option<usize> {
        let At {
            i,
            raw,
            ref w,
            ref prev,
            ref next,
        } = *at;
        if self.consumed[i] {
            return None;
        }
        // "every .crdownload leftover": a dotted word in lower case that is no known type is
        // an extension all the same.
        let dotted = raw.trim_end_matches([',', ';', ':', '!', '?']);
        // "hidden files such as .htaccess included": a hidden file's name given as an example
        // of hidden files, no kind to select.
        let an_example = ["as", "like", "e.g.", "eg", "including"].contains(&prev.as_str())
            && self.words.iter().any(|w| {
                let l = w.to_lowercase();
                l.starts_with("hidden") || l.starts_with("dotfile")
            });
        if dotted.len() > 2 && dotted.starts_with('.') && an_example {
            self.consumed[i] = true;
            return Some(i + 1);
        }
        if dotted.len() > 2
            && dotted.starts_with('.')
            && dotted[1..]
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            && !known_extension(&dotted[1..])
        {
            let ext = dotted[1..].to_owned();
            if !s.extensions.contains(&ext) {
                s.extensions.push(ext);
            }
            self.consumed[i] = true;
            return Some(i + 1);
        }
        // "all the .DS_Store files": a name that is no file type, said as a kind of file.
        if s.name.is_none()
            && dotted.len() > 2
            && dotted.starts_with('.')
            && !dotted[1..].contains('.')
            && !known_extension(&w[1..])
            && FILE_NOUNS.contains(&next.as_str())
        {
            s.name = Some(dotted.to_owned());
            self.consumed[i] = true;
            return Some(i + 1);
        }
        // "nuke every node_modules folder under Code": every folder of that name, wherever.
        // ("every empty folder", "every other folder" say which folders, not a name.)
        const SAYS_WHICH: &[&str] = &["other", "single", "sub", "old", "new", "hidden", "last"];
        let says_which =
            lexicon().empty_phrases.iter().any(|p| p == w) || SAYS_WHICH.contains(&w.as_str());
        if s.name.is_none()
            && !says_which
            && matches!(prev.as_str(), "every" | "each" | "all" | "any")
            && self.words.get(i + 1).is_some_and(|n| is_folder_noun(n))
            && !w.contains('/')
            && !(self.lookup)(raw).is_some_and(|p| p.contains('/'))
        {
            s.name = Some(dotted.to_owned());
            s.kind = Some("dir".to_owned());
            self.consume(i, i + 2);
            return Some(i + 2);
        }
        None
    }

    /// Paths and file names standing as objects ("delete old.log", "unzip backup.zip"), and a
    /// word that names a folder; the index after a place of several words.
    fn object_or_place(&mut self, s: &mut Slots, at: &At) -> Option<usize> {
        let At { i, ref w, .. } = *at;
        if FORMAT_WORDS.contains(&w.as_str()) {
            self.consumed[i] = true;
        } else if !self.consumed[i] && (w.contains('/') || w.starts_with('~') || w.contains('.')) {
            if let Some((place, _)) = place_token(self.words, i, self.g) {
                s.objects.push(place);
                self.consumed[i] = true;
            }
        } else if !self.consumed[i] && self.names_a_place(at) {
            let (place, next) = place_token(self.words, i, self.g)?;
            s.objects.push(place);
            self.consume(i, next);
            return Some(next);
        } else if !self.consumed[i] && self.g.is_root(w) {
            s.whole_root = true;
        }
        None
    }

    /// Whether a word not read otherwise names a folder: one that exists, a common folder, a
    /// misspelt one, a name written with a capital where names go.
    fn names_a_place(&self, at: &At) -> bool {
        let At {
            i,
            raw,
            ref w,
            ref prev,
            ref next,
        } = *at;
        let words = self.words;
        // "Archive the old logs": the verb opening the request is no place.
        if i == 0 && lexicon().action_verbs.contains(w)
            // "how old is all that": a word asked how much of ("how Downloads would look
            // sorted" names a folder).
            || prev == "how" && !raw.starts_with(char::is_uppercase)
        {
            return false;
        }
        if (persons_name(words, i) || calendar_word(w)) && self.g.entry(w).is_none() {
            return false;
        }
        self.g.entry(w).is_some()
            || (COMMON_FOLDERS.contains(&w.as_str())
                || raw.starts_with(char::is_uppercase) && is_common_folder(w))
                && (i > 0 || opens_with_a_folder(raw))
                && !describes_files(next)
                // "Grandpa's old computer": "old" before a noun says which, it names no folder.
                && !(raw.starts_with(char::is_lowercase)
                    && ADJECTIVE_EXTENSIONS.contains(&w.as_str())
                    && a_noun_follows(raw, words.get(i + 1)))
                // "docs about the server migration": files of a kind, said what about.
                && !(FILE_NOUNS.contains(&w.as_str()) && ABOUT_WORDS.contains(&next.as_str()))
            || misspelt_folder(w)
            // "copy the folder Recipes to Backup", "a folder Taxes 2024": a name written with a
            // capital right after the word folder.
            // "serach Notes for the recipe", "ctrl+f my Notes": a name written with a capital
            // right after the opening verb or after "my" (requests are typed in lower case; a
            // capital marks a name).
            // Not "my Japanese course kit": a capital before a noun after "my" says which.
            || (i == 1 || prev == "my" && !a_noun_follows(raw, words.get(i + 1)))
                && names_with_a_capital(raw)
            || i == 0 && opens_with_two_names(words)
            // "3D printing has grown to 40 GB": a name with a number and a capital opens it.
            || i == 0
                && raw.starts_with(|c: char| c.is_ascii_digit())
                && raw.chars().any(|c| c.is_ascii_uppercase())
                && raw.chars().all(char::is_alphanumeric)
            // "how much is Recordings hogging", "how big are Photos": a name asked about.
            || matches!(prev.as_str(), "is" | "are") && names_with_a_capital(raw)
            // (Not "get a folder?, If a name's taken …": a stop ends what the folder is called.)
            || is_folder_noun(prev)
                && !prev.ends_with('s')
                && !prev.ends_with([',', ';', '.', '!', '?'])
                && (raw.starts_with(|c: char| c.is_uppercase())
                    || w.len() == 4 && w.chars().all(|c| c.is_ascii_digit()))
                && !LOCATION_PREPS.contains(&w.as_str())
                && !TARGET_PREPS.contains(&w.as_str())
            // "VMs folder: top fifteen …": a name written with a capital opens a request.
            || (i > 0 || raw.starts_with(char::is_uppercase))
                && words
                    .get(i + 1)
                    .is_some_and(|n| {
                        // "that trip folder's space": the folder's own.
                        let n = n.strip_suffix("'s").or(n.strip_suffix("’s")).unwrap_or(n);
                        is_folder_noun(n) && !n.ends_with('s')
                    })
                && w.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-')
                && !NOT_A_PLACE.contains(&w.as_str())
                && !DETERMINERS.contains(&w.as_str())
                && !LOCATION_PREPS.contains(&w.as_str())
                && !TARGET_PREPS.contains(&w.as_str())
                && ![
                    "per", "by", "new", "same", "one", "another", "sub", "whole", "entire", "own",
                    "its", "their", "each", "every", "separate",
                ]
                .contains(&w.as_str())
    }

    /// Marks the words `from..to` as taken.
    fn consume(&mut self, from: usize, to: usize) {
        for c in &mut self.consumed[from..to.min(self.words.len())] {
            *c = true;
        }
    }
}
