//! Tool names from operations and argument names from parameters: `[A-Za-z0-9_.-]`, at most 64 characters,
//! unique where they must be.

use std::collections::HashSet;

/// Longer names are cut, with a hash of the whole name so that two long names sharing a prefix stay apart.
pub const MAX_LEN: usize = 64;

/// The name an operation asks for: its `operationId`, or its method and path.
pub fn wanted(operation_id: Option<&str>, method: &str, path: &str) -> String {
    match operation_id.map(str::trim) {
        Some(id) if !id.is_empty() => id.to_string(),
        _ => format!("{method}_{path}"),
    }
}

/// `repos/get-content` → `repos_get-content`; `GET /pets/{id}` → `GET_pets_id`. Runs of replaced characters
/// become one `_`; the result is never empty.
pub fn sanitize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let trimmed = out.trim_matches('_');
    if trimmed.is_empty() {
        "operation".into()
    } else {
        trimmed.to_string()
    }
}

/// An argument name strict clients accept (`[A-Za-z0-9_.-]{1,64}`), with the operator punctuation of filter
/// parameters spelled out so that names differing only in it stay apart: `DateCreated<` → `DateCreated_lt`,
/// `price>=` → `price_gte`, `filter[name]` → `filter_name`, `$top` → `top`.
pub fn argument(name: &str) -> String {
    let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    if !name.is_empty() && name.len() <= MAX_LEN && name.chars().all(valid) {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len() + 4);
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        if valid(c) {
            out.push(c);
            continue;
        }
        let equals = chars.peek() == Some(&'=');
        let word = match c {
            '<' if equals => "lte",
            '<' => "lt",
            '>' if equals => "gte",
            '>' => "gt",
            '!' if equals => "ne",
            '=' => "eq",
            '@' => "at",
            '+' => "plus",
            _ => "",
        };
        if equals && matches!(c, '<' | '>' | '!') {
            chars.next();
        }
        if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
        out.push_str(word);
    }
    let trimmed = out.trim_matches('_');
    let base = if trimmed.is_empty() {
        "argument"
    } else {
        trimmed
    };
    fit(base, name, MAX_LEN)
}

/// FNV-1a: small, stable across platforms and releases (unlike `DefaultHasher`).
pub fn fnv1a(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Cuts a sanitized name to `max` characters, ending it with `_` and 8 hex digits of the original's hash.
fn fit(name: &str, original: &str, max: usize) -> String {
    if name.len() <= max {
        return name.to_string();
    }
    let hash = format!("{:08x}", fnv1a(original) as u32);
    let keep = max - hash.len() - 1;
    format!("{}_{hash}", name[..keep].trim_end_matches('_'))
}

/// Hands out tool names in a fixed order, so the same spec always gives the same names.
#[derive(Default)]
pub struct ToolNamer {
    taken: HashSet<String>,
}

impl ToolNamer {
    /// A tool name for `wanted` (an `operationId`, or a name made from method and path): sanitized, cut to
    /// fit (with a hash of the original when cut), and made unique with `_2`, `_3`... when taken.
    pub fn name(&mut self, wanted: &str) -> String {
        let base = fit(&sanitize(wanted), wanted, MAX_LEN);
        if self.taken.insert(base.clone()) {
            return base;
        }
        let mut n = 2u64;
        loop {
            let suffix = format!("_{n}");
            let candidate = format!("{}{suffix}", fit(&base, wanted, MAX_LEN - suffix.len()));
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_names_keep_their_operators_apart() {
        assert_eq!(argument("DateCreated"), "DateCreated");
        assert_eq!(argument("DateCreated<"), "DateCreated_lt");
        assert_eq!(argument("DateCreated>"), "DateCreated_gt");
        assert_eq!(argument("price>="), "price_gte");
        assert_eq!(argument("filter[name]"), "filter_name");
        assert_eq!(argument("$top"), "top");
        assert_eq!(argument("名前"), "argument");
        assert!(argument(&"x".repeat(80)).len() <= 64);
    }

    #[test]
    fn names_are_sanitized() {
        assert_eq!(sanitize("repos/get-content"), "repos_get-content");
        assert_eq!(sanitize("get_/pets/{petId}"), "get_pets_petId");
        assert_eq!(sanitize("名前"), "operation");
        assert_eq!(sanitize("a b\tc"), "a_b_c");
    }

    #[test]
    fn long_names_are_cut_with_a_hash_and_stay_distinct() {
        let mut namer = ToolNamer::default();
        let a = "actions/get-a-very-long-operation-identifier-for-the-self-hosted-runner-group-a";
        let b = "actions/get-a-very-long-operation-identifier-for-the-self-hosted-runner-group-b";
        let (na, nb) = (namer.name(a), namer.name(b));
        assert_eq!(na.len(), 64);
        assert_eq!(nb.len(), 64);
        assert_ne!(na, nb);
        // 55 characters of the name, `_`, 8 hex digits of its hash.
        assert!(
            na.starts_with("actions_get-a-very-long-operation-identifier-for-the-se_"),
            "{na}"
        );
        assert!(na[56..].bytes().all(|b| b.is_ascii_hexdigit()), "{na}");
        // Deterministic: the same input gives the same name in a fresh namer.
        assert_eq!(ToolNamer::default().name(a), na);
    }

    #[test]
    fn duplicates_are_numbered_within_the_limit() {
        let mut namer = ToolNamer::default();
        assert_eq!(namer.name("getPet"), "getPet");
        assert_eq!(namer.name("getPet"), "getPet_2");
        assert_eq!(namer.name("get/Pet"), "get_Pet");
        let long = "x".repeat(70);
        let first = namer.name(&long);
        let second = namer.name(&long);
        assert_ne!(first, second);
        assert!(second.len() <= 64 && second.ends_with("_2"), "{second}");
    }
}
