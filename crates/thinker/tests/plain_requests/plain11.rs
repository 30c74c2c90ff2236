//! Regressions found reading plain11 (issue 19): asking for what no tool does is a question
//! about the agent's skills, and more.

use super::check;

/// "could you remove the wind noise from my helmet cam videos?" planned a find of every video and
/// a delete of them; "put subtitles on my salsa videos" the same. Taking something that is no
/// file out of files, putting something on files, and a verb no tool knows ("transcribe") ask
/// what the agent can do. Files named as what is taken out are still removed.
#[test]
fn asking_for_what_no_tool_does_looks_the_skills_up() {
    check(&[
        (
            "could you remove the wind noise from my helmet cam videos?",
            &["skill-search/search"],
            &[],
        ),
        (
            "would you manage to put subtitles on my salsa videos?",
            &["skill-search/search"],
            &[],
        ),
        (
            "can yuo remove the backround from product fotos?",
            &["skill-search/search"],
            &[],
        ),
        (
            "can u transcrbe my recordngs into notaton?",
            &["skill-search/search"],
            &[],
        ),
        (
            "can you post the bowls club's weekend results to our Facebook page?",
            &["skill-search/search"],
            &[],
        ),
        (
            "can you remove the duplicates from my photos?",
            &["remove-duplicates/scan", "remove-duplicates/remove"],
            &[],
        ),
        (
            "remove the PDFs from my downloads",
            &["manage-files/find", "manage-files/delete"],
            &[],
        ),
    ]);
}
