//! Markdown: the writer (model → CommonMark + GFM + markers) and the reader (back to the model).
//! PLACEHOLDER: the markdown helper replaces this file.

use crate::mention::MentionResolver;
use crate::model::Node;
use crate::Read;

#[derive(Default)]
pub struct WriteOptions<'a> {
    pub mentions: Option<&'a dyn MentionResolver>,
}

pub fn write(_doc: &Node, _options: &WriteOptions) -> String {
    unimplemented!("markdown writer")
}

pub fn read(_input: &str) -> Read {
    unimplemented!("markdown reader")
}
