//! The chunker: splits a text into pieces of at most `size` words (a stand-in for tokens) by one of
//! four strategies — fixed windows, sentences, paragraphs, or semantic breaks where the topic
//! shifts. Pure except `semantic`, which asks the embedder where sentences stop being alike.

use config::{ChunkStrategy, PipelineConfig};
use contracts::SkillDefinition;

use crate::Result;
use crate::embed::{Embedder, cosine};

/// How to cut: the strategy, the most words per chunk, and words repeated between neighbours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkSpec {
    pub strategy: ChunkStrategy,
    pub size: usize,
    pub overlap: usize,
}

impl ChunkSpec {
    pub fn new(strategy: ChunkStrategy, size: usize, overlap: usize) -> Self {
        let size = size.max(1);
        ChunkSpec {
            strategy,
            size,
            overlap: overlap.min(size - 1),
        }
    }

    pub fn from_config(c: &PipelineConfig) -> Self {
        ChunkSpec::new(c.chunk_strategy, c.chunk_size, c.chunk_overlap)
    }

    /// The global spec with a skill's `kb_chunk_strategy` / `kb_chunk_size` overrides applied.
    pub fn for_skill(c: &PipelineConfig, skill: &SkillDefinition) -> Self {
        let strategy = skill
            .kb_chunk_strategy
            .as_deref()
            .and_then(ChunkStrategy::parse)
            .unwrap_or(c.chunk_strategy);
        ChunkSpec::new(
            strategy,
            skill.kb_chunk_size.unwrap_or(c.chunk_size),
            c.chunk_overlap,
        )
    }
}

/// One piece of a text, with its byte range in the original.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub index: usize,
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// A run of text (sentence, paragraph) with its byte range and word count.
#[derive(Debug, Clone, Copy)]
struct Segment {
    start: usize,
    end: usize,
    words: usize,
}

fn word_spans(text: &str, from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, ch) in text[from..to].char_indices() {
        let i = from + i;
        match (ch.is_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, to));
    }
    out
}

fn segment(text: &str, start: usize, end: usize) -> Option<Segment> {
    let words = word_spans(text, start, end);
    let (first, last) = (words.first()?, words.last()?);
    Some(Segment {
        start: first.0,
        end: last.1,
        words: words.len(),
    })
}

/// Sentences: end at `.`, `!`, `?` (or their CJK forms) before whitespace, and at blank lines.
fn sentences(text: &str, from: usize, to: usize) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut start = from;
    let mut chars = text[from..to].char_indices().peekable();
    while let Some((i, ch)) = chars.next() {
        let i = from + i;
        let next = chars.peek().map(|(_, c)| *c);
        let ends = match ch {
            '.' | '!' | '?' => next.is_none_or(char::is_whitespace),
            '。' | '！' | '？' => true,
            '\n' => next == Some('\n'),
            _ => false,
        };
        if ends {
            let end = i + ch.len_utf8();
            out.extend(segment(text, start, end));
            start = end;
        }
    }
    out.extend(segment(text, start, to));
    out
}

/// Paragraphs: separated by blank lines.
fn paragraphs(text: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut blank_run = false;
    let mut line_start = 0;
    for (i, ch) in text.char_indices() {
        if ch == '\n' {
            let line = &text[line_start..i];
            if line.trim().is_empty() && !blank_run {
                out.extend(segment(text, start, line_start));
                start = i;
                blank_run = true;
            } else if !line.trim().is_empty() {
                blank_run = false;
            }
            line_start = i + 1;
        }
    }
    out.extend(segment(text, start, text.len()));
    out
}

/// Fixed windows of `size` words that advance by `size - overlap`.
fn fixed(text: &str, from: usize, to: usize, spec: &ChunkSpec) -> Vec<(usize, usize)> {
    let words = word_spans(text, from, to);
    let step = spec.size - spec.overlap;
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let j = (i + spec.size).min(words.len());
        out.push((words[i].0, words[j - 1].1));
        if j == words.len() {
            break;
        }
        i += step;
    }
    out
}

/// Packs whole segments into chunks of at most `size` words, repeating up to `overlap` words of
/// trailing segments at the start of the next chunk. A segment longer than `size` is cut in windows.
fn pack(
    text: &str,
    segments: &[Segment],
    spec: &ChunkSpec,
    breaks: &[bool],
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut current: Vec<Segment> = Vec::new();
    let words = |c: &[Segment]| c.iter().map(|s| s.words).sum::<usize>();
    let flush = |current: &mut Vec<Segment>, out: &mut Vec<(usize, usize)>| {
        if let (Some(f), Some(l)) = (current.first(), current.last()) {
            out.push((f.start, l.end));
        }
        // Keep trailing segments that fit in the overlap.
        let mut keep = Vec::new();
        let mut n = 0;
        for s in current.iter().rev() {
            if n + s.words > spec.overlap {
                break;
            }
            n += s.words;
            keep.insert(0, *s);
        }
        *current = keep;
    };
    for (k, seg) in segments.iter().enumerate() {
        if seg.words > spec.size {
            flush(&mut current, &mut out);
            current.clear();
            out.extend(fixed(text, seg.start, seg.end, spec));
            continue;
        }
        let topic_break = breaks.get(k).copied().unwrap_or(false);
        if !current.is_empty() && (words(&current) + seg.words > spec.size || topic_break) {
            let had_new = current.len();
            flush(&mut current, &mut out);
            if topic_break || had_new == current.len() {
                current.clear();
            }
        }
        current.push(*seg);
    }
    if let (Some(f), Some(l)) = (current.first(), current.last())
        && out.last().is_none_or(|&(_, e)| e < l.end)
    {
        out.push((f.start, l.end));
    }
    out
}

fn to_chunks(text: &str, ranges: Vec<(usize, usize)>) -> Vec<Chunk> {
    ranges
        .into_iter()
        .enumerate()
        .map(|(index, (start, end))| Chunk {
            index,
            start,
            end,
            text: text[start..end].to_owned(),
        })
        .collect()
}

/// Splits `text` with the fixed, sentence or paragraph strategy (semantic falls back to
/// sentences here; see [`chunk_text`]). Pure.
pub fn chunk_plain(text: &str, spec: &ChunkSpec) -> Vec<Chunk> {
    let ranges = match spec.strategy {
        ChunkStrategy::Fixed => fixed(text, 0, text.len(), spec),
        ChunkStrategy::Sentence | ChunkStrategy::Semantic => {
            pack(text, &sentences(text, 0, text.len()), spec, &[])
        }
        ChunkStrategy::Paragraph => {
            let segs: Vec<Segment> = paragraphs(text)
                .into_iter()
                .flat_map(|p| {
                    if p.words > spec.size {
                        sentences(text, p.start, p.end)
                    } else {
                        vec![p]
                    }
                })
                .collect();
            pack(text, &segs, spec, &[])
        }
    };
    to_chunks(text, ranges)
}

/// Splits `text` by `spec`. The semantic strategy embeds every sentence and starts a new chunk
/// where the similarity of neighbouring sentences drops below (mean − one standard deviation).
pub fn chunk_text(text: &str, spec: &ChunkSpec, embedder: &dyn Embedder) -> Result<Vec<Chunk>> {
    if spec.strategy != ChunkStrategy::Semantic {
        return Ok(chunk_plain(text, spec));
    }
    let sents = sentences(text, 0, text.len());
    if sents.len() < 3 {
        return Ok(chunk_plain(text, spec));
    }
    let texts: Vec<&str> = sents.iter().map(|s| &text[s.start..s.end]).collect();
    let vectors = embedder.embed_documents(&texts)?;
    let sims: Vec<f32> = vectors.windows(2).map(|w| cosine(&w[0], &w[1])).collect();
    let mean = sims.iter().sum::<f32>() / sims.len() as f32;
    let var = sims.iter().map(|s| (s - mean).powi(2)).sum::<f32>() / sims.len() as f32;
    let threshold = mean - var.sqrt();
    // breaks[k]: a new chunk starts at sentence k.
    let mut breaks = vec![false; sents.len()];
    for (k, s) in sims.iter().enumerate() {
        breaks[k + 1] = *s < threshold;
    }
    let no_overlap = ChunkSpec {
        overlap: 0,
        ..*spec
    };
    Ok(to_chunks(text, pack(text, &sents, &no_overlap, &breaks)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::LexicalEmbedder;

    fn render(chunks: &[Chunk]) -> String {
        chunks
            .iter()
            .map(|c| format!("[{}] {}", c.index, c.text.replace('\n', "⏎")))
            .collect::<Vec<_>>()
            .join("\n")
    }

    const TEXT: &str = "The invoice is due in May. Pay by bank transfer!\n\n\
        Our office moved to Berlin. The new address is on the website.\n\n\
        Cats sleep a lot. Dogs bark at the mail carrier.";

    #[test]
    fn each_strategy_cuts_as_documented() {
        let spec = |s, size, overlap| ChunkSpec::new(s, size, overlap);
        expect_test::expect![[r#"
            [0] The invoice is due in May. Pay by
            [1] Pay by bank transfer!⏎⏎Our office moved to
            [2] moved to Berlin. The new address is on
            [3] is on the website.⏎⏎Cats sleep a lot.
            [4] a lot. Dogs bark at the mail carrier."#]]
        .assert_eq(&render(&chunk_plain(
            TEXT,
            &spec(ChunkStrategy::Fixed, 8, 2),
        )));
        expect_test::expect![[r#"
            [0] The invoice is due in May. Pay by bank transfer!
            [1] Pay by bank transfer!⏎⏎Our office moved to Berlin.
            [2] Our office moved to Berlin. The new address is on the website.
            [3] Cats sleep a lot. Dogs bark at the mail carrier."#]]
        .assert_eq(&render(&chunk_plain(
            TEXT,
            &spec(ChunkStrategy::Sentence, 12, 5),
        )));
        expect_test::expect![[r#"
            [0] The invoice is due in May. Pay by bank transfer!
            [1] Our office moved to Berlin. The new address is on the website.
            [2] Cats sleep a lot. Dogs bark at the mail carrier."#]]
        .assert_eq(&render(&chunk_plain(
            TEXT,
            &spec(ChunkStrategy::Paragraph, 14, 0),
        )));
    }

    #[test]
    fn chunks_never_exceed_size_and_cover_every_word() {
        let long = "word ".repeat(50) + "end. " + &"more text here. ".repeat(30);
        for strategy in [
            ChunkStrategy::Fixed,
            ChunkStrategy::Sentence,
            ChunkStrategy::Paragraph,
        ] {
            let spec = ChunkSpec::new(strategy, 16, 4);
            let chunks = chunk_plain(&long, &spec);
            for c in &chunks {
                assert!(c.text.split_whitespace().count() <= 16, "{strategy}: {c:?}");
            }
            assert_eq!(chunks.first().unwrap().start, 0);
            assert_eq!(
                chunks.last().unwrap().end,
                long.trim_end().len(),
                "{strategy}"
            );
        }
        assert!(chunk_plain("", &ChunkSpec::new(ChunkStrategy::Sentence, 8, 0)).is_empty());
    }

    #[test]
    fn semantic_breaks_where_the_topic_changes() {
        let text = "Invoice payment is due. Invoice payment reminder sent. Invoice payment overdue. \
                    Kittens purr softly. Kittens purr loudly. Kittens purr all night.";
        let chunks = chunk_text(
            text,
            &ChunkSpec::new(ChunkStrategy::Semantic, 100, 10),
            &LexicalEmbedder::new(256),
        )
        .unwrap();
        expect_test::expect![[r#"
            [0] Invoice payment is due. Invoice payment reminder sent. Invoice payment overdue.
            [1] Kittens purr softly. Kittens purr loudly. Kittens purr all night."#]]
        .assert_eq(&render(&chunks));
    }

    #[test]
    fn skill_overrides_apply() {
        let c = PipelineConfig::default();
        let mut skill: SkillDefinition = serde_json::from_value(serde_json::json!({
            "id": "x", "name": "x", "version": "1", "description": "d", "tags": [],
            "uses_retrieval": true, "tools": {}, "kb_chunk_strategy": "paragraph",
            "kb_chunk_size": 128,
        }))
        .unwrap();
        let s = ChunkSpec::for_skill(&c, &skill);
        assert_eq!((s.strategy, s.size), (ChunkStrategy::Paragraph, 128));
        skill.kb_chunk_strategy = None;
        assert_eq!(ChunkSpec::for_skill(&c, &skill).strategy, c.chunk_strategy);
    }
}
