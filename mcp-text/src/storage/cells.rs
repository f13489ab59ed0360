//! A table's rows and cells, the walk that the readers and writers of what a table says of its cells
//! share (`wrapped.rs`, `bare.rs`, `columns.rs`): rows are the table's `tableRow` children, cells a row's
//! `tableCell` and `tableHeader` children; anything else in those places is passed over.

use crate::model::{Node, NodeType};

/// The rows of a table.
pub(super) fn rows_mut(table: &mut Node) -> impl Iterator<Item = &mut Node> {
    let rows = table.content.iter_mut().flatten();
    rows.filter(|r| r.kind == NodeType::TableRow)
}

/// The cells of a row.
pub(super) fn row_cells_mut(row: &mut Node) -> impl Iterator<Item = &mut Node> {
    let cells = row.content.iter_mut().flatten();
    cells.filter(|c| is_cell(c))
}

/// The cells of a table, row by row.
pub(super) fn cells_mut(table: &mut Node) -> impl Iterator<Item = &mut Node> {
    rows_mut(table).flat_map(row_cells_mut)
}

/// The cells of a row, read only.
pub(super) fn row_cells(row: &Node) -> impl Iterator<Item = &Node> {
    row.children().iter().filter(|c| is_cell(c))
}

/// The rows of a table, read only.
pub(super) fn rows(table: &Node) -> impl Iterator<Item = &Node> {
    table
        .children()
        .iter()
        .filter(|r| r.kind == NodeType::TableRow)
}

fn is_cell(node: &Node) -> bool {
    matches!(node.kind, NodeType::TableCell | NodeType::TableHeader)
}
