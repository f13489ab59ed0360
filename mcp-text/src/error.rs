//! Errors and warnings, as values that name the place in the input.

use std::fmt;

/// Input that could not be read: where (1-based line and column, 0 when the format has no lines) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl Error {
    pub fn new(line: usize, column: usize, message: impl Into<String>) -> Self {
        Error {
            line,
            column,
            message: message.into(),
        }
    }

    /// The 1-based line and column of byte `offset` in `input`.
    pub fn at(input: &[u8], offset: usize, message: impl Into<String>) -> Self {
        let (line, column) = line_column(input, offset);
        Error::new(line, column, message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(
                f,
                "line {}, column {}: {}",
                self.line, self.column, self.message
            )
        }
    }
}

impl std::error::Error for Error {}

/// Why a conversion that writes as it reads ([`crate::convert_to`]) stopped.
#[derive(Debug)]
pub enum Failed {
    /// The input could not be read (or written in the format asked for).
    Input(Error),
    /// The output could not be written.
    Output(std::io::Error),
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failed::Input(e) => e.fmt(f),
            Failed::Output(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Failed {}

/// Something a reader read leniently: a marker it could not use, a construct it kept in another form.
/// The document is still whole; the warning says which node lost what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// 1-based line of the input (0 when unknown).
    pub line: usize,
    pub message: String,
}

impl Warning {
    pub fn new(line: usize, message: impl Into<String>) -> Self {
        Warning {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            f.write_str(&self.message)
        } else {
            write!(f, "line {}: {}", self.line, self.message)
        }
    }
}

/// The 1-based line and column (in characters) of byte `offset` in `input`.
pub fn line_column(input: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(input.len());
    let before = &input[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (line, column)
}
