//! What a table says of whole columns, as Confluence Server's and Data Center's editor writes tables: every
//! cell of a column added to a table says `colspan="1"` (some `rowspan="1"` too), and the table starts
//! with a colgroup of one empty `<col />` per column. Read as they are, each such cell's `colspan: 1` (ADF's
//! default is none) was a marker of its own in the Markdown, and the colgroup a string of XML in the
//! table's. So the reader says it once for the table: which columns' cells say it
//! (`storage.colspanOne: [2]`, `storage.rowspanOne`) and how many empty columns the colgroup has
//! (`storage.colgroup: 3`); the writer gives each cell in those columns that has no span of its own the
//! span again (a row a model adds too, as the editor would), and writes the colgroup.
//!
//! A column is a place in the rows: the third cell of each row, whatever spans come before it. It is one
//! of those columns when every row's cell there (a shorter row has none) says the span 1.
//!
//! A table with numbered rows (Confluence's "Numbered rows") has a first column whose every cell says
//! `class="numberingColumn"`: a marker on each row's first cell, said once now (`storage.numbered: true`),
//! and the writer gives each row's first cell of no class of its own the class again. A table pasted from
//! a rendered page has every header cell say `class="confluenceTh"` and every other `class="confluenceTd"`:
//! said once too (`storage.classed: true`), and given back to each cell of no class of its own.

use serde_json::Value;

use super::attrs::{remove_kept_attr, storage, storage_flag, storage_of};
use super::cells::{cells_mut, row_cells, row_cells_mut, rows, rows_mut};
use super::STORAGE;
use crate::model::{Attrs, Node, NodeType};

/// The spans a column may say for all its cells, and the key that says which columns do.
const SPANS: [(&str, &str); 2] = [("colspan", "colspanOne"), ("rowspan", "rowspanOne")];
const COLGROUP: &str = "colgroup";
const OPEN: &str = "<colgroup>";
const COL: &str = "<col />";
const CLOSE: &str = "</colgroup>";

/// The class of the cells of a numbered table's first column, and the key that says a table has one.
const NUMBERING: &str = "numberingColumn";
const NUMBERED: &str = "numbered";
/// The key that says each cell of a table has its kind's class (see [`kind_class`]).
const CLASSED: &str = "classed";

/// The class Confluence's rendered tables give a cell of its kind.
fn kind_class(cell: &Node) -> &'static str {
    match cell.kind {
        NodeType::TableHeader => "confluenceTh",
        _ => "confluenceTd",
    }
}

/// Says it once for a table just read (see the module).
pub(super) fn read(table: &mut Node) {
    if is_numbered(table) {
        for row in rows_mut(table) {
            if let Some(cell) = row_cells_mut(row).next() {
                remove_kept_attr(cell, "class");
            }
        }
        let attrs = table.attrs.get_or_insert_with(Attrs::new);
        storage_of(attrs).insert(NUMBERED.into(), Value::Bool(true));
    }
    if is_classed(table) {
        cells_mut(table).for_each(|cell| remove_kept_attr(cell, "class"));
        let attrs = table.attrs.get_or_insert_with(Attrs::new);
        storage_of(attrs).insert(CLASSED.into(), Value::Bool(true));
    }
    for (span, key) in SPANS {
        let columns = columns_saying_one(table, span);
        if columns.is_empty() {
            continue;
        }
        for row in rows_mut(table) {
            for (at, cell) in row_cells_mut(row).enumerate() {
                if columns.contains(&at) {
                    remove_attr(cell, span);
                }
            }
        }
        let list = columns.into_iter().map(Value::from).collect();
        let attrs = table.attrs.get_or_insert_with(Attrs::new);
        storage_of(attrs).insert(key.into(), Value::Array(list));
    }
    let storage = table
        .attrs
        .as_mut()
        .and_then(|a| a.get_mut(STORAGE))
        .and_then(Value::as_object_mut);
    if let Some(colgroup) = storage.and_then(|s| s.get_mut(COLGROUP)) {
        if let Some(n) = colgroup.as_str().and_then(empty_columns) {
            *colgroup = Value::from(n);
        }
    }
}

/// The table the writer writes (`None`: it says nothing of its columns' spans): the span given back to
/// each cell in those columns that has none.
pub(super) fn write_form(table: &Node) -> Option<Node> {
    let said: Vec<(&str, Vec<usize>)> = SPANS
        .iter()
        .filter_map(|&(span, key)| Some((span, columns_said(table, key)?)))
        .collect();
    let numbered = storage_flag(table.attrs.as_ref(), NUMBERED);
    let classed = storage_flag(table.attrs.as_ref(), CLASSED);
    if said.is_empty() && !numbered && !classed {
        return None;
    }
    let mut table = table.clone();
    for row in rows_mut(&mut table) {
        for (at, cell) in row_cells_mut(row).enumerate() {
            let given = match () {
                _ if at == 0 && numbered => Some(NUMBERING),
                _ if classed => Some(kind_class(cell)),
                _ => None,
            };
            if let Some(given) = given.filter(|_| class(cell).is_none()) {
                let attrs = cell.attrs.get_or_insert_with(Attrs::new);
                let kept = storage_of(attrs)
                    .entry("attrs")
                    .or_insert_with(|| Value::Object(Default::default()));
                if let Some(kept) = kept.as_object_mut() {
                    kept.insert("class".into(), given.into());
                }
            }
            for (span, columns) in &said {
                if columns.contains(&at) && cell.attr(span).is_none() {
                    let attrs = cell.attrs.get_or_insert_with(Attrs::new);
                    attrs.insert(*span, Value::from(1));
                }
            }
        }
    }
    Some(table)
}

/// The colgroup the writer writes first in a table, if it has one: kept as it was, or its count of
/// empty columns.
pub(super) fn colgroup(table: &Node) -> Option<String> {
    let kept = storage(table.attrs.as_ref())?.get(COLGROUP)?;
    match kept {
        Value::String(raw) => Some(raw.clone()),
        Value::Number(n) => {
            let n = usize::try_from(n.as_u64()?).ok()?;
            // A count no colgroup could have had (a model's) is not written.
            (1..=MAX_COLUMNS).contains(&n).then(|| {
                let mut out = String::with_capacity(OPEN.len() + n * COL.len() + CLOSE.len());
                out.push_str(OPEN);
                (0..n).for_each(|_| out.push_str(COL));
                out.push_str(CLOSE);
                out
            })
        }
        _ => None,
    }
}

/// More empty columns than any table has: a count above it is left a string.
const MAX_COLUMNS: usize = 1000;

/// How many `<col />` a colgroup of nothing else is (`None`: any other colgroup, which stays as it was).
fn empty_columns(raw: &str) -> Option<usize> {
    let mut cols = raw.strip_prefix(OPEN)?.strip_suffix(CLOSE)?;
    let mut n = 0;
    while !cols.is_empty() {
        cols = cols.strip_prefix(COL)?;
        n += 1;
    }
    (1..=MAX_COLUMNS).contains(&n).then_some(n)
}

/// The places at which every row's cell says `span` 1, and some row has a cell.
fn columns_saying_one(table: &Node, span: &str) -> Vec<usize> {
    let mut says: Vec<bool> = Vec::new();
    for row in rows(table) {
        for (at, cell) in row_cells(row).enumerate() {
            let one = cell.attr(span).and_then(Value::as_i64) == Some(1);
            match says.get_mut(at) {
                Some(s) => *s &= one,
                None => says.push(one),
            }
        }
    }
    (0..says.len()).filter(|&at| says[at]).collect()
}

/// The columns a table says all say `span` 1 (under `key`), if it says so.
fn columns_said(table: &Node, key: &str) -> Option<Vec<usize>> {
    let list = storage(table.attrs.as_ref())?.get(key)?.as_array()?;
    let columns: Vec<usize> = list
        .iter()
        .filter_map(|v| usize::try_from(v.as_u64()?).ok())
        .collect();
    (!columns.is_empty()).then_some(columns)
}

/// Whether a table just read has rows, each of whose first cell keeps the class of a numbered table's.
fn is_numbered(table: &Node) -> bool {
    all_keep(rows(table).filter_map(|row| row_cells(row).next()), |_| {
        NUMBERING
    })
}

/// Whether a table just read has cells, each of which keeps the class of its kind (see [`kind_class`]).
fn is_classed(table: &Node) -> bool {
    all_keep(rows(table).flat_map(row_cells), kind_class)
}

/// Whether there are `cells`, and each keeps the class `wanted` names for it.
fn all_keep<'a>(cells: impl Iterator<Item = &'a Node>, wanted: fn(&Node) -> &'static str) -> bool {
    let mut cells = cells.peekable();
    cells.peek().is_some() && cells.all(|c| class(c) == Some(wanted(c)))
}

/// The class a cell keeps (`storage.attrs.class`).
fn class(cell: &Node) -> Option<&str> {
    storage(cell.attrs.as_ref())?
        .get("attrs")?
        .get("class")?
        .as_str()
}

fn remove_attr(node: &mut Node, name: &str) {
    if let Some(attrs) = node.attrs.as_mut() {
        attrs.remove(name);
    }
}
