//! Where in the input the reader is, for its errors: the offset of a slice of the input, the name of the
//! element whose tag starts at an offset.

/// The byte offset of `part` (a slice of `input`) in `input`.
pub(super) fn offset_in(input: &str, part: &str) -> usize {
    (part.as_ptr() as usize)
        .saturating_sub(input.as_ptr() as usize)
        .min(input.len())
}

/// The element name of the tag starting at `offset` (for messages).
pub(super) fn element_name_at(input: &str, offset: usize) -> &str {
    let rest = input.get(offset + 1..).unwrap_or("");
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .unwrap_or(rest.len());
    &rest[..end]
}
