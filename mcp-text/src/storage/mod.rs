//! Confluence storage format. PLACEHOLDER: the storage helper replaces this file.

use crate::error::Error;
use crate::model::Node;
use crate::Read;

pub fn read(_input: &str) -> Result<Read, Error> {
    unimplemented!("storage reader")
}

pub fn write(_doc: &Node) -> String {
    unimplemented!("storage writer")
}
