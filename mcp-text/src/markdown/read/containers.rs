//! Containers a marker pair or an HTML element opens inside a frame (`<!--adf:layoutColumn 2-->` …
//! `<!--/adf:layoutColumn 2-->`, `<details>`, `<table>`): opened, closed, and ended where they ended when
//! one of their markers was lost.

use super::super::marker::{self, Marker};
use super::state::*;
use crate::model::{Attrs, Node, NodeType};
use serde_json::Value;

impl R<'_> {
    pub(super) fn html_open(
        &mut self,
        kind: NodeType,
        attrs: Option<Attrs>,
        line: usize,
        takes_pending: &[NodeType],
    ) {
        self.end_section_before(&kind, line);
        let f = self.frame();
        let mut diff = None;
        let mut kind = kind;
        if let Some(p) = f.pending.take() {
            if takes_pending.contains(&p.kind) {
                kind = p.kind;
                diff = Some(p.diff);
            } else {
                let start = f.children.len();
                f.opens.push(Open {
                    kind: p.kind,
                    attrs: None,
                    diff: Some(p.diff),
                    start,
                    line: p.line,
                    html: false,
                    count: p.count,
                    recovered: Vec::new(),
                });
            }
        }
        let start = f.children.len();
        f.opens.push(Open {
            kind,
            attrs,
            diff,
            start,
            line,
            html: true,
            count: None,
            recovered: Vec::new(),
        });
    }

    pub(super) fn html_close(&mut self, kind: Option<NodeType>, line: usize) {
        self.settle_pending();
        let f = self.frame();
        let found = f.opens.iter().rposition(|o| {
            o.html
                && match &kind {
                    Some(k) => o.kind == *k,
                    None => matches!(o.kind, NodeType::Expand | NodeType::NestedExpand),
                }
        });
        let Some(i) = found else {
            self.warn(line, "a closing HTML tag with no opening one; ignored");
            return;
        };
        self.close_open(i, line);
    }

    /// Closes `opens[i]` of the current frame: its children become its content.
    pub(super) fn close_open(&mut self, i: usize, line: usize) {
        // Containers opened inside and never closed end here too (as HTML closes implied end tags):
        // each keeps its wrapper and attrs, so a lost close marker costs only where its content ends.
        // A block's marker whose block never came (a `mediaSingle`'s before a paragraph: no pair) is
        // no container: it is lost, as at a frame's end.
        while self.frame().opens.len() > i + 1 {
            let inner = self.frame().opens.len() - 1;
            let (name, opened, pair) = {
                let o = &self.frame().opens[inner];
                let pair =
                    o.html || marker::pair_kind(&o.kind) || matches!(o.kind, NodeType::Other(_));
                (o.kind.name().to_string(), o.line, pair)
            };
            if pair {
                self.warn(
                    opened,
                    format!(
                        "`{name}` is never closed; it ends where its container ends (line {line})"
                    ),
                );
                self.close_unclosed(inner, line);
            } else {
                self.warn(
                    opened,
                    format!("`{name}` is never closed; its content is kept, its wrapper lost"),
                );
                self.frame().opens.pop();
            }
        }
        let f = self.frame();
        let Some(open) = f.opens.pop() else { return };
        // A column whose marker names no width: in a section, the share of the section's count; in no
        // section (off the schema, or the section's open marker lost), all the width.
        let column = open.kind == NodeType::LayoutColumn && !open.html && open.attrs.is_none();
        let width = match f.opens.last() {
            _ if !column => None,
            Some(s) if !s.html && s.kind == NodeType::LayoutSection => {
                s.count.and_then(marker::column_width)
            }
            _ => Some(marker::LONE_COLUMN_WIDTH),
        };
        let mut content: Vec<Node> = f
            .children
            .drain(open.start.min(f.children.len())..)
            .collect();
        if open.kind == NodeType::LayoutSection && !open.html {
            let recovered: Vec<usize> = open
                .recovered
                .iter()
                .filter_map(|i| i.checked_sub(open.start))
                .collect();
            content = self.section_columns(content, recovered, open.line);
        }
        let mut node = Node::new(open.kind.clone());
        node.attrs = open.attrs;
        if let Some(width) = width {
            node.attrs = Some(marker::inferred_attrs(&[("width", width)]));
        }
        if node.kind == NodeType::NestedExpand && node.attrs.is_none() {
            // ADF requires a nested expand's attrs (an expand's are optional).
            node.attrs = Some(Attrs::new());
        }
        let empty_default = marker::filled_when_empty(&open.kind) && content.is_empty();
        node.content = Some(shrunk(if empty_default {
            vec![Node::new(NodeType::Paragraph)]
        } else {
            content
        }));
        if let Some(d) = open.diff {
            self.apply(&mut node, &d, open.line);
        }
        let _ = line;
        self.frame().children.push(node);
    }

    /// A layoutSection opening directly in another one means the other's close marker was lost: it ends
    /// after its last column. (A block of another kind standing in a section is kept there until the
    /// section ends: it is a column's whose open marker was lost, or, when the section's close is lost,
    /// it leaves the section then.)
    pub(super) fn end_section_before(&mut self, kind: &NodeType, line: usize) {
        if *kind != NodeType::LayoutSection {
            return;
        }
        let f = self.frame();
        if f.pending
            .as_ref()
            .is_some_and(|p| p.kind == NodeType::LayoutColumn)
        {
            return;
        }
        if f.opens
            .last()
            .is_some_and(|o| !o.html && o.kind == NodeType::LayoutSection)
        {
            let i = f.opens.len() - 1;
            self.warn(line, "a `layoutSection` opens directly in a `layoutSection`: the first one ends after its last column (its `<!--/adf:layoutSection-->` is missing)");
            self.close_unclosed(i, line);
        }
    }

    /// Ends `opens[i]`, whose close marker was lost, where it ended: after as many blocks as its open
    /// marker counts, or (a section without a count) after its last column. The blocks after that stand
    /// after it, where they were before it swallowed them; without either it ends here.
    pub(super) fn close_unclosed(&mut self, i: usize, line: usize) {
        let f = self.frame();
        let open = &f.opens[i];
        let start = open.start.min(f.children.len());
        let end = match open.count {
            Some(n) if !open.html => start.saturating_add(n).min(f.children.len()),
            _ if !open.html && open.kind == NodeType::LayoutSection => f.children[start..]
                .iter()
                .rposition(|c| c.kind == NodeType::LayoutColumn)
                .map_or(start, |j| start + j + 1),
            _ => f.children.len(),
        };
        let spilled = f.children.split_off(end);
        self.close_open(i, line);
        self.frame().children.extend(spilled);
    }

    /// At the end of a frame: its containers that lost their close marker but know where they end.
    pub(super) fn close_counted(&mut self, line: usize) {
        while let Some(i) = self
            .frame()
            .opens
            .iter()
            .rposition(|o| !o.html && (o.count.is_some() || o.kind == NodeType::LayoutSection))
        {
            let (name, opened) = {
                let o = &self.frame().opens[i];
                (o.kind.name().to_string(), o.line)
            };
            self.warn(
                opened,
                format!("`{name}` is never closed; it ends after the blocks its marker counts"),
            );
            self.close_unclosed(i, line);
        }
    }

    /// A section's content as columns: a run of other blocks in it is a column whose open marker was
    /// lost (wrapped in one again), and a column without a width (its attrs lost) gets an equal share of
    /// what the others leave.
    pub(super) fn section_columns(
        &mut self,
        content: Vec<Node>,
        recovered: Vec<usize>,
        line: usize,
    ) -> Vec<Node> {
        if recovered.is_empty() && content.iter().all(|c| c.kind == NodeType::LayoutColumn) {
            return content;
        }
        let mut out: Vec<Node> = Vec::with_capacity(content.len());
        let mut wrapped = Vec::new();
        let mut run: Vec<Node> = Vec::new();
        for (i, c) in content.into_iter().enumerate() {
            if c.kind == NodeType::LayoutColumn {
                if recovered.contains(&i) && c.attrs.is_none() {
                    if !run.is_empty() {
                        wrapped.push(out.len());
                        out.push(Node::with_content(
                            NodeType::LayoutColumn,
                            std::mem::take(&mut run),
                        ));
                    }
                    wrapped.push(out.len());
                    out.push(c);
                    continue;
                }
                if !run.is_empty() {
                    wrapped.push(out.len());
                    out.push(Node::with_content(
                        NodeType::LayoutColumn,
                        std::mem::take(&mut run),
                    ));
                }
                out.push(c);
            } else {
                run.push(c);
            }
        }
        if !run.is_empty() {
            wrapped.push(out.len());
            out.push(Node::with_content(NodeType::LayoutColumn, run));
        }
        if wrapped.len() > recovered.len() {
            self.warn(line, "blocks stand in this `layoutSection` outside any column (a column's open marker lost): they are wrapped in a column again, its attrs lost");
        }
        let width = column_share(&out, wrapped.len(), out.len());
        for i in wrapped {
            out[i].set_attr("width", width.clone());
        }
        out
    }

    /// A close marker whose open marker was lost (deleted, or its JSON broken): the blocks it counts are
    /// wrapped again in a node of its type, which loses only its attrs. Types whose attrs cannot be left
    /// empty (a bodied extension's key) lose their wrapper instead.
    pub(super) fn orphan_close(&mut self, kind: NodeType, count: Option<usize>, line: usize) {
        let name = kind.name().to_string();
        let recoverable = matches!(
            kind,
            NodeType::LayoutSection
                | NodeType::LayoutColumn
                | NodeType::BodiedSyncBlock
                | NodeType::SyncBlock
                | NodeType::Other(_)
        );
        let f = self.frame();
        let in_section = f
            .opens
            .last()
            .is_some_and(|o| !o.html && o.kind == NodeType::LayoutSection);
        let floor = f.opens.last().map_or(0, |o| o.start).min(f.children.len());
        let n = count.unwrap_or(0).min(f.children.len() - floor);
        // A column's markers carry no count when it held one empty paragraph, which stood nowhere
        // between them: in a section, that column is still one of its columns.
        let empty_column = kind == NodeType::LayoutColumn && count.is_none() && in_section;
        if !recoverable || (n == 0 && !empty_column) {
            self.warn(
                line,
                format!("`<!--/adf:{name}-->` closes nothing; ignored"),
            );
            return;
        }
        let at = f.children.len() - n;
        let content: Vec<Node> = if empty_column {
            vec![Node::new(NodeType::Paragraph)]
        } else {
            f.children.drain(at..).collect()
        };
        let content = if kind == NodeType::LayoutSection {
            self.section_columns(content, Vec::new(), line)
        } else {
            content
        };
        let mut node = Node::with_content(kind.clone(), content);
        if kind == NodeType::LayoutColumn {
            // Its width is its share of what the other columns of its section leave, known when the
            // section closes (alone, all of it).
            let f = self.frame();
            match f
                .opens
                .last_mut()
                .filter(|o| !o.html && o.kind == NodeType::LayoutSection)
            {
                Some(section) => section.recovered.push(at),
                None => node.set_attr("width", 100),
            }
        }
        if matches!(kind, NodeType::BodiedSyncBlock | NodeType::SyncBlock) {
            node.set_attr("resourceId", "");
            node.set_attr("localId", "");
        }
        let what = if empty_column {
            "its column (an empty one) stands again".to_string()
        } else {
            format!("its {n} block(s) are wrapped again")
        };
        self.warn(
            line,
            format!("`<!--/adf:{name}-->` has no open marker: {what}, its attrs lost"),
        );
        self.frame().children.push(node);
    }

    /// A pending modifier with no block after it yet becomes an open container (its close may follow).
    pub(super) fn settle_pending(&mut self) {
        let f = self.frame();
        if let Some(p) = f.pending.take() {
            let start = f.children.len();
            f.opens.push(Open {
                kind: p.kind,
                attrs: None,
                diff: Some(p.diff),
                start,
                line: p.line,
                html: false,
                count: p.count,
                recovered: Vec::new(),
            });
        }
    }

    pub(super) fn block_marker(&mut self, m: Marker, line: usize) {
        if let Some((id, at)) = self.id.take() {
            self.warn(
                at,
                format!("`<!--#{id}-->` stands before another marker; the id is not used"),
            );
        }
        match m {
            Marker::Empty => {}
            Marker::Id(id) => {
                // First in a list item (no task's): the item's own (see `R::next_block_id` for any other
                // place).
                let f = self.frame();
                if matches!(
                    f.kind,
                    Fk::Item {
                        task: None,
                        inline_d: None
                    }
                ) && f.children.is_empty()
                    && f.self_d.is_none()
                    && f.pending.is_none()
                    && f.opens.is_empty()
                {
                    f.self_d = Some(marker::id_diff(id));
                } else {
                    self.id = Some((id, line));
                }
            }
            Marker::Leaf { kind, diff } => {
                self.settle_pending();
                self.end_section_before(&kind, line);
                let mut node = Node::new(kind);
                self.apply(&mut node, &diff, line);
                self.frame().children.push(node);
            }
            Marker::Close { kind, count } => {
                self.settle_pending();
                loop {
                    let f = self.frame();
                    let mut matching = f
                        .opens
                        .iter()
                        .enumerate()
                        .rev()
                        .filter(|(_, o)| !o.html && o.kind == kind)
                        .map(|(i, _)| i);
                    let Some(i) = matching.next() else {
                        self.orphan_close(kind, count, line);
                        break;
                    };
                    // A container of the same kind inside another that holds more blocks than its
                    // marker counts lost its own close: it ends at its count, and this close is the outer's.
                    // The writer gives an empty container's markers no count: a close with a count is
                    // not its own, and blocks after its open marker are the outer one's.
                    let o = &f.opens[i];
                    let empty = o.count.is_none() && count.is_some();
                    let overfull = o.count.is_some_and(|n| f.children.len() > o.start + n)
                        || (empty && f.children.len() > o.start);
                    let opened = o.line;
                    if overfull && matching.next().is_some() {
                        if empty {
                            f.opens[i].count = Some(0);
                        }
                        let name = kind.name().to_string();
                        self.warn(opened, format!("`{name}` is never closed; it ends after the blocks its marker counts"));
                        self.close_unclosed(i, line);
                        continue;
                    }
                    self.close_open(i, line);
                    break;
                }
            }
            Marker::Open { kind, diff, count } => {
                let f = self.frame();
                // A container's own marker: first in a list item, a table cell or row, or the document.
                let own = match &f.kind {
                    Fk::Doc => kind == NodeType::Doc,
                    Fk::Item { .. } => kind == NodeType::ListItem,
                    _ => false,
                };
                if own && f.children.is_empty() && f.self_d.is_none() && f.pending.is_none() {
                    f.self_d = Some(diff);
                    return;
                }
                // An item with no inline content: its line is only the diff, which Markdown reads as
                // an HTML block (`- <!--adf:decisionItem {...}-->`).
                if let Fk::Item { inline_d, .. } = &mut f.kind {
                    if matches!(
                        kind,
                        NodeType::TaskItem | NodeType::DecisionItem | NodeType::BlockTaskItem
                    ) && inline_d.is_none()
                        && f.children.is_empty()
                        && f.pending.is_none()
                        && f.opens.is_empty()
                    {
                        *inline_d = Some((kind, diff));
                        return;
                    }
                }
                if let Some(o) = f.opens.last_mut() {
                    if o.html
                        && o.kind == kind
                        && o.diff.is_none()
                        && f.children.len() == o.start
                        && matches!(
                            kind,
                            NodeType::TableCell | NodeType::TableHeader | NodeType::TableRow
                        )
                    {
                        o.diff = Some(diff);
                        return;
                    }
                }
                self.settle_pending();
                self.end_section_before(&kind, line);
                if kind == NodeType::LayoutColumn {
                    // A column never holds a column: the one still open lost its close marker.
                    let f = self.frame();
                    if f.opens
                        .last()
                        .is_some_and(|o| !o.html && o.kind == NodeType::LayoutColumn)
                    {
                        let i = f.opens.len() - 1;
                        self.warn(line, "a `layoutColumn` opens inside a `layoutColumn`: the first one is closed here (its `<!--/adf:layoutColumn-->` is missing)");
                        self.close_open(i, line);
                    }
                }
                self.frame().pending = Some(Pending {
                    kind,
                    diff,
                    line,
                    count,
                });
            }
        }
    }
}

/// The width each of `missing` new columns gets beside `columns`: an equal share of what their widths
/// leave of 100, or a `total`th of 100 when they leave nothing.
pub(super) fn column_share(columns: &[Node], missing: usize, total: usize) -> Value {
    let known: f64 = columns
        .iter()
        .filter_map(|c| c.attr("width").and_then(Value::as_f64))
        .sum();
    let missing = missing.max(1) as f64;
    let left = (100.0 - known) / missing;
    let share = if left >= 1.0 {
        left
    } else {
        100.0 / total.max(1) as f64
    };
    let share = (share * 100.0).floor() / 100.0;
    if share.fract() == 0.0 {
        Value::from(share as u64)
    } else {
        Value::from(share)
    }
}
