//! Where two texts first differ, for the reports of the tests that compare them.

/// The byte at which `a` and `b` first differ, and a character boundary of both at most `context` bytes
/// before it (they agree up to there, so a boundary of one is a boundary of the other).
pub fn first_difference(a: &str, b: &str, context: usize) -> (usize, usize) {
    let at = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let mut from = at.saturating_sub(context);
    while !a.is_char_boundary(from) {
        from -= 1;
    }
    (at, from)
}
