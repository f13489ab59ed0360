//! What the element writers of links.rs and macros.rs write into: the output buffer and the walk over a
//! node's children. write.rs's `Writer` provides both; the element writers name only this trait, so that
//! the writer (which dispatches to them) and they do not need each other.

use crate::model::Node;

/// The storage format being written.
pub(super) trait Out {
    /// The storage format written so far, to append to.
    fn out(&mut self) -> &mut String;
    /// Writes `nodes` as siblings (marks opened and closed as they change), the writer's own walk.
    fn children(&mut self, nodes: &[Node]);
}
