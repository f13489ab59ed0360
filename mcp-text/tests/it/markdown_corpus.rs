//! The CommonMark spec's and GFM's examples.
