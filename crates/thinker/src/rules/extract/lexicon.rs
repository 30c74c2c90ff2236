//! The rule planner's lexicon: folder words, place and format words, extension categories, and the
//! regular expressions that read sizes, dates, ages, globs, patterns and the like. Pure data.

use std::sync::LazyLock;

use regex::Regex;

/// Folder names people use without the folder existing in the grounding list.
pub(super) const COMMON_FOLDERS: &[&str] = &[
    "downloads",
    "desktop",
    "documents",
    "pictures",
    "photos",
    "music",
    "videos",
    "movies",
    "home",
    "tmp",
    "temp",
    "archive",
    "archives",
    "backup",
    "backups",
    "projects",
    "screenshots",
    "inbox",
    "old",
    // The same folders as German systems name them (never "corrected" into English).
    "dokumente",
    "bilder",
    "musik",
    "schreibtisch",
    "projekte",
    // ... and as Spanish and French systems do ("haz un zip de Documentos/Facturas").
    "documentos",
    "descargas",
    "imágenes",
    "escritorio",
    "música",
    "téléchargements",
    "bureau",
    "musique",
    "vidéos",
];

/// Words that follow "in"/"to"/"into" without being a place.
pub(super) const NOT_A_PLACE: &[&str] = &[
    "it",
    "them",
    "they",
    "there",
    "here",
    "this",
    "that",
    "these",
    "those",
    "one",
    "ones",
    "order",
    "place",
    "general",
    "total",
    "bulk",
    "full",
    "folders",
    "subfolders",
    "folder",
    "directories",
    "directory",
    "files",
    "file",
    "names",
    "name",
    "groups",
    "categories",
    "category",
    "type",
    "types",
    "kind",
    "kinds",
    "alphabetical",
    "lowercase",
    "uppercase",
    "capitals",
    "caps",
    "sequence",
    "detail",
    "details",
    "size",
    "sizes",
    "date",
    "dates",
    "the",
    "a",
    "an",
    "my",
    "your",
    "our",
    "each",
    "every",
    "all",
    "any",
    "some",
    "other",
    "same",
    "case",
    "front",
    "lower",
    "upper",
    "title",
    "zip",
    "tar",
    "gz",
    "tgz",
    "tarball",
    "archive",
    "last",
    "past",
    "days",
    "weeks",
    "months",
    "years",
    "day",
    "week",
    "month",
    "year",
    "use",
    "space",
    "disk",
    "question",
    "words",
    "word",
    "mind",
    "total",
    "addition",
    "favour",
    "favor",
    "case",
    "short",
    "fact",
];

pub(super) const DETERMINERS: &[&str] = &[
    "the", "my", "our", "your", "this", "that", "a", "an", "his", "her",
];

pub(super) const FOLDER_NOUNS: &[&str] = &["folder", "folders", "directory", "dir", "directories"];

/// "folder", "directory" and their misspellings ("foldr", "fodler").
pub(in crate::rules) fn is_folder_noun(word: &str) -> bool {
    let w = word.to_lowercase();
    let w = w.trim_end_matches([',', '.', ';', ':', '!', '?']);
    // "that trip folder's space": the folder's own.
    let w = w.strip_suffix("'s").or(w.strip_suffix("’s")).unwrap_or(w);
    FOLDER_NOUNS.contains(&w)
        || w.len() >= 5 && super::super::normalize::osa_distance(w, "folder") == 1
        || w.len() >= 8 && super::super::normalize::osa_distance(w, "directory") == 1
}

/// A bare word that is a misspelt common folder ("dekstop", "downlods", "Pictrues"): one edit
/// from a folder name of six letters or more, and not just its singular ("picture").
pub(super) fn misspelt_folder(word: &str) -> bool {
    let w = word.to_lowercase();
    if w.len() < 5 || COMMON_FOLDERS.contains(&w.as_str()) || !w.chars().all(char::is_alphabetic) {
        return false;
    }
    // "Bakup/…": five letters only with the first one right.
    let mut hits = COMMON_FOLDERS.iter().filter(|f| {
        f.len() >= 6
            && **f != format!("{w}s")
            && (w.len() >= 6 || f.chars().next() == w.chars().next())
            && super::super::normalize::osa_distance(&w, f) == 1
    });
    hits.next().is_some() && hits.next().is_none()
}

/// Archive formats written like file names ("tar.gz"): a format, never a file to act on.
pub(super) const FORMAT_WORDS: &[&str] = &[
    "tar.gz", "tar.zst", "tar.bz2", "tar.xz", "tgz", ".zip", ".tar",
];

pub(super) fn re(s: &str) -> Regex {
    Regex::new(s).expect("static regex")
}

pub(in crate::rules) static DELETE_ORIGINALS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\b(delete|deleting|remove|removing|nuke|nuking|trash|trashing|erase|erasing|discard|discarding|drop|dropping|get rid of|getting rid of|bin|binning|wipe|wiping|ditch|ditching|toss|tossing|lose|clear out|clearing out|clean out)\s+(?:then\s+|afterwards\s+|later\s+|also\s+)?(the\s+|all\s+)?(?:(?:loose\s+)?originals?|loose (?:copies|files|ones)|uncompressed (?:copy|copies|files?|folders?|version)|source (?:files?|folders?|director(?:y|ies))|(?:source\s+)?(?:folder|directory)\s+itself|(?:source\s+)?(?:folder|directory|files)\s+(?:after|once|when)\s+(?:packing|zipping|archiving|packed|zipped|archived|compressed|it's packed|it's zipped|it's archived))\b|\b(?:the\s+)?(?:originals?|loose\s+(?:copies|files|ones)|(?:folder|directory)(?:\s+itself)?)\s+(?:can|may|should)\s+(?:go|disappear|vanish|be deleted|be removed|be trashed)\b|\b(?:the\s+)?[a-z]+\s+(?:themselves|itself)\s+(?:can|may|should)\s+(?:go|disappear|vanish|be deleted|be removed|be trashed)\b|\boriginals?\s+(?:needn't|need not|don't need to|do not need to|shouldn't|should not|mustn't|must not)\s+(?:stick around|stay|be kept|survive|linger|remain)\b|\boriginals?\s+(?:removed|deleted|gone|trashed|binned)\b|\b(?:don't|do not|dont|not)\s+leave\s+(?:the\s+)?(?:originals?|loose (?:copies|files|ones))\s+behind\b|\b(?:the\s+)?(?:[a-z]+\s+)?[a-z]+s\s+can\s+go\s+(?:once|after|when)\s+(?:they're\s+|they\s+are\s+)?(?:archived|packed|zipped|compressed|inside|in there|in it)\b|\bno need to keep (?:the\s+)?(?:originals?|(?:unpacked|uncompressed|loose) (?:versions?|copies|files?|ones))\b|\b(?:delete|remove|trash|erase|wipe|nuke|bin|ditch|drop|lose)\s+(?:them|those|these|it|the files|the\s+[a-z]+s)\s+(?:from\s+(?:the\s+)?disk\s+)?(?:once|after|when)\s+(?:they're\s+|it's\s+|they\s+are\s+|it\s+is\s+)?(?:safely\s+)?(?:archived|packed|zipped|compressed|inside|in there|in it|in the archive)\b|\b(?:delete|remove|trash|erase|wipe|nuke|bin|ditch|drop|lose)\s+what\s+(?:was|got|has been|went)\s+(?:packed|zipped|archived|compressed|in)\b|\b(?:delete|remove|trash|erase|wipe|nuke|bin|ditch|drop|lose)\s+the\s+[a-z]+\s+(?:themselves|itself)\b|\b(?:the|those|these)\s+(?:[a-z]+\s+)?[a-z]+s\s+(?:deleted|removed|trashed|binned|erased)\s+(?:once|after|when)\s+(?:they're\s+|they\s+are\s+)?(?:archived|packed|zipped|compressed|inside|in there|in it|in the archive)\b",
    )
});
/// Quoted text. A single quote opens only where no letter or digit comes before it and closes
/// only where none follows: the apostrophes of "what's … it's" quote nothing.
pub(in crate::rules) static QUOTED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#""([^"]+)"|“([^”]+)”|„([^“”]+)[“”]|«([^»]+)»|»([^«]+)«|\B'([^']+)'\B|`([^`]+)`|‘([^’]+)’|‚([^‘’]+)[‘’]"#,
    )
});
/// Sizes said in words ("a gig", "2 gigs", "500 megabytes"): rewritten as units before sizes are
/// read. The unit is group 2; group 1 the number, absent for "a"/"an"/"one".
pub(super) static SIZE_IN_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:(\d+(?:[.,]\d+)?)\s*|(?:a|an|one)\s+)(gig|gigs|gigabytes?|megs?|megabytes?|terabytes?|kilobytes?)\b",
    )
});
pub(super) static SIZE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(larger|bigger|greater|more|over|above|past|beyond|at least|exceeding|heavier|smaller|less|under|below|at most|lighter|up to|>=?|<=?)\s*(?:than\s*)?(\d+(?:[.,]\d+)?)\s*(kib|mib|gib|tib|kb|mb|gb|tb|k|m|g|bytes?|b)\b",
    )
});
/// "2 KB of it is enough", "just 500 bytes of it": the same, said after the file.
pub(super) static READ_LIMIT_OF_IT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(\d+(?:[.,]\d+)?)\s*(kib|mib|kb|mb|k|m|bytes?|b|characters|chars)\s+of\s+(?:it|that|the file)\b",
    )
});
/// "print 2048 bytes from the top", "500 characters from the start": how much of a file to read,
/// counted from where it begins.
pub(super) static READ_LIMIT_FROM_TOP: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(\d+(?:[.,]\d+)?)\s*(kib|kb|k|bytes?|characters|chars)\s+(?:from|at)\s+the\s+(?:top|start|beginning)\b",
    )
});
/// "…, 4 KB max": how much of a file to read, said after it.
pub(super) static READ_LIMIT_MAX: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(\d+(?:[.,]\d+)?)\s*(kib|kb|k|bytes?|b|characters|chars)\s+(?:max|maximum|tops)\b")
});
/// "the first 8 KB", "first 200 bytes", "the first 4000 characters": how much of a file to read.
pub(super) static READ_LIMIT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:only\s+)?(?:the\s+)?(?:first|top|beginning|initial|opening)\s+(\d+(?:[.,]\d+)?)\s*(kib|mib|kb|mb|k|m|bytes?|b|characters|chars)\b",
    )
});
/// "new empty file ideas.md", "make an empty folder": made empty, not selected for being empty.
pub(super) static MADE_EMPTY: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b(?:new|create|make|add|touch)\s+(?:an?\s+|a\s+new\s+|new\s+)?empty\b"));
/// "500MB+", "4 GB or more", "2 GB and up", "from 2 GB up" (group 3 is "less" or "smaller" for "10 MB or less").
pub(super) static SIZE_PLUS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(\d+(?:[.,]\d+)?)\s*(kb|mb|gb|tb|k|m|g)\b(?:\s*\+|\s+up\b|\s+(?:or|and)\s+(more|bigger|larger|heavier|greater|above|over|up|less|smaller|lighter|under|below))",
    )
});
/// Numbers written as words from two on ("eighteen months", "top fifteen"), for the regexes;
/// `number_word` reads them.
pub(in crate::rules) const NUMBER_WORDS: &str = "two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|ninety|hundred";
pub(super) static AGE: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)\b(older than|more than|over the last|over the past|over|past|(?:not|never) (?:been |seen |got |gotten )?(?:modified|touched|opened|changed|used|edited|accessed)(?: (?:in|for))?(?: the last| the past| more than| over)?|(?:nobody|no one|noone) (?:has |have |had )?(?:opened|touched|used|edited|changed|looked at)(?: (?:it|them|those))?(?: (?:in|for))?(?: the last| the past| more than| over)?|untouched (?:for|in)(?: more than| over)?|newer than|younger than|less than|within|in the last|in the past|this past|during the last|during the past|from the last|from the past|since|modified in the last|changed in the last|edited in the last)\s+(\d+|a|an|one|{NUMBER_WORDS}|few|couple of|couple|several)?\+?\s*(day|week|month|year|hour)s?\b(\s+(?:old|ago))?"
    ))
});
/// What comes before a day said as when something is needed, not when files changed: "the
/// agent wants it today", "due today", "needs them by tomorrow".
pub(super) static DEADLINE_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:wants?|needs?|expects?|due|by|ready)\s+(?:(?:it|them|this|that|these|those)\s+)?(?:back\s+)?(?:by\s+)?$",
    )
});
pub(super) static RELATIVE_DAY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(today|yesterday|this week|last week|this month|last month|this year|last year|recently|recent|lately|new files|latest files|since (?:last )?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|the weekend))\b",
    )
});
pub(super) static ISO_DATE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(before|prior to|after|since|until|till|from|older than|newer than)\s+(\d{4}-\d{2}-\d{2})\b",
    )
});
/// "since 1 March 2025", "before May 3, 2024", "after the 5th of June 2023": a date in words.
pub(super) static WORD_DATE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(before|prior to|after|since|until|till|from|older than|newer than|earlier than|later than|predates|predate|predating|pre-dates)\s+(?:the\s+)?(?:(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?)?(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?(?:\s+(\d{1,2})(?:st|nd|rd|th)?)?,?\s+((?:19|20)\d\d)\b",
    )
});
/// The month a (lower-case) month name or its abbreviation names.
pub(super) fn month_number(name: &str) -> Option<u32> {
    const MONTHS: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let key = name.get(..3)?;
    MONTHS.iter().position(|m| *m == key).map(|i| i as u32 + 1)
}
/// "not modified since 2022", "haven't touched since 2021", "untouched since 2022": last changed
/// before that year. Also with the year first, as German puts it ("seit 2023 nicht mehr geändert": "since 2023 not
/// modified"); the year is the first group that matched.
pub(super) static NOT_SINCE_YEAR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:(?:(?:not|never)\s+(?:been\s+)?(?:modified|touched|opened|changed|used|edited|accessed)(?:\s+at\s+all)?|untouched)\s+(?:since|after)\s+(?:the\s+(?:start|beginning)\s+of\s+)?((?:19|20)\d{2})|since\s+((?:19|20)\d{2})\s+(?:not|never|no longer)\s+(?:been\s+)?(?:modified|touched|opened|changed|used|edited|accessed))\b",
    )
});
/// "from before 2020", "after 2021", "pre-2021": changed before the year began, or after it
/// ended.
pub(super) static AROUND_YEAR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(before|until|till|prior to|earlier than|older than|after|later than|newer than|predates|predate|predating|pre-dates|pre-|post-)\s*((?:19|20)\d{2})\b",
    )
});
/// "since 2023": changed after the year began (before it, when denied: "nobody's touched since").
pub(super) static SINCE_YEAR: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\bsince\s+((?:19|20)\d{2})\b"));
pub(super) static YEAR: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:from|in|during|of)\s+((?:19|20)\d{2})\b"));
pub(super) static KEEP: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(newest|latest|most recent|newer|youngest|oldest|original|originals|earliest|older|came first|(?:made|saved|created|took|shot|scanned|downloaded|got) first|og|shortest(?: path)?|first|biggest|bigger|largest|larger|highest[- ]resolution)\b",
    )
});
pub(super) static EXCLUDE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\b(?:except(?: for)?|excluding|but not|apart from|other than|without touching|not touching|(?:do not|don't|dont|never) touch|leave|leaving|skip|skipping|protect|protecting|ignore|ignoring)\s+((?:"[^"]+"|'[^']+'|`[^`]+`|[^\s,;]+)(?:\s+(?:and|,)\s+(?:"[^"]+"|'[^']+'|`[^`]+`|[^\s,;]+))*)(?:\s+(?:alone|untouched|intact|as is|folder|directory))?"#,
    )
});
/// "the originals live in X", "the OG files in X stay put", "treat X as the master copies", "X
/// stays untouched as the reference", "the files in X are our originals": a place whose files stay as they are (read like "don't
/// touch X").
pub(super) static ORIGINALS_IN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\b(?:the\s+)?(?:originals?|og\s+files|og\s+ones|master\s+copies|masters)\s+(?:live\s+|are\s+|sit\s+|stay\s+|lie\s+)?(?:in|inside|under)\s+("[^"]+"|'[^']+'|\S+)(?:\s+(?:stay\s+put|and\s+must\s+not\s+be\s+touched|must\s+not\s+be\s+touched|stay\s+untouched))?|\b(?:whatever's|whatever\s+is|everything|anything|what's)\s+in\s+("[^"]+"|'[^']+'|\S+)\s+is\s+(?:sacred|off[- ]limits|untouchable|precious|holy|important)\b|("[^"]+"|'[^']+'|\S+)\s+is\s+(?:the\s+)?(?:master|reference|source of truth)\b|\b(?:with|treat|treating)\s+("[^"]+"|'[^']+'|\S+)\s+as\s+(?:the\s+|my\s+)?(?:untouchable\s+|untouched\s+)?(?:reference|master|originals?)\b|("[^"]+"|'[^']+'|\S+)\s+(?:stays?|remains?)\s+untouched\s+as\s+(?:the\s+|my\s+)?(?:reference|master|originals?)\b|(?:\bthe\s+(?:files|ones|copies)\s+(?:in|inside|under)\s+)?("[^"]+"|'[^']+'|⟦\d+⟧)\s+(?:are|is|holds?|contains?)\s+(?:our|my|the|their)\s+(?:originals?|masters?|master\s+copies)\b"#,
    )
});
/// "prefer keeping the copies that are in X", "ideally the one in X survives": where the copy to
/// keep is.
pub(super) static PREFER_IN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\bprefer(?:ring|s)?\s+(?:to\s+keep|keeping)\s+(?:the\s+)?(?:copies|files|ones|versions)?\s*(?:that\s+are\s+|which\s+are\s+)?(?:in|inside|under|from)\s+("[^"]+"|'[^']+'|\S+)|\b(?:prefer(?:ring|s)?|favou?r(?:ing|s)?)\s+(?:whatever|whichever(?:\s+(?:copy|one|file|version))?|the\s+(?:copy|copies|ones?|versions?|files?))\s+(?:that\s+|which\s+)?(?:sits?|lives?|is|are|lies?)?\s*(?:in|inside|under)\s+("[^"]+"|'[^']+'|\S+)|\b(?:the\s+)?(?:one|ones|copy|copies|version|versions)\s+(?:in|inside|under)\s+("[^"]+"|'[^']+'|\S+)\s+(?:survives?|stays?|remains?|wins?|is\s+kept|gets\s+kept|should\s+(?:survive|stay|remain|win))\b"#,
    )
});
pub(super) static GLOB: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:^|\s)([\w\-\[\]]*\*[\w.\-*\[\]]*|[\w\-]*\?[\w.\-]+)(?:\s|$|,)"));
pub(super) static DOT_EXT: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:^|[\s(,/])\.([A-Za-z0-9]{1,10})\b"));
pub(super) static EXAMPLE_NAMES: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b([A-Za-z][\w\-]*?)(\d+)(\.[a-z0-9]{1,6})?\s*,\s*([A-Za-z][\w\-]*?)(\d+)(\.[a-z0-9]{1,6})?(?:(?:\s*,\s*|\s+and\s+)[A-Za-z][\w\-]*?\d+(?:\.[a-z0-9]{1,6})?\b)*(?:\s*,\s*(?:\.\.\.|…|etc\.?))?",
    )
});
/// One zero-padded example and "and so on": "to vacay_001.jpg and so on", "scan_01 etc.",
/// "candle_001.jpg onward", "holiday19_001 and up".
pub(super) static ONE_EXAMPLE_NAME: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b([A-Za-z][\w\-]*?)(0\d*)(\.[a-z0-9]{1,6})?\s*,?\s*(?:and so on|and so forth|etc\.?|\.\.\.|…|(?:and\s+)?(?:up|upwards?|onwards?)\b)",
    )
});
/// File names listed as examples: "⟦3⟧, ⟦4⟧ and so on", "⟦3⟧ etc.".
pub(super) static EXAMPLES_AND_SO_ON: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)⟦\d+⟧(?:,?\s*⟦\d+⟧)*,?\s*(?:and so on|and so forth|and upwards|and onwards|etc\.?|\.\.\.|…)",
    )
});
pub(super) static PATTERN: LazyLock<Regex> =
    LazyLock::new(|| re(r"(\S*\{[a-z.]+(?::[^}]*)?\}\S*)"));
pub(super) static LIMIT: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)\b(?:(?:top|first|best|largest|biggest|(\d+|{NUMBER_WORDS})\s+(?:largest|biggest|heaviest|fattest|newest|oldest|most recent))\s*(\d+|{NUMBER_WORDS})?|(?:show|give|list|tell)\s+me\s+(\d+)|(?:which|what)\s+(\d+)\s+of|(?:which|what)\s+(\d+|{NUMBER_WORDS})\s+\w+\b[^,;?]*?\b(?:heaviest|fattest|biggest|largest|newest|oldest|weigh(?: the)? most|(?:take up|hog|eat)(?: \S+)? the most))\b"
    ))
});
/// Text ending "into a new folder", "in a folder", "to a separate directory": a folder named next
/// ("called X") is where things go.
pub(super) static INTO_A_FOLDER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:in|into|to|inside)\s+(?:a|an|the|one)?\s*(?:new\s+|separate\s+|own\s+|single\s+)?(?:sub)?(?:folder|directory|dir)\s*,?\s*$",
    )
});
/// "a text file vet questions.txt": a word after a word for a file, maybe its name's first.
pub(super) static FILE_THEN_A_WORD: LazyLock<Regex> =
    LazyLock::new(|| re(r"\b(?:file|note)\s+([a-z][a-z-]+)\b"));
pub(super) static CALLED: LazyLock<Regex> = LazyLock::new(|| {
    // "called Receipts 2024": a name and the year after it are one name, and so are words
    // written with capitals ("called Hive 7 – Carniolan (split May 2026)"); "set me up a skill,
    // invoice-zipper", "a new ability of yours, weekly-screenshots" and "zoom-janitor: teach
    // yourself to …" name what to make; so does a name of three hyphenated words after a verb
    // that makes ("set up chat-to-pdf to do that"); so does a name between commas after "a
    // folder" ("add a folder, Phase two, under …"), and one before "folder" after a word that
    // wants or makes one ("I need an Invoices folder inside …", "set up a League subfolder").
    re(
        r#"(?i)\b(?:called|named|titled|name it|call it)\s+("[^"]+"|'[^']+'|`[^`]+`|(?-i:[A-Z][^\s,;]*(?:\s+(?:[A-Z0-9][^\s,;]*|[–-]\s+[A-Z0-9][^\s,;]*|\([^)]*\)))+)|[^\s,;]+(?:\s+(?:19|20)\d\d\b)?)|\brename (?:it|that|this|that file|the file)\s+(⟦\d+⟧|[^\s,;/]+\.[a-z0-9]{1,6}\b)|\b(?:skill|command|trick|ability)(?:\s+(?:of\s+yours|of\s+your\s+own|for\s+me))?,?\s+([a-z0-9]+(?:-[a-z0-9]+)+)\b|^([a-z0-9]+(?:-[a-z0-9]+)+):\s|\b(?:set\s+up|build|create|make)\s+([a-z0-9]+(?:-[a-z0-9]+){2,})\b|\b(?:an?|new)\s+(?:new\s+)?(?:folder|subfolder|directory),\s+((?-i:[A-Z0-9][^\s,;]*(?:\s+[^\s,;]+){0,3})),|\b(?:need|needs|want|wants|set\s+up|make|create|add)\s+(?:an?|another)\s+(?:new\s+)?((?-i:[A-Z][\w-]*))\s+(?:folder|subfolder|directory)\b"#,
    )
});
/// An example of the names in a folder: "names look like saga_vol_01.cbz", "has names like
/// IMG_8812.pdf", "DocuSign_8f3a.pdf-style names", "the copier calls every file
/// scan_00231.pdf", "calls everything doc0001.pdf, doc0002.pdf".
pub(super) static NAMES_LIKE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bnames?\s+(?:that\s+)?(?:look\s+|looking\s+)?like\s+[\w\-]+\.[a-z0-9]{1,6}\b|\b[\w\-]+\.[a-z0-9]{1,6}-style\b|\b(?:calls?|names?|named)\s+(?:every\s+(?:single\s+)?(?:file|one|scan|page)|everything|each\s+(?:file|one|scan)|all\s+(?:of\s+)?(?:the\s+)?(?:files|them|scans))\s+(?:like\s+)?[\w\-]+\.[a-z0-9]{1,6}\b(?:,\s+[\w\-]+\.[a-z0-9]{1,6}\b)*",
    )
});
pub(super) static CONTENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r#"(?i)\b(?:with (?:the )?(?:text|content|contents|content of|words?|line)|containing the text|containing|that (?:just |only |simply )?says|saying)\s+("[^"]+"|'[^']+'|.+)$|\bwith\s+(⟦\d+⟧|"[^"]+"|'[^']+')\s+(?:in it|inside|in there|as (?:its )?(?:text|content|contents))\b|\b(?:write|create|make|jot|start)\s+\S+\s+with\s+(⟦\d+⟧|"[^"]+"|'[^']+')[.!]*$|\b(?:jot|write|put|note|type|add)\s+(?:down\s+)?(⟦\d+⟧|"[^"]+"|'[^']+')\s+(?:down\s+)?(?:into|in|to|inside)\s"#,
    )
});
pub(super) static DURATION: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)^(?:the (?:last|past) )?(?:\d+|a|an|one|{NUMBER_WORDS})?\s*(?:day|week|month|year|hour)s?\b"
    ))
});
pub(super) static QUERY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:about|mentioning|mention|mentions|where (?:i|we) (?:said|wrote|mentioned|promised|told|agreed)|in which (?:i|we) (?:said|wrote|mentioned)|where it says|containing|contain|contains|that talk about|talking about|related to|regarding|referring to|that discuss|discussing|with the words?|with the phrase|for)\s+(.+)$",
    )
});
/// "the documents in which the deposit is mentioned": what is mentioned, said before the verb.
pub(super) static MENTIONED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:in which|where|that)\s+(?:the\s+|a\s+|an\s+)?(.+?)\s+(?:is|are|was|were|gets?|got)\s+mentioned\b",
    )
});
pub(super) static REFERS_BACK: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(them|these|those|it|its (?:entries|contents?|files|members|listing|text)|they|their|the (?:zip|archive|tarball)|the results?|the matches|the hits|what you found|the ones? (?:you )?found|the found files|the selection|the same files|such files|the rest|the remaining|the remainder|the leftovers?|the (?:best|top|closest) (?:match|hit|one|result)|the first (?:match|hit|one|result))\b",
    )
});
pub(super) static RECURSIVE_ON: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(everywhere|recursive(?:ly)?|including (?:every |each |all |its |their )?sub-?folders?|in all sub-?folders|and (?:all )?(?:its |their )?sub-?folders|and (?:all )?sub-?directories|sub-?(?:folders|directories) (?:included|too|as well)|with (?:all )?(?:its |their )?sub-?(?:folders|directories)|(?:everything|all|anything|what's|whats|what is|what sits|what lives)\s+(?:what's\s+|that's\s+)?in\s+(?:the\s+|its\s+|their\s+)?sub-?(?:folders|directories)|(?:everything|all)\s+beneath|nested folders and all|(?:and\s+)?(?:all\s+|every\s+)?nested (?:\w+ )?(?:folders?|directories|directory|sub-?folders?|sections|levels)(?:\s+too)?|not just the top level|the whole tree|all levels|every level|in (?:every|each|all|any) sub-?(?:folders?|directory|directories)|(?:down )?to the (?:last|deepest|lowest|bottom) (?:level|sub-?level|sub-?folder)|all the way down|every sub-?(?:folder|directory)|sub-?(?:folder|directory) by sub-?(?:folder|directory)|folder by folder|sub-?(?:folders|directories) and all|with every (?:sub-?)?(?:folder|directory) inside|(?:going |go )?down into (?:every|each|all) (?:\w+'s )?sub-?(?:folders?|directory|directories)|(?:every|each) \w+'s sub-?(?:folders?|directory)|folders within folders|deep)\b",
    )
});
pub(super) static RECURSIVE_OFF: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(top[- ]level only|only the top level|not (?:in )?sub-?folders|without sub-?folders|non-?recursive(?:ly)?|loose files|directly in)\b",
    )
});
/// "pack the whole thing to Backup/x.tar.zst": the folder the request is about, whole.
pub(super) static WHOLE_PLACE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(the whole thing|the entire thing|the whole lot|all of it|the lot of it)\b")
});
pub(super) static WHOLE_ROOT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(everything|this folder|this directory|the whole folder|the working folder|here|the current folder|all my files|all files)\b",
    )
});

/// Extensions that are also ordinary words or verbs: accepted only as `.ext`, `*.ext` or followed
/// by a file noun.
pub(super) const AMBIGUOUS_EXTENSIONS: &[&str] = &[
    "zip", "tar", "gz", "rar", "7z", "key", "pages", "numbers", "bin", "app", "tex", "dat", "raw",
    "c", "h", "r", "go", "rs", "py", "js", "ts", "cs", "pl", "sh", "md", "org", "ass", "lz", "xz",
    "cc", "kt", "rb", "mid", "ico", "ps1", "bash", "lua", "sql", "css", "vue", "log", "tmp", "bak",
    "old", "doc", "txt", "iso", "part",
];

/// Extensions that are adjectives before a file noun ("the old files" are not `.old` files): only
/// written with a dot they name the extension.
pub(super) const ADJECTIVE_EXTENSIONS: &[&str] = &["old", "new", "big"];

/// Words after a kind of file that say what the files are about ("documents about taxes").
pub(super) const ABOUT_WORDS: &[&str] = &[
    "about",
    "on",
    "regarding",
    "concerning",
    "mentioning",
    "that",
    "which",
    "where",
];

pub(super) const FILE_NOUNS: &[&str] = &[
    "file",
    "files",
    "document",
    "documents",
    "docs",
    "images",
    "image",
    "photos",
    "pictures",
    "archives",
    "songs",
    "tracks",
    "videos",
    "clips",
    "sheets",
    "spreadsheets",
    "scripts",
    "logs",
    "stuff",
];

/// Category words that select every extension of a sandbox category.
pub(super) const CATEGORY_WORDS: &[(&str, &str)] = &[
    ("photos", "Images"),
    ("photo", "Images"),
    ("pictures", "Images"),
    ("pics", "Images"),
    ("images", "Images"),
    ("screenshots", "Images"),
    ("music", "Audio"),
    ("songs", "Audio"),
    ("audio", "Audio"),
    ("tracks", "Audio"),
    ("podcasts", "Audio"),
    ("videos", "Video"),
    ("movies", "Video"),
    ("clips", "Video"),
    ("installers", "Installers"),
    ("ebooks", "Ebooks"),
    ("fonts", "Fonts"),
    ("spreadsheets", "Data"),
];

/// Words for a kind of file that is narrower than a category: (word, whether a file noun must
/// follow it, the extensions). "text files", "Word documents", "presentations".
pub(super) const KIND_WORDS: &[(&str, bool, &[&str])] = &[
    ("text", true, &["txt", "md", "markdown", "rst", "org"]),
    ("plain-text", true, &["txt"]),
    ("word", true, &["doc", "docx", "odt", "rtf"]),
    ("excel", true, &["xls", "xlsx", "ods"]),
    ("powerpoint", true, &["ppt", "pptx", "odp", "key"]),
    ("presentations", false, &["ppt", "pptx", "odp", "key"]),
    ("slides", false, &["ppt", "pptx", "odp", "key"]),
    ("markdown", false, &["md", "markdown"]),
    ("subtitles", false, &["srt", "vtt", "ass", "ssa", "sub"]),
    (
        "raw",
        true,
        &["raw", "cr2", "cr3", "nef", "arw", "dng", "orf", "rw2"],
    ),
];

pub(super) fn known_extension(word: &str) -> bool {
    sandbox::CATEGORIES
        .iter()
        .any(|(_, exts)| exts.contains(&word))
        || matches!(word, "log" | "tmp" | "bak" | "old" | "crdownload" | "part")
}

pub(super) fn category_extensions(category: &str) -> Vec<String> {
    sandbox::CATEGORIES
        .iter()
        .find(|(c, _)| c.eq_ignore_ascii_case(category))
        .map(|(_, exts)| exts.iter().map(|e| (*e).to_owned()).collect())
        .unwrap_or_default()
}

pub(super) fn unquote(s: &str) -> String {
    let t = s.trim();
    for (a, b) in [
        ("\"", "\""),
        ("'", "'"),
        ("`", "`"),
        ("“", "”"),
        ("‘", "’"),
        ("„", "“"),
        ("„", "”"),
        ("«", "»"),
        ("»", "«"),
        ("‚", "‘"),
        ("‚", "’"),
    ] {
        if let Some(inner) = t.strip_prefix(a).and_then(|r| r.strip_suffix(b)) {
            return inner.to_owned();
        }
    }
    t.trim_end_matches(['.', ',', ';', ':', '!', '?'])
        .to_owned()
}

pub(super) fn number_word(w: &str) -> Option<u64> {
    Some(match w.to_lowercase().as_str() {
        "" | "a" | "an" | "one" => 1,
        // "in the past few days", "the last couple of weeks": about that many.
        "couple" | "couple of" => 2,
        "few" => 3,
        "several" => 5,
        "two" => 2,
        "three" => 3,
        "four" => 4,
        "five" => 5,
        "six" => 6,
        "seven" => 7,
        "eight" => 8,
        "nine" => 9,
        "ten" => 10,
        "eleven" => 11,
        "twelve" => 12,
        "thirteen" => 13,
        "fourteen" => 14,
        "fifteen" => 15,
        "sixteen" => 16,
        "seventeen" => 17,
        "eighteen" => 18,
        "nineteen" => 19,
        "twenty" => 20,
        "thirty" => 30,
        "forty" => 40,
        "fifty" => 50,
        "sixty" => 60,
        "ninety" => 90,
        "hundred" => 100,
        n => n.parse().ok()?,
    })
}

/// `n unit` as an age string the sandbox's date parser reads (`30days`).
pub(super) fn age(n: u64, unit: &str) -> String {
    let unit = unit.to_lowercase();
    let unit = unit.trim_end_matches('s');
    let (n, unit) = match unit {
        // humantime has no calendar months; a month is 30 days here, a year 365, and twelve
        // months a year ("older than twelve months" is a year, not 360 days).
        "month" if n.is_multiple_of(12) => (n / 12 * 365, "days"),
        "month" => (n * 30, "days"),
        "year" => (n * 365, "days"),
        "week" => (n * 7, "days"),
        "hour" => (n, "hours"),
        _ => (n, "days"),
    };
    format!("{n}{unit}")
}
