//! Finding the first of a few ASCII bytes, eight bytes at a time: the scans that copy runs of plain text
//! whole (a marker's JSON, a link title, a JSON string read or written) test each word of eight bytes at
//! once rather than each byte.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The index of the first byte from `from` on that is one of `set` (all ASCII), or `bytes.len()`.
pub(crate) fn find_any<const N: usize>(bytes: &[u8], from: usize, set: [u8; N]) -> usize {
    let mut at = from;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let x = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let mut found = 0;
        for b in set {
            // A byte of `y` is zero where `x` holds `b`. The test flags its lowest zero byte exactly (a
            // borrow only runs upwards, past it), so the lowest flag of the union is the first match.
            let y = x ^ (ONES * u64::from(b));
            found |= y.wrapping_sub(ONES) & !y;
        }
        found &= HIGHS;
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    bytes[at.min(bytes.len())..]
        .iter()
        .position(|b| set.contains(b))
        .map_or(bytes.len(), |p| at + p)
}

/// Whether `a` and `b` are the same bytes: for the short strings compared most (attribute names, ids,
/// colours), by at most two overlapping words each rather than a call to `memcmp`.
#[inline(always)]
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().expect("8 bytes"));
    let half = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().expect("4 bytes"));
    match n {
        0 => true,
        // The first, middle and last bytes: every byte of up to three.
        1..4 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..8 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        8..=16 => word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8),
        _ => a == b,
    }
}

/// Where the run of plain JSON string bytes from `from` ends: at a quote, a backslash, a control
/// character (each needs an escape) or the end.
pub(crate) fn json_plain_run(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let x = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let quote = x ^ (ONES * u64::from(b'"'));
        let backslash = x ^ (ONES * u64::from(b'\\'));
        // As in `find_any`, and bytes below 0x20 flagged the same way (a borrow only runs upwards).
        let found = ((quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (x.wrapping_sub(ONES * 0x20) & !x))
            & HIGHS;
        if found != 0 {
            return at + (found.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while let Some(&byte) = bytes.get(at) {
        if byte == b'"' || byte == b'\\' || byte < 0x20 {
            break;
        }
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_of_the_set_at_every_place_and_none_in_other_bytes() {
        // Every byte value but the set's, including non-ASCII ones, in runs of every length.
        let others: Vec<u8> = (0..=255u8).filter(|b| !b"<|>".contains(b)).collect();
        for len in 0..40 {
            let plain: Vec<u8> = others
                .iter()
                .cycle()
                .skip(len * 7)
                .take(len)
                .copied()
                .collect();
            assert_eq!(find_any(&plain, 0, *b"<|>"), len);
            for at in 0..len {
                for special in *b"<|>" {
                    let mut bytes = plain.clone();
                    bytes[at] = special;
                    // A later one never hides an earlier one.
                    bytes.push(b'>');
                    assert_eq!(find_any(&bytes, 0, *b"<|>"), at, "{len} {at} {special}");
                    assert_eq!(find_any(&bytes, at + 1, *b"<|>"), len);
                }
            }
        }
        assert_eq!(find_any(b"ab", 5, *b"<"), 2);
    }

    #[test]
    fn same_is_equality_at_every_length_and_every_place() {
        for len in 0..40usize {
            let a: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(same(&a, &a.clone()));
            assert!(!same(&a, &a[..len.saturating_sub(1)]) || len == 0);
            for at in 0..len {
                let mut b = a.clone();
                b[at] ^= 0x20;
                assert!(!same(&a, &b), "{len} {at}");
            }
        }
    }

    #[test]
    fn a_json_strings_plain_run_ends_at_the_first_byte_to_escape() {
        let plain: Vec<u8> = (0x20..=0xffu8).filter(|b| !b"\"\\".contains(b)).collect();
        for len in 0..40 {
            let run: Vec<u8> = plain
                .iter()
                .cycle()
                .skip(len * 5)
                .take(len)
                .copied()
                .collect();
            assert_eq!(json_plain_run(&run, 0), len);
            for at in 0..len {
                for special in [b'"', b'\\', 0, 0x1f, b'\n'] {
                    let mut bytes = run.clone();
                    bytes[at] = special;
                    bytes.push(b'"');
                    assert_eq!(json_plain_run(&bytes, 0), at, "{len} {at} {special}");
                }
            }
        }
    }
}
