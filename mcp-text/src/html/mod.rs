//! HTML to the model. PLACEHOLDER: the html helper replaces this file.

use crate::Read;

pub fn read(_input: &str) -> Read {
    unimplemented!("html reader")
}
