//! Where the top-level blocks of ADF JSON start (the elements of the root's `content` array), found from
//! the JSON's structure alone, nothing read into a node: a thread can then start reading at one of them
//! while another reads the blocks before it (`crate::split`).
//!
//! The scan goes 64 bytes at a time, the way simdjson finds structure: a bit per byte for quotes,
//! backslashes, brackets and commas (SSE2 compares on x86-64, a loop elsewhere), the escaped bytes and
//! the bytes inside strings worked out from those bits, and brackets counted by popcount, so that a
//! block in which the depth cannot come back to the array's is passed over whole. Only near the array's
//! level are its commas looked at one by one.
//!
//! The scan trusts the input to be JSON and checks nothing else: what it finds is only used where the
//! readers confirm it (the reader of the blocks before a start must arrive at exactly that start). On
//! anything that is not the plain shape (no root object, a `content` member spelled with escapes, bytes
//! that are not JSON) it ends early or finds starts that are none, which costs only the work a second
//! thread would have done.

/// The starts of the root's `content` elements, in order: see the module's doc.
pub struct BlockStarts<'a> {
    bytes: &'a [u8],
    state: State,
    /// The next 64 bytes to classify start here.
    next: usize,
    /// The commas and brackets of the block at `block` not looked at yet, and the depth before them.
    block: usize,
    pending: u64,
    depth: usize,
    /// Carried from one block to the next: the next block's first byte is escaped (bit 0); it starts
    /// inside a string (all ones).
    escaped: u64,
    in_string: u64,
}

#[derive(Clone, Copy, PartialEq)]
enum State {
    /// The root's members are still to be scanned for `content`.
    Root,
    /// Inside `content`.
    Elements,
    Done,
}

/// Two JSON levels: the root object, its `content` array.
const ARRAY_DEPTH: usize = 2;

/// The starts of the top-level blocks of `input`.
pub fn block_starts(input: &[u8]) -> BlockStarts<'_> {
    BlockStarts {
        bytes: input,
        state: State::Root,
        next: 0,
        block: 0,
        pending: 0,
        depth: 0,
        escaped: 0,
        in_string: 0,
    }
}

/// The starts of the top-level blocks of `input` after the block that starts at `at` (one of those
/// [`block_starts`] finds).
pub fn block_starts_after(input: &[u8], at: usize) -> BlockStarts<'_> {
    BlockStarts {
        bytes: input,
        state: State::Elements,
        next: at.min(input.len()),
        block: 0,
        pending: 0,
        depth: ARRAY_DEPTH,
        escaped: 0,
        in_string: 0,
    }
}

impl BlockStarts<'_> {
    /// Finds the root's `content` array: the offset after its `[`, or `None`. The root's members before
    /// it are few and short: they are skipped byte by byte.
    fn find_content(&self) -> Option<usize> {
        let bytes = self.bytes;
        let mut at = space(bytes, 0);
        if bytes.get(at) != Some(&b'{') {
            return None;
        }
        at += 1;
        loop {
            at = space(bytes, at);
            if bytes.get(at) != Some(&b'"') {
                return None;
            }
            let name = at + 1;
            at = skip_string(bytes, name);
            let is_content = bytes.get(name..at) == Some(b"content\"".as_slice());
            at = space(bytes, at);
            if bytes.get(at) != Some(&b':') {
                return None;
            }
            at = space(bytes, at + 1);
            if is_content && bytes.get(at) == Some(&b'[') {
                return Some(at + 1);
            }
            at = space(bytes, skip_value(bytes, at));
            if bytes.get(at) != Some(&b',') {
                return None;
            }
            at += 1;
        }
    }

    /// The next element's start: after the next comma at the array's depth, or `None` where the array
    /// (or the input) ends.
    fn next_element(&mut self) -> Option<usize> {
        loop {
            while self.pending != 0 {
                let bit = self.pending.trailing_zeros() as usize;
                self.pending &= self.pending - 1;
                let at = self.block + bit;
                match self.bytes[at] {
                    b'{' | b'[' => self.depth += 1,
                    b',' if self.depth == ARRAY_DEPTH => return Some(space(self.bytes, at + 1)),
                    b',' => {}
                    // A closing bracket.
                    _ => {
                        if self.depth == ARRAY_DEPTH {
                            return None;
                        }
                        self.depth -= 1;
                    }
                }
            }
            if self.next >= self.bytes.len() {
                return None;
            }
            self.classify();
        }
    }

    /// Classifies the next 64 bytes: their commas and brackets outside strings become `pending`, unless
    /// the depth cannot come back to the array's in them (then only the depth moves on).
    fn classify(&mut self) {
        let start = self.next;
        let mut word = [b' '; 64];
        let chunk = match self.bytes.get(start..start + 64) {
            Some(chunk) => chunk,
            None => {
                let rest = &self.bytes[start..];
                word[..rest.len()].copy_from_slice(rest);
                &word
            }
        };
        let m = masks(chunk.try_into().expect("64 bytes"));
        let escaped = self.escapes(m.backslash);
        let quotes = m.quote & !escaped;
        let inside = prefix_xor(quotes) ^ self.in_string;
        self.in_string = 0u64.wrapping_sub(inside >> 63);
        let (open, close) = (m.open & !inside, m.close & !inside);
        self.block = start;
        self.next = start + 64;
        let closes = close.count_ones() as usize;
        if self.depth > ARRAY_DEPTH + closes {
            // Every byte of the block is deeper than the array's elements.
            self.depth = self.depth + open.count_ones() as usize - closes;
            self.pending = 0;
        } else {
            self.pending = open | close | (m.comma & !inside);
        }
    }

    /// The bytes of this block that a backslash escapes (`backslash`: its backslashes), carrying an
    /// escape over into the next block. Backslashes are few (only escapes in strings): one at a time.
    fn escapes(&mut self, backslash: u64) -> u64 {
        let mut escaped = self.escaped;
        self.escaped = 0;
        let mut rest = backslash;
        while rest != 0 {
            let bit = rest.trailing_zeros();
            rest &= rest - 1;
            if escaped & (1 << bit) != 0 {
                // An escaped backslash escapes nothing.
                continue;
            }
            if bit == 63 {
                self.escaped = 1;
            } else {
                escaped |= 1 << (bit + 1);
            }
        }
        escaped
    }
}

impl Iterator for BlockStarts<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let found = match self.state {
            State::Done => None,
            State::Root => self.find_content().and_then(|after| {
                self.state = State::Elements;
                self.next = after;
                self.depth = ARRAY_DEPTH;
                let first = space(self.bytes, after);
                (self.bytes.get(first).is_some_and(|&b| b != b']')).then_some(first)
            }),
            State::Elements => self.next_element(),
        };
        if found.is_none() {
            self.state = State::Done;
        }
        found
    }
}

/// One bit per byte of 64: where they are quotes, backslashes, opening and closing brackets, commas.
#[derive(Default)]
struct Masks {
    quote: u64,
    backslash: u64,
    open: u64,
    close: u64,
    comma: u64,
}

#[cfg(target_arch = "x86_64")]
fn masks(chunk: &[u8; 64]) -> Masks {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    let mut m = Masks::default();
    // Bytes with 0x20 set: `[` and `{` become `{`, `]` and `}` become `}`, and no other byte does.
    // SAFETY: SSE2 is part of x86-64 itself.
    let (quote, backslash, open, close, comma, lower) = unsafe {
        (
            _mm_set1_epi8(b'"' as i8),
            _mm_set1_epi8(b'\\' as i8),
            _mm_set1_epi8(b'{' as i8),
            _mm_set1_epi8(b'}' as i8),
            _mm_set1_epi8(b',' as i8),
            _mm_set1_epi8(0x20),
        )
    };
    for i in 0..4 {
        // SAFETY: SSE2 is part of x86-64 itself (every x86-64 processor has it), and the 16 bytes from
        // `i * 16` are in the 64 of `chunk`, which an unaligned load reads as they are.
        unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().add(i * 16).cast::<__m128i>());
            let low = _mm_or_si128(v, lower);
            let bits = |eq| u64::from(_mm_movemask_epi8(eq) as u16) << (i * 16);
            m.quote |= bits(_mm_cmpeq_epi8(v, quote));
            m.backslash |= bits(_mm_cmpeq_epi8(v, backslash));
            m.open |= bits(_mm_cmpeq_epi8(low, open));
            m.close |= bits(_mm_cmpeq_epi8(low, close));
            m.comma |= bits(_mm_cmpeq_epi8(v, comma));
        }
    }
    m
}

#[cfg(not(target_arch = "x86_64"))]
fn masks(chunk: &[u8; 64]) -> Masks {
    let mut m = Masks::default();
    for (i, &b) in chunk.iter().enumerate() {
        let bit = 1u64 << i;
        match b {
            b'"' => m.quote |= bit,
            b'\\' => m.backslash |= bit,
            b'{' | b'[' => m.open |= bit,
            b'}' | b']' => m.close |= bit,
            b',' => m.comma |= bit,
            _ => {}
        }
    }
    m
}

/// Each bit the XOR of those up to it: from an opening quote up to its closing one, the bytes inside.
fn prefix_xor(mut x: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        x ^= x << shift;
    }
    x
}

/// The offset of the first byte from `at` on that is not JSON space.
fn space(bytes: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\t' | b'\r') = bytes.get(at) {
        at += 1;
    }
    at
}

/// Where the string whose content starts at `from` ends (after its closing quote), or the input's end.
fn skip_string(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    loop {
        at = crate::scan::find_any(bytes, at, *b"\"\\");
        match bytes.get(at) {
            Some(b'"') => return at + 1,
            // An escape: the next byte is never the string's end.
            Some(_) => at += 2,
            None => return bytes.len(),
        }
    }
}

/// Where the value starting at `from` ends: after its closing quote or bracket, or at the byte after its
/// scalar; the input's end if it does not end.
fn skip_value(bytes: &[u8], from: usize) -> usize {
    match bytes.get(from) {
        Some(b'"') => skip_string(bytes, from + 1),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut at = from;
            while let Some(&b) = bytes.get(at) {
                at += 1;
                match b {
                    b'"' => at = skip_string(bytes, at),
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return at;
                        }
                    }
                    _ => {}
                }
            }
            bytes.len()
        }
        _ => {
            let mut at = from;
            while let Some(b) = bytes.get(at) {
                if matches!(b, b',' | b'}' | b']' | b' ' | b'\n' | b'\t' | b'\r') {
                    break;
                }
                at += 1;
            }
            at
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn starts(input: &str) -> Vec<usize> {
        block_starts(input.as_bytes()).collect()
    }

    /// The starts a plain walk over the JSON finds, byte by byte: what the block scan must find.
    fn walked(input: &str) -> Vec<usize> {
        let bytes = input.as_bytes();
        let scan = block_starts(bytes);
        let Some(mut at) = scan.find_content() else {
            return Vec::new();
        };
        let mut found = Vec::new();
        loop {
            at = space(bytes, at);
            if matches!(bytes.get(at), None | Some(b']')) {
                return found;
            }
            found.push(at);
            at = space(bytes, skip_value(bytes, at));
            if bytes.get(at) != Some(&b',') {
                return found;
            }
            at += 1;
        }
    }

    #[test]
    fn finds_each_element_of_the_roots_content() {
        let input = r#"{"type":"doc","version":1,"content":[{"type":"rule"},{"type":"paragraph","content":[{"type":"text","text":"a]},{"}]}]}"#;
        let found = starts(input);
        assert_eq!(found.len(), 2);
        assert!(input[found[0]..].starts_with(r#"{"type":"rule"}"#));
        assert!(input[found[1]..].starts_with(r#"{"type":"paragraph""#));
    }

    #[test]
    fn skips_members_before_content_and_space_anywhere() {
        let input = " {\n \"attrs\" : {\"content\":[1]} , \"x\" : [ \"content\" , {\"a\":\"\\\"]\"} ] ,\"type\":\"doc\", \"content\" : [ {\"type\":\"rule\"} ,\n\t{\"type\":\"rule\"} ] } ";
        let found = starts(input);
        assert_eq!(found.len(), 2);
        for at in found {
            assert!(input[at..].starts_with(r#"{"type":"rule"}"#), "{at}");
        }
    }

    #[test]
    fn scalars_and_escapes_are_skipped_whole() {
        let input = r#"{"n":-1.5e3,"t":true,"s":"a\\","e":"\"content\":[","content":[{"a":"\\\\"},1,"x",null,[{"b":[]}]]}"#;
        let found = starts(input);
        let texts: Vec<&str> = found.iter().map(|&at| &input[at..at + 3]).collect();
        assert_eq!(texts, [r#"{"a"#, "1,\"", "\"x\"", "nul", "[{\""]);
    }

    #[test]
    fn strings_escapes_and_brackets_across_every_block_boundary() {
        // Each tricky piece at every offset from a block's start: a string holding brackets, commas and
        // escaped quotes, runs of backslashes of every length, deep nesting that comes back.
        let pieces = [
            r#"{"t":"a],[},{\"\\\\\",x"}"#,
            r#"{"t":"\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\\"}"#,
            r#"{"c":[[[[[[[[[[{"d":[]}]]]]]]]]]],"e":"\"]"}"#,
            r#""just a string, with [brackets] and \"quotes\"""#,
            r#"{"t":"\\"}"#,
        ];
        for pad in 0..70 {
            for i in 0..pieces.len() {
                let mut input = format!(r#"{{"type":"doc","x":"{}","content":["#, "p".repeat(pad));
                for j in 0..5 {
                    if j > 0 {
                        input.push_str(if j % 2 == 0 { "," } else { " ,\n " });
                    }
                    input.push_str(pieces[(i + j) % pieces.len()]);
                    input.push_str(&" ".repeat((pad + j) % 3));
                }
                input.push_str("]}");
                assert!(
                    serde_json::from_str::<serde_json::Value>(&input).is_ok(),
                    "{input}"
                );
                assert_eq!(
                    starts(&input),
                    walked(&input),
                    "pad {pad}, piece {i}: {input}"
                );
                assert_eq!(starts(&input).len(), 5);
            }
        }
    }

    #[test]
    fn the_starts_after_a_block_are_those_the_whole_scan_finds_after_it() {
        let input = r#"{"type":"doc","content":[{"t":"a,b"} , {"c":[{"d":"}"}]},"x",[],{"e":1}]}"#;
        let all = starts(input);
        assert_eq!(all.len(), 5);
        for (i, &at) in all.iter().enumerate() {
            let after: Vec<usize> = block_starts_after(input.as_bytes(), at).collect();
            assert_eq!(after, all[i + 1..], "after {at}");
        }
    }

    #[test]
    fn no_content_or_no_json_gives_few_starts_and_never_panics() {
        for input in [
            "",
            "[]",
            r#"{"type":"doc"}"#,
            r#"{"type":"doc","content":[]}"#,
            r#"{"type":"doc","content":{}}"#,
            r#"{"cont\u0065nt":[{"type":"rule"}]}"#,
            r#"{"type":"doc","content":[{"type":"rule""#,
            r#"{"type":"doc","content":"#,
            r#"{"type""#,
            r#"{"a":"unterminated"#,
            "{\"content\":[{\"a\":\"\\",
            "{\"content\":[1]]]]]]],2,3]",
        ] {
            let found = starts(input);
            assert!(found.len() <= 1, "{input}: {found:?}");
            for at in found {
                assert!(at < input.len());
            }
        }
    }
}
