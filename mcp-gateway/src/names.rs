//! The names the gateway shows for upstream names: one reversible table, never a separator split.
//!
//! Every exposed name matches `^[A-Za-z0-9_-]{1,64}$`: the upstream's prefix and the name joined by `_`,
//! characters outside the set replaced, and when that is too long (or taken by another tool) cut and ended
//! with a hash of the prefix and the original name, so the same tool gets the same name on every start.
//! A name once given is kept while its tool lives: a collision found later renames the newcomer only.

use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// The longest name the gateway exposes (the lowest limit hosts apply to tool names).
pub const MAX_NAME: usize = 64;

/// What an exposed name stands for: an upstream (by index) and the name it knows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Target {
    pub upstream: usize,
    pub name: String,
}

/// The two-way mapping between exposed names and upstream names.
#[derive(Debug, Default)]
pub struct NameTable {
    exposed: HashMap<String, Target>,
    targets: HashMap<Target, String>,
}

impl NameTable {
    /// The exposed name of `target`, assigning one if it has none. `prefix` is the upstream's prefix;
    /// `prefixed` says whether to use it even when the bare name is free.
    pub fn assign(&mut self, target: Target, prefix: &str, prefixed: bool) -> String {
        if let Some(name) = self.targets.get(&target) {
            return name.clone();
        }
        let with_prefix = format!("{prefix}_{}", target.name);
        let mut candidates = Vec::with_capacity(2);
        if !prefixed {
            candidates.push(target.name.clone());
        }
        candidates.push(with_prefix.clone());
        let mut chosen = None;
        for c in candidates {
            if let Some(valid) = as_valid(&c) {
                if !self.exposed.contains_key(&valid) {
                    chosen = Some(valid);
                    break;
                }
            }
        }
        let readable = if prefixed { &with_prefix } else { &target.name };
        let name = chosen.unwrap_or_else(|| {
            // Too long, not valid as it is, or taken: cut and hash. A clash of hashes (never seen in
            // practice) takes the next salt.
            (0u32..)
                .map(|salt| hashed(readable, prefix, &target.name, salt))
                .find(|n| !self.exposed.contains_key(n))
                .unwrap_or_default()
        });
        self.exposed.insert(name.clone(), target.clone());
        self.targets.insert(target, name.clone());
        name
    }

    /// What an exposed name stands for.
    pub fn resolve(&self, exposed: &str) -> Option<&Target> {
        self.exposed.get(exposed)
    }

    /// The exposed name of a target, if it has one.
    pub fn exposed(&self, target: &Target) -> Option<&str> {
        self.targets.get(target).map(String::as_str)
    }

    /// Forgets a tool that went away; returns its exposed name.
    pub fn forget(&mut self, target: &Target) -> Option<String> {
        let name = self.targets.remove(target)?;
        self.exposed.remove(&name);
        Some(name)
    }
}

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// `name` itself when it already matches the pattern.
fn as_valid(name: &str) -> Option<String> {
    (!name.is_empty() && name.len() <= MAX_NAME && name.chars().all(allowed))
        .then(|| name.to_string())
}

/// `readable` with other characters replaced, cut to leave room for `_` and 8 hex digits of a hash of
/// the prefix and the original name.
fn hashed(readable: &str, prefix: &str, original: &str, salt: u32) -> String {
    let mut h = Sha256::new();
    h.update(prefix.as_bytes());
    h.update([0]);
    h.update(original.as_bytes());
    if salt > 0 {
        h.update(salt.to_le_bytes());
    }
    let digest = h.finalize();
    let hex: String = digest[..4].iter().map(|b| format!("{b:02x}")).collect();
    let keep = MAX_NAME - 1 - hex.len();
    let mut out: String = readable
        .chars()
        .map(|c| if allowed(c) { c } else { '_' })
        .take(keep)
        .collect();
    out.push('_');
    out.push_str(&hex);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(upstream: usize, name: &str) -> Target {
        Target {
            upstream,
            name: name.into(),
        }
    }

    fn valid(n: &str) -> bool {
        (1..=MAX_NAME).contains(&n.len()) && n.chars().all(allowed)
    }

    #[test]
    fn prefixed_names_resolve_both_ways() {
        let mut table = NameTable::default();
        let n = table.assign(t(0, "echo"), "bench", true);
        assert_eq!(n, "bench_echo");
        assert_eq!(table.resolve("bench_echo"), Some(&t(0, "echo")));
        assert_eq!(table.exposed(&t(0, "echo")), Some("bench_echo"));
        // A name with the separator in it is not split: the table says what it is.
        let n = table.assign(t(1, "a_b"), "x_y", true);
        assert_eq!(table.resolve(&n), Some(&t(1, "a_b")));
    }

    #[test]
    fn unprefixed_until_a_collision_and_the_first_keeps_its_name() {
        let mut table = NameTable::default();
        assert_eq!(table.assign(t(0, "search"), "a", false), "search");
        assert_eq!(table.assign(t(1, "search"), "b", false), "b_search");
        // Asking again gives the same name: the first tool was never renamed.
        assert_eq!(table.assign(t(0, "search"), "a", false), "search");
        assert_eq!(table.resolve("search"), Some(&t(0, "search")));
    }

    #[test]
    fn long_and_odd_names_are_cut_with_a_stable_hash() {
        let long = "x".repeat(80);
        let mut a = NameTable::default();
        let n1 = a.assign(t(0, &long), "pre", true);
        assert!(valid(&n1) && n1.len() == MAX_NAME, "{n1}");
        assert!(n1.starts_with("pre_xxx"));
        let mut b = NameTable::default();
        assert_eq!(
            b.assign(t(0, &long), "pre", true),
            n1,
            "stable across tables"
        );
        // Two long names sharing their first 55 characters still differ.
        let n2 = a.assign(t(0, &format!("{long}y")), "pre", true);
        assert_ne!(n1, n2);
        assert!(valid(&n2));
        let dotted = a.assign(t(0, "web.search"), "pre", true);
        assert!(valid(&dotted), "{dotted}");
        assert_eq!(a.resolve(&dotted), Some(&t(0, "web.search")));
    }

    #[test]
    fn a_collision_of_prefixed_names_is_hashed() {
        let mut table = NameTable::default();
        // `a` + `b_c` and `a_b` + `c` both read `a_b_c`.
        let n1 = table.assign(t(0, "b_c"), "a", true);
        let n2 = table.assign(t(1, "c"), "a_b", true);
        assert_eq!(n1, "a_b_c");
        assert_ne!(n2, n1);
        assert!(valid(&n2));
        assert_eq!(table.resolve(&n2), Some(&t(1, "c")));
        assert_eq!(table.forget(&t(0, "b_c")).as_deref(), Some("a_b_c"));
        assert_eq!(table.resolve("a_b_c"), None);
    }
}
