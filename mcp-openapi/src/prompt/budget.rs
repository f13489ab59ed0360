//! What a converted tool may spend on what the model sees (a [`Budget`] per part), which way a schema
//! faces ([`Direction`]), and the report of what did not fit ([`Cut`]).

use serde_json::Value;
use std::fmt;

/// The most bytes a model-facing schema or description may take, whatever the budget says: past it a
/// schema is always cut, so that no spec can make a tool list grow without bound.
pub const HARD_LIMIT: usize = 1 << 20;

/// The least a schema budget may be: room for an object stub with a description.
pub const MIN_SCHEMA_BUDGET: usize = 256;

/// Bytes of compact JSON a converted tool may spend, per part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// The input schema: what the model needs to make the call.
    pub input: usize,
    /// The output schema: what it needs to read the answer.
    pub output: usize,
    /// The tool's description.
    pub description: usize,
}

impl Budget {
    /// The defaults, from the measurements in `docs/benchmarks.md` (`openapi_corpus` test): 4 KiB of input schema keeps
    /// every argument of 98% of the corpus's operations untouched; 2 KiB of output schema keeps the top level
    /// of nearly every answer (its fields, types and first sentences), and 1 KiB of description keeps the
    /// summary and the first paragraphs. A tool then costs at most 7 KiB (about 1,800 tokens).
    pub const DEFAULT: Budget = Budget {
        input: 4096,
        output: 2048,
        description: 1024,
    };

    /// No budget but the hard limit.
    pub const UNLIMITED: Budget = Budget {
        input: HARD_LIMIT,
        output: HARD_LIMIT,
        description: HARD_LIMIT,
    };

    /// Each part clamped between the minimum and the hard limit.
    pub fn clamped(self) -> Budget {
        let clamp = |n: usize, min: usize| n.clamp(min, HARD_LIMIT);
        Budget {
            input: clamp(self.input, MIN_SCHEMA_BUDGET),
            output: clamp(self.output, MIN_SCHEMA_BUDGET),
            description: clamp(self.description, 16),
        }
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::DEFAULT
    }
}

/// Which side of the API a schema describes: `readOnly` properties are not sent, `writeOnly` ones not
/// received; `null` is dropped from inputs, where an absent argument says the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// What the client sends: `readOnly` properties and `null` are dropped.
    Request,
    /// What the API answers: `writeOnly` properties are dropped.
    Response,
}

/// Why part of a schema is not what the spec says in full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutReason {
    /// It did not fit in the budget.
    Budget,
    /// It is the object it sits in, again.
    Recursion,
    /// It nests deeper than any model reads.
    Depth,
    /// Descriptions, examples or long enums were shortened to fit.
    Shortened,
}

/// One cut, for `mcp-codegen audit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// JSON pointer in the tool (`/outputSchema/properties/customer`).
    pub pointer: String,
    /// What was cut (`customer`, `object`, `descriptions`).
    pub what: String,
    /// Why it was cut.
    pub reason: CutReason,
}

impl fmt::Display for Cut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self.reason {
            CutReason::Budget => "over the budget",
            CutReason::Recursion => "recursive",
            CutReason::Depth => "too deep",
            CutReason::Shortened => "shortened to fit",
        };
        write!(f, "{} at {} ({why})", self.what, self.pointer)
    }
}

/// The size of a value as compact JSON.
pub fn json_len(v: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = serde_json::to_writer(&mut c, v);
    c.0
}
