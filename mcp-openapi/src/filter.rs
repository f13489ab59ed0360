//! Which operations become tools: by tag, by operationId (or tool name), by path pattern.

/// An operation is kept when it matches every kind of filter given, and any one entry of each kind.
/// Empty means everything.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Tags, compared exactly.
    pub tags: Vec<String>,
    /// Globs over the `operationId` or the tool name: `*` matches anything, `/` included (`repos/*`).
    pub operations: Vec<String>,
    /// Globs over the path template: `*` matches within one segment, `**` across segments
    /// (`/pets/*`, `/repos/**`).
    pub paths: Vec<String>,
    /// HTTP methods, case-insensitive.
    pub methods: Vec<String>,
}

impl Filter {
    /// Whether the filter keeps everything (no criterion set).
    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
            && self.operations.is_empty()
            && self.paths.is_empty()
            && self.methods.is_empty()
    }

    /// Whether an operation passes every criterion set: one of its tags, its tool name or `operationId`
    /// matching an operation glob, its path matching a path glob, its method listed.
    pub fn keeps(
        &self,
        tags: &[&str],
        operation_id: Option<&str>,
        tool_name: &str,
        method: &str,
        path: &str,
    ) -> bool {
        (self.tags.is_empty() || self.tags.iter().any(|t| tags.contains(&t.as_str())))
            && (self.operations.is_empty()
                || self.operations.iter().any(|p| {
                    glob(p.as_bytes(), tool_name.as_bytes(), false)
                        || operation_id.is_some_and(|id| glob(p.as_bytes(), id.as_bytes(), false))
                }))
            && (self.paths.is_empty()
                || self
                    .paths
                    .iter()
                    .any(|p| glob(p.as_bytes(), path.as_bytes(), true)))
            && (self.methods.is_empty()
                || self.methods.iter().any(|m| m.eq_ignore_ascii_case(method)))
    }
}

/// Glob matching with `*`, `**` and `?`. With `segments`, `*` and `?` do not match `/`.
fn glob(pattern: &[u8], text: &[u8], segments: bool) -> bool {
    // Iterative matching with backtracking to the last star: linear in practice, never exponential.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize, bool)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == b'*' {
            let double = pattern.get(p + 1) == Some(&b'*');
            let width = if double { 2 } else { 1 };
            star = Some((p + width, t, double || !segments));
            p += width;
            continue;
        }
        if p < pattern.len()
            && (pattern[p] == text[t] || (pattern[p] == b'?' && !(segments && text[t] == b'/')))
        {
            p += 1;
            t += 1;
            continue;
        }
        match star {
            Some((after, start, crosses)) if crosses || text[start] != b'/' => {
                star = Some((after, start + 1, crosses));
                p = after;
                t = start + 1;
            }
            _ => return false,
        }
    }
    while p < pattern.len() && pattern[p] == b'*' {
        p += 1;
    }
    p == pattern.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_globs_respect_segments() {
        assert!(glob(b"/pets/*", b"/pets/{petId}", true));
        assert!(!glob(b"/pets/*", b"/pets/{petId}/photos", true));
        assert!(glob(b"/pets/**", b"/pets/{petId}/photos", true));
        assert!(glob(
            b"/repos/**/issues",
            b"/repos/{owner}/{repo}/issues",
            true
        ));
        assert!(!glob(b"/user", b"/users", true));
    }

    #[test]
    fn operation_globs_cross_slashes() {
        assert!(glob(b"repos/*", b"repos/get-content", false));
        assert!(
            glob(b"*pet*", b"findPetsByStatus", false)
                || glob(b"*Pet*", b"findPetsByStatus", false)
        );
        assert!(!glob(b"repos/*", b"issues/get", false));
    }

    #[test]
    fn kinds_combine_with_and_entries_with_or() {
        let f = Filter {
            tags: vec!["pet".into(), "store".into()],
            methods: vec!["get".into()],
            ..Filter::default()
        };
        assert!(f.keeps(
            &["pet"],
            Some("getPetById"),
            "getPetById",
            "GET",
            "/pet/{petId}"
        ));
        assert!(!f.keeps(&["pet"], Some("addPet"), "addPet", "POST", "/pet"));
        assert!(!f.keeps(&["user"], Some("getUser"), "getUser", "GET", "/user"));
    }
}
