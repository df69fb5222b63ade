//! How a report names learners: as they are, or by stable pseudonyms (`--anonymous`).
//!
//! A pseudonym ("Amber Otter") is drawn from a hash of the learner's name keyed by the
//! whole class's names, so the same learner gets the same pseudonym in every report made
//! from the same class, and a different one in another class. It hides a name from a
//! reader of the page; it is not a secret from someone who knows every name of the class
//! and reads this code.

use std::collections::{BTreeMap, BTreeSet};

const ADJECTIVES: [&str; 32] = [
    "Amber", "Ash", "Azure", "Bold", "Brisk", "Calm", "Cedar", "Clear", "Coral", "Crisp", "Dawn",
    "Deep", "Dusk", "Fern", "Frost", "Gold", "Jade", "Keen", "Lime", "Maple", "Mint", "Moss",
    "Noble", "Oak", "Pearl", "Plum", "Quiet", "Rust", "Sage", "Slate", "Swift", "Teal",
];

const ANIMALS: [&str; 32] = [
    "Badger", "Bear", "Bison", "Crane", "Deer", "Dove", "Eagle", "Egret", "Falcon", "Finch", "Fox",
    "Gecko", "Hare", "Hawk", "Heron", "Ibis", "Jay", "Koala", "Lark", "Lynx", "Marten", "Moose",
    "Newt", "Otter", "Owl", "Panda", "Puffin", "Robin", "Seal", "Stork", "Swan", "Wren",
];

/// The names a report shows.
#[derive(Clone, Debug, Default)]
pub struct Names {
    shown: BTreeMap<String, String>,
    /// The real names, longest first, for [`Names::scrub`].
    by_length: Vec<String>,
}

fn digest(parts: &[&str]) -> u64 {
    let mut hasher = sha1_smol::Sha1::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update(&[0]);
    }
    let bytes = hasher.digest().bytes();
    u64::from_be_bytes(bytes[..8].try_into().unwrap_or_default())
}

impl Names {
    /// The learners of a class, shown as they are, or by pseudonyms when `anonymous`.
    pub fn new(real: &[String], anonymous: bool) -> Names {
        let class: BTreeSet<&str> = real.iter().map(String::as_str).collect();
        let key = format!(
            "{:016x}",
            digest(&class.iter().copied().collect::<Vec<_>>())
        );
        let mut shown = BTreeMap::new();
        if anonymous {
            // Drawn in the order of the hashes, so a collision is settled the same way
            // whatever order the class grade lists the learners in.
            let mut drawn: Vec<(u64, &str)> =
                class.iter().map(|n| (digest(&[&key, n]), *n)).collect();
            drawn.sort();
            let mut taken = BTreeSet::new();
            for (hash, name) in drawn {
                let base = format!(
                    "{} {}",
                    ADJECTIVES[(hash % 32) as usize],
                    ANIMALS[((hash / 32) % 32) as usize]
                );
                let mut pseudonym = base.clone();
                let mut n = 2;
                while !taken.insert(pseudonym.clone()) {
                    pseudonym = format!("{base} {n}");
                    n += 1;
                }
                shown.insert(name.to_string(), pseudonym);
            }
        } else {
            for name in &class {
                shown.insert(name.to_string(), name.to_string());
            }
        }
        let mut by_length: Vec<String> = class.iter().map(|n| n.to_string()).collect();
        by_length.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        Names { shown, by_length }
    }

    /// Whether names are replaced.
    pub fn anonymous(&self) -> bool {
        self.shown.iter().any(|(real, shown)| real != shown)
    }

    /// How the learner `real` is shown.
    pub fn show(&self, real: &str) -> String {
        self.shown
            .get(real)
            .cloned()
            .unwrap_or_else(|| real.to_string())
    }

    /// `text` with every learner's name, where it stands as a word of its own (a path's
    /// folder, a note's "bob's"), replaced by how that learner is shown.
    pub fn scrub(&self, text: &str) -> String {
        if !self.anonymous() {
            return text.to_string();
        }
        let is_word = |c: char| c.is_alphanumeric() || c == '_';
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        let mut before: Option<char> = None;
        'scan: while let Some(c) = rest.chars().next() {
            if !before.is_some_and(is_word) {
                for name in &self.by_length {
                    if let Some(after) = rest.strip_prefix(name.as_str())
                        && !after.chars().next().is_some_and(is_word)
                        && !name.is_empty()
                    {
                        out.push_str(&self.show(name));
                        before = name.chars().last();
                        rest = after;
                        continue 'scan;
                    }
                }
            }
            out.push(c);
            before = Some(c);
            rest = &rest[c.len_utf8()..];
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn pseudonyms_are_stable_for_a_class_and_unique() {
        let a = Names::new(&class(&["ann", "bob", "cy", "dee"]), true);
        let b = Names::new(&class(&["dee", "cy", "bob", "ann"]), true);
        for name in ["ann", "bob", "cy", "dee"] {
            assert_eq!(a.show(name), b.show(name));
            assert_ne!(a.show(name), name);
        }
        let all: BTreeSet<String> = ["ann", "bob", "cy", "dee"]
            .iter()
            .map(|n| a.show(n))
            .collect();
        assert_eq!(all.len(), 4);
        let many: Vec<String> = (0..300).map(|i| format!("learner-{i}")).collect();
        let names = Names::new(&many, true);
        let shown: BTreeSet<String> = many.iter().map(|n| names.show(n)).collect();
        assert_eq!(shown.len(), 300, "collisions are told apart");
    }

    #[test]
    fn scrub_replaces_whole_names_only() {
        let names = Names::new(&class(&["al", "bob", "2026/alice"]), true);
        let text = "shares 95 % with bob's relay.rs; also /tmp/x/al/src and 2026/alice";
        let scrubbed = names.scrub(text);
        assert!(
            scrubbed.contains(&format!("with {}'s", names.show("bob"))),
            "{scrubbed}"
        );
        assert!(
            scrubbed.contains("also "),
            "a name inside a word stays: {scrubbed}"
        );
        assert!(
            scrubbed.contains(&format!("/x/{}/src", names.show("al"))),
            "{scrubbed}"
        );
        assert!(scrubbed.ends_with(&names.show("2026/alice")), "{scrubbed}");
        let plain = Names::new(&class(&["bob"]), false);
        assert_eq!(plain.scrub(text), text);
    }
}
