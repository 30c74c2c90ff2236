//! The hash chain over audit entries: each entry's hash covers its content and its predecessor's
//! hash, so an edited, deleted, inserted or reordered entry breaks the chain at a named link.
//! Pure: hashing and verification take entries, not a database.

use serde::{Deserialize, Serialize};

use sha2::{Digest, Sha256};

#[cfg(test)]
use crate::record::sha256_hex;
use crate::record::{canonical_json, hex};

/// `previous_hash` of the first entry.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// One append-only record of the audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Position in the chain: 1, 2, 3, … without gaps.
    pub seq: i64,
    /// Unique action id.
    pub id: String,
    /// RFC 3339 UTC timestamp.
    pub at: String,
    /// The request (root task) the entry belongs to.
    pub run_id: String,
    /// `task`, `subtask`, `cap_task`, `status` or an event name (`skill_matched`, …).
    pub kind: String,
    /// Canonical JSON of the record.
    pub body: String,
    pub previous_hash: String,
    pub hash: String,
}

impl Entry {
    /// The hash this entry must carry: SHA-256 over its canonical fields and its predecessor's hash.
    pub fn compute_hash(&self) -> String {
        // The canonical JSON of the object below (keys sorted, no spaces), streamed into the
        // hasher without building it: the same bytes as `canonical_json`, a third of the time.
        struct Hashing(Sha256);
        impl std::io::Write for Hashing {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.update(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut w = Hashing(Sha256::new());
        let fields: [(&str, &str); 6] = [
            ("at", &self.at),
            ("body", &self.body),
            ("id", &self.id),
            ("kind", &self.kind),
            ("previous_hash", &self.previous_hash),
            ("run_id", &self.run_id),
        ];
        for (i, (key, value)) in fields.iter().enumerate() {
            w.0.update(if i == 0 { "{\"" } else { ",\"" });
            w.0.update(key);
            w.0.update("\":");
            serde_json::to_writer(&mut w, value).expect("writing to a hasher cannot fail");
        }
        w.0.update(format!(",\"seq\":{}}}", self.seq));
        hex(&w.0.finalize())
    }

    /// `compute_hash` the slow, obvious way (the reference the streamed one is tested against).
    #[cfg(test)]
    fn compute_hash_reference(&self) -> String {
        let v = serde_json::json!({
            "seq": self.seq,
            "id": self.id,
            "at": self.at,
            "run_id": self.run_id,
            "kind": self.kind,
            "body": self.body,
            "previous_hash": self.previous_hash,
        });
        sha256_hex(canonical_json(&v).as_bytes())
    }

    /// The body as JSON.
    pub fn value(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// The last link of the chain, stored beside it so a deleted tail is noticed too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChainHead {
    pub count: i64,
    pub hash: String,
}

/// Why the chain is broken, at the first entry where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BrokenLink {
    /// The `seq` of the first entry that does not check out (or the count, for a missing tail).
    pub seq: i64,
    pub id: Option<String>,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VerifyReport {
    pub checked: usize,
    pub head: Option<String>,
    pub broken: Option<BrokenLink>,
}

impl VerifyReport {
    pub fn ok(&self) -> bool {
        self.broken.is_none()
    }
}

/// Walks `entries` in `seq` order and names the first broken link; `head` is the stored chain
/// head (when the store keeps one).
pub fn verify(entries: impl IntoIterator<Item = Entry>, head: Option<&ChainHead>) -> VerifyReport {
    let mut v = ChainVerifier::default();
    for e in entries {
        if !v.push(e) {
            break;
        }
    }
    v.finish(head)
}

/// `verify` one entry at a time, for stores that stream the chain instead of loading it.
#[derive(Debug)]
pub struct ChainVerifier {
    previous: String,
    checked: usize,
    broken: Option<BrokenLink>,
}

impl Default for ChainVerifier {
    fn default() -> Self {
        ChainVerifier {
            previous: GENESIS.to_owned(),
            checked: 0,
            broken: None,
        }
    }
}

impl ChainVerifier {
    /// Checks the next entry; `false` once a link is broken (later entries are not looked at).
    pub fn push(&mut self, e: Entry) -> bool {
        if self.broken.is_some() {
            return false;
        }
        let expected_seq = self.checked as i64 + 1;
        let reason = if e.seq != expected_seq {
            Some(if e.seq > expected_seq {
                format!(
                    "entry {expected_seq} is missing (the next entry has seq {}): deleted",
                    e.seq
                )
            } else {
                format!(
                    "entry seq {} appears where {expected_seq} was expected",
                    e.seq
                )
            })
        } else if e.previous_hash != self.previous {
            Some(
                "its previous_hash does not match the entry before it: an entry was inserted, \
                 deleted or moved here"
                    .into(),
            )
        } else if e.compute_hash() != e.hash {
            Some("its content does not match its hash: the entry was edited".into())
        } else {
            None
        };
        if let Some(reason) = reason {
            self.broken = Some(BrokenLink {
                seq: expected_seq,
                id: Some(e.id),
                reason,
            });
            return false;
        }
        self.previous = e.hash;
        self.checked += 1;
        true
    }

    /// The report, comparing the end of the chain with the stored `head`.
    pub fn finish(self, head: Option<&ChainHead>) -> VerifyReport {
        let ChainVerifier {
            previous,
            checked,
            broken,
        } = self;
        if broken.is_some() {
            return VerifyReport {
                checked,
                head: Some(previous),
                broken,
            };
        }
        if let Some(h) = head
            && (h.count != checked as i64 || h.hash != previous)
        {
            return VerifyReport {
                checked,
                head: Some(previous),
                broken: Some(BrokenLink {
                    seq: checked as i64 + 1,
                    id: None,
                    reason: format!(
                        "the chain ends at entry {checked} but its recorded head is entry {} \
                         ({}…): entries at the end were deleted or the head was changed",
                        h.count,
                        &h.hash.get(..12).unwrap_or(&h.hash)
                    ),
                }),
            };
        }
        VerifyReport {
            checked,
            head: (checked > 0).then_some(previous),
            broken: None,
        }
    }
}

/// The entry that follows `previous` (hash filled in).
pub fn next_entry(
    previous: Option<&ChainHead>,
    id: String,
    at: String,
    run_id: String,
    kind: String,
    body: &serde_json::Value,
) -> Entry {
    let mut e = Entry {
        seq: previous.map_or(1, |h| h.count + 1),
        id,
        at,
        run_id,
        kind,
        body: canonical_json(body),
        previous_hash: previous.map_or_else(|| GENESIS.to_owned(), |h| h.hash.clone()),
        hash: String::new(),
    };
    e.hash = e.compute_hash();
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_streamed_hash_is_the_canonical_one() {
        for e in chain(5) {
            assert_eq!(e.compute_hash(), e.compute_hash_reference());
        }
        let odd = Entry {
            seq: 1_234_567,
            id: "a\"quoted\" \\ id\n".into(),
            at: "2026-11-21T00:00:00Z".into(),
            run_id: "r-ünïcødé-😀".into(),
            kind: "event\u{1}".into(),
            body: r#"{"k":"v","n":[1,2,{"z":null}]}"#.into(),
            previous_hash: GENESIS.into(),
            hash: String::new(),
        };
        assert_eq!(odd.compute_hash(), odd.compute_hash_reference());
    }

    fn chain(n: usize) -> Vec<Entry> {
        let mut out: Vec<Entry> = Vec::new();
        for i in 0..n {
            let head = out.last().map(|e| ChainHead {
                count: e.seq,
                hash: e.hash.clone(),
            });
            out.push(next_entry(
                head.as_ref(),
                format!("a{i}"),
                format!("2026-01-01T00:00:0{i}Z"),
                "r1".into(),
                "event".into(),
                &serde_json::json!({"n": i}),
            ));
        }
        out
    }

    fn head(c: &[Entry]) -> ChainHead {
        ChainHead {
            count: c.len() as i64,
            hash: c.last().unwrap().hash.clone(),
        }
    }

    #[test]
    fn an_intact_chain_verifies() {
        let c = chain(5);
        let r = verify(c.clone(), Some(&head(&c)));
        assert!(r.ok(), "{r:?}");
        assert_eq!(r.checked, 5);
    }

    #[test]
    fn every_kind_of_tampering_names_the_first_broken_link() {
        let c = chain(5);
        let h = head(&c);
        let reason = |entries: Vec<Entry>| {
            let r = verify(entries, Some(&h));
            let b = r.broken.expect("broken");
            (b.seq, b.reason)
        };
        // Edited body.
        let mut edited = c.clone();
        edited[2].body = r#"{"n":99}"#.into();
        let (seq, why) = reason(edited);
        assert_eq!(seq, 3);
        assert!(why.contains("edited"), "{why}");
        // Deleted from the middle.
        let mut deleted = c.clone();
        deleted.remove(1);
        let (seq, why) = reason(deleted);
        assert_eq!(seq, 2);
        assert!(why.contains("missing"), "{why}");
        // Deleted and renumbered: the link breaks.
        let mut renumbered = c.clone();
        renumbered.remove(1);
        for (i, e) in renumbered.iter_mut().enumerate() {
            e.seq = i as i64 + 1;
        }
        let (seq, why) = reason(renumbered);
        assert_eq!(seq, 2);
        assert!(why.contains("previous_hash"), "{why}");
        // Reordered.
        let mut swapped = c.clone();
        swapped.swap(1, 2);
        swapped[1].seq = 2;
        swapped[2].seq = 3;
        let (seq, _) = reason(swapped);
        assert_eq!(seq, 2);
        // Inserted with a valid-looking hash of its own.
        let mut inserted = c.clone();
        let fake = next_entry(
            Some(&ChainHead {
                count: 2,
                hash: c[1].hash.clone(),
            }),
            "x".into(),
            "2026-01-01T00:00:02Z".into(),
            "r1".into(),
            "event".into(),
            &serde_json::json!({"fake": true}),
        );
        inserted.insert(2, fake);
        for (i, e) in inserted.iter_mut().enumerate() {
            e.seq = i as i64 + 1;
        }
        let (seq, why) = reason(inserted);
        assert_eq!(seq, 4);
        assert!(why.contains("previous_hash"), "{why}");
        // The tail cut off.
        let (seq, why) = reason(c[..3].to_vec());
        assert_eq!(seq, 4);
        assert!(why.contains("head"), "{why}");
    }
}
