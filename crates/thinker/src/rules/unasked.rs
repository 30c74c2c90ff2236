//! A change never read into a part of a request that only names things or only tells what was
//! done ("supplier PDFs, the lot", "back in June I split it into type folders").

use super::extract::Slots;
use super::{Candidate, PlanBuilder, clause, normalize, trigger_verbs};

impl PlanBuilder<'_, '_> {
    /// Notes a part that only names things or tells: nothing is planned for it.
    pub(super) fn note_only_named(&mut self, text: &str, slots: &Slots) {
        self.notes.push(format!(
            "\"{text}\" says nothing to do (it names things or tells what was done): no change read into it"
        ));
        self.only_named.push(text.to_owned());
        self.take_place(slots);
    }

    /// "supplier PDFs", "menu photos, the lot": a change is never read into a part that only
    /// names things (no action said, no question, no place for them to go).
    pub(super) fn change_read_into_names(
        &self,
        text: &str,
        best: &Candidate,
        slots: &Slots,
    ) -> bool {
        let changes = best.steps.iter().any(|(s, _)| {
            self.cx
                .skills
                .tool(&s.skill, &s.tool)
                .is_some_and(|(_, t)| t.mutates())
        });
        let fixed = normalize::filter_typos_fixed(text, self.vocab);
        let verbs = trigger_verbs(self.cx.skills);
        if changes && clause::only_tells(&fixed, &verbs) {
            return true;
        }
        changes
            && !best.triggered
            && slots.targets.is_empty()
            // "… to reno_001.jpg, reno_002.jpg", "keep the oldest": a value only a change takes.
            && slots.pattern.is_none()
            && slots.find.is_none()
            && slots.case.is_none()
            && slots.keep.is_none()
            && slots.format.is_none()
            && clause::says_nothing_to_do(&fixed, &verbs)
    }
}
