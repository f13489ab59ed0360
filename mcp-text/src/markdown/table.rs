//! Tables: a GFM pipe table when every cell is one line of inline content under a header row (a cell of
//! plain paragraphs `a<p>b`, as HTML writes them), else an HTML `<table>` whose cells hold Markdown
//! (blank lines around it, so that it is read as Markdown).

use serde_json::Value;

use super::forms;
use super::inline::Place;
use super::marker::{self, Inf, Inferred};
use super::writer::{is_empty_paragraph, plain_inline_container, Parent, W};
use crate::model::{Node, NodeType};

/// Whether the table has rows of cells (else it is written whole).
pub(super) fn ok(table: &Node) -> bool {
    table.text.is_none()
        && !table.children().is_empty()
        && table.children().iter().all(|r| {
            r.kind == NodeType::TableRow
                && r.text.is_none()
                && r.content.is_some()
                && r.children().iter().all(|c| {
                    matches!(c.kind, NodeType::TableCell | NodeType::TableHeader)
                        && c.text.is_none()
                        && c.content.is_some()
                })
        })
}

fn span_one(cell: &Node, name: &str) -> bool {
    cell.attr(name).is_none_or(|v| v.as_u64() == Some(1))
}

fn pipe_cell(cell: &Node) -> bool {
    span_one(cell, "colspan")
        && span_one(cell, "rowspan")
        && match cell.children() {
            [p] if is_empty_paragraph(p) => true,
            // An empty one with an id: the id alone.
            [p] if p.kind == NodeType::Paragraph
                && p.content.is_none()
                && p.marks.is_none()
                && p.text.is_none()
                && p.extra.is_none()
                && paragraph_id(p).is_some() =>
            {
                true
            }
            [p] => {
                p.kind == NodeType::Paragraph
                    && (p.attrs.is_none() || paragraph_id(p).is_some())
                    && p.marks.is_none()
                    && p.extra.is_none()
                    && plain_inline_container(p)
                    && !matches!(p.children(), [only] if only.kind == NodeType::MediaInline)
            }
            // Paragraphs of nothing but their text, one after the other: `a<p>b`.
            ps => {
                ps.len() > 1
                    && ps.iter().all(|p| {
                        p.kind == NodeType::Paragraph
                            && p.attrs.is_none()
                            && p.marks.is_none()
                            && p.extra.is_none()
                            && plain_inline_container(p)
                            && !matches!(p.children(), [only] if only.kind == NodeType::MediaInline)
                    })
            }
        }
}

/// A cell paragraph's id, when its attrs are that alone and the short marker carries it: written
/// `<!--#ID-->` before the cell's text (the last of the short markers there, see `pipe`).
fn paragraph_id(p: &Node) -> Option<&str> {
    let attrs = p.attrs.as_ref().filter(|a| a.len() == 1)?;
    attrs
        .get("localId")?
        .as_str()
        .filter(|id| marker::is_id(id))
}

fn pipe_ok(table: &Node) -> bool {
    let rows = table.children();
    let cols = rows[0].children().len();
    // An empty row has no pipe form (nor a table of them): it is an HTML table's `<tr></tr>`.
    cols > 0
        && rows.iter().enumerate().all(|(i, r)| {
            r.children().len() == cols
                && r.children()
                    .iter()
                    .all(|c| (c.kind == NodeType::TableHeader) == (i == 0) && pipe_cell(c))
        })
}

/// `blocks` is the block walk (write.rs), which a cell of an HTML table holds.
pub(super) fn write<'a>(w: &mut W<'a>, table: &Node, blocks: fn(&mut W<'a>, &[Node], Parent)) {
    let d = marker::diff(table, Inferred::new(Some(&forms::TABLE), true));
    let pipe_ok = pipe_ok(table);
    if let Some(d) = &d {
        // A pipe table's id alone is the short marker (the reader sees the table in what follows); not
        // on a list item's first line, where it is the item's own.
        match d.lone_local_id().filter(|_| pipe_ok && w.pending == 0) {
            Some(id) => w.id_marker(id),
            None => w.marker("table", Some(d), false),
        }
    }
    if pipe_ok {
        pipe(w, table);
    } else {
        html(w, table, blocks);
    }
}

fn pipe(w: &mut W, table: &Node) {
    let place = Place {
        single_line: true,
        in_cell: true,
        ..Place::default()
    };
    // Each row is built in the writer's line buffer, its cells' inline content written straight into it.
    let mut line = std::mem::take(&mut w.line);
    for (i, row) in table.children().iter().enumerate() {
        line.clear();
        line.push('|');
        for (j, cell) in row.children().iter().enumerate() {
            line.push(' ');
            // Ids alone are short markers before the cell's text, read from the last: the paragraph's,
            // the cell's, the row's (in its first cell). So the cell's is short only after a short one of
            // the paragraph's, and the row's only after a short one of the cell's.
            let para = match cell.children() {
                [p] => Some(p),
                _ => None,
            };
            let para_id = para.and_then(paragraph_id).filter(|_| !w.plain());
            let cell_d =
                marker::diff(cell, Inferred::new(Some(&forms::CELL), true)).filter(|_| !w.plain());
            let cell_id = cell_d
                .as_ref()
                .and_then(|d| d.lone_local_id())
                .filter(|_| para_id.is_some());
            if j == 0 {
                if let Some(d) = marker::diff(row, Inferred::new(None, true)).filter(|_| !w.plain())
                {
                    match d.lone_local_id().filter(|_| cell_id.is_some()) {
                        Some(id) => marker::push_id(&mut line, id),
                        None => marker::push_inline(&mut line, row.kind.name(), &d),
                    }
                }
            }
            match (cell_id, &cell_d) {
                (Some(id), _) => marker::push_id(&mut line, id),
                (None, Some(d)) => marker::push_inline(&mut line, cell.kind.name(), d),
                (None, None) => {}
            }
            if let Some(id) = para_id {
                marker::push_id(&mut line, id);
            }
            if let Some(p) = para.filter(|p| !is_empty_paragraph(p)) {
                w.inline_into(&mut line, p.children(), place);
            } else if para.is_none() {
                // Paragraphs (see `pipe_cell`), each after the `<p>` that starts it but the first.
                for (k, p) in cell.children().iter().enumerate() {
                    if k > 0 {
                        line.push_str("<p>");
                    }
                    w.inline_into(&mut line, p.children(), place);
                }
            }
            line.push_str(" |");
        }
        w.line(&line);
        if i == 0 {
            line.clear();
            line.push('|');
            for _ in row.children() {
                line.push_str(" --- |");
            }
            w.line(&line);
        }
    }
    w.line = line;
}

fn html<'a>(w: &mut W<'a>, table: &Node, blocks: fn(&mut W<'a>, &[Node], Parent)) {
    w.line("<table>");
    for row in table.children() {
        w.line("<tr>");
        if let Some(d) = marker::diff(row, Inferred::new(None, true)) {
            w.marker("tableRow", Some(&d), false);
        }
        for cell in row.children() {
            let tag = if cell.kind == NodeType::TableHeader {
                "th"
            } else {
                "td"
            };
            let mut open = ["<", tag].concat();
            let colspan = cell
                .attr("colspan")
                .and_then(Value::as_u64)
                .filter(|_| cell.attr("colspan").is_some_and(Value::is_u64));
            let rowspan = cell
                .attr("rowspan")
                .and_then(Value::as_u64)
                .filter(|_| cell.attr("rowspan").is_some_and(Value::is_u64));
            if let Some(n) = colspan {
                open.push_str(" colspan=\"");
                super::json::push_u64(&mut open, n);
                open.push('"');
            }
            if let Some(n) = rowspan {
                open.push_str(" rowspan=\"");
                super::json::push_u64(&mut open, n);
                open.push('"');
            }
            open.push('>');
            w.line(&open);
            w.blank();
            let mut inf: Vec<(&str, Inf)> = Vec::new();
            if let Some(n) = colspan {
                inf.push(("colspan", Inf::Int(n)));
            }
            if let Some(n) = rowspan {
                inf.push(("rowspan", Inf::Int(n)));
            }
            // The reader gives every cell attrs (`{}` at least, see forms::CELL).
            let inf = Inferred::new(Some(&inf[..]), true);
            let mut d = marker::diff(cell, inf);
            if cell.children().is_empty() {
                // The reader gives an empty cell an empty paragraph; this one has none.
                d.get_or_insert_with(marker::Diff::default)
                    .set_empty_content();
            }
            if let Some(d) = &d {
                w.marker(cell.kind.name(), Some(d), false);
            }
            match cell.children() {
                [] => {}
                [p] if is_empty_paragraph(p) => {}
                children => {
                    blocks(w, children, Parent::Cell);
                    w.blank();
                }
            }
            w.line(&["</", tag, ">"].concat());
        }
        w.line("</tr>");
    }
    w.line("</table>");
}
