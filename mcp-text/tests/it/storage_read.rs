//! Confluence storage format → model → storage: what each element becomes, and that it comes back.

use mcp_text::model::{MarkType, Node, NodeType};
use mcp_text::storage;
use quick_xml::events::Event;
use quick_xml::Reader;

/// A real-shaped Confluence Cloud page: layouts, panels, a mention, a page link, an attachment image, a
/// table of contents, a Jira macro, a status, a task list, a code macro, an expand, an emoticon, a date.
pub const PAGE: &str = r#"<ac:layout><ac:layout-section ac:type="two_equal" ac:breakout-mode="default"><ac:layout-cell><p><ac:structured-macro ac:name="toc" ac:schema-version="1" data-layout="default" ac:local-id="a1b2" ac:macro-id="0b7c-11"><ac:parameter ac:name="maxLevel">3</ac:parameter><ac:parameter ac:name="minLevel">1</ac:parameter></ac:structured-macro></p></ac:layout-cell><ac:layout-cell><ac:structured-macro ac:name="info" ac:schema-version="1" ac:macro-id="9f1e"><ac:rich-text-body><p>Owned by <ac:link><ri:user ri:account-id="557058:f0c3e9a2-1234" /></ac:link> &mdash; ask before editing.</p></ac:rich-text-body></ac:structured-macro></ac:layout-cell></ac:layout-section><ac:layout-section ac:type="single" ac:breakout-mode="default"><ac:layout-cell><h1>Release 4.2 &amp; rollout</h1><p>Status: <ac:structured-macro ac:name="status" ac:schema-version="1" ac:macro-id="st-1"><ac:parameter ac:name="colour">Green</ac:parameter><ac:parameter ac:name="title">ON TRACK</ac:parameter></ac:structured-macro> since <time datetime="2024-01-15" /> <ac:emoticon ac:name="smile" ac:emoji-shortname=":smile:" ac:emoji-id="1f604" ac:emoji-fallback="&#128516;" /></p><p>See <ac:link><ri:page ri:space-key="ENG" ri:content-title="Release checklist" /><ac:plain-text-link-body><![CDATA[the checklist]]></ac:plain-text-link-body></ac:link> and <a href="https://example.com/a?b=1&amp;c=2">the dashboard</a>. Tracked in <ac:structured-macro ac:name="jira" ac:schema-version="1" ac:macro-id="j-77"><ac:parameter ac:name="key">ENG-1234</ac:parameter><ac:parameter ac:name="server">System JIRA</ac:parameter><ac:parameter ac:name="serverId">1d2e-3f</ac:parameter></ac:structured-macro>.</p><ac:image ac:align="center" ac:layout="center" ac:alt="Architecture" ac:width="640"><ri:attachment ri:filename="architecture diagram.png" /></ac:image><h2>Tasks</h2><ac:task-list><ac:task><ac:task-id>1</ac:task-id><ac:task-status>complete</ac:task-status><ac:task-body>Freeze the <strong>branch</strong></ac:task-body></ac:task><ac:task><ac:task-id>2</ac:task-id><ac:task-status>incomplete</ac:task-status><ac:task-body>Tell <ac:link><ri:user ri:account-id="5b10ac8d82e05b22cc7d4ef5" /></ac:link> by <time datetime="2024-02-01" /></ac:task-body></ac:task></ac:task-list><h2>Rollout</h2><ol start="3"><li><p>Canary at 5% of <code>*.py</code> jobs</p><ul><li><p>2 * 3 * 4 regions</p></li></ul></li><li><p>Everyone</p></li></ol><ac:structured-macro ac:name="code" ac:schema-version="1" ac:macro-id="c-9"><ac:parameter ac:name="language">bash</ac:parameter><ac:parameter ac:name="title">deploy.sh</ac:parameter><ac:plain-text-body><![CDATA[if [ "$a" < 3 ] && true; then
  echo "]]]]><![CDATA[>" | tee out
fi]]></ac:plain-text-body></ac:structured-macro><ac:structured-macro ac:name="expand" ac:schema-version="1" ac:macro-id="e-1"><ac:parameter ac:name="title">Details | history</ac:parameter><ac:rich-text-body><table data-layout="default" ac:local-id="t-1"><colgroup><col style="width: 200.0px;" /><col style="width: 400.0px;" /></colgroup><tbody><tr><th><p>Step</p></th><th><p>Owner | team</p></th></tr><tr><td colspan="2"><p>Merged <span style="color: rgb(255,86,48);">late</span><br />again</p></td></tr></tbody></table></ac:rich-text-body></ac:structured-macro><ac:structured-macro ac:name="warning" ac:schema-version="1" ac:macro-id="w-1"><ac:parameter ac:name="title">Careful</ac:parameter><ac:rich-text-body><p>Do <u>not</u> skip <ac:inline-comment-marker ac:ref="c0ffee">the soak</ac:inline-comment-marker>.</p></ac:rich-text-body></ac:structured-macro><p>Contact: <ac:structured-macro ac:name="profile" ac:schema-version="1" ac:macro-id="p-1"><ac:parameter ac:name="user"><ri:user ri:account-id="557058:f0c3e9a2-1234" /></ac:parameter></ac:structured-macro></p></ac:layout-cell></ac:layout-section></ac:layout>"#;

/// Storage XML in a canonical form for comparison: attributes sorted, references resolved and text
/// re-escaped (CDATA is text), `<x></x>` as `<x/>`, whitespace-only text between two block tags dropped.
pub fn normalise(xml: &str) -> String {
    enum Tok {
        Open(String, Vec<(String, String)>),
        Close(String),
        Text(String),
        Raw(String),
    }
    let mut toks: Vec<Tok> = Vec::new();
    let mut reader = Reader::from_str(xml);
    reader.config_mut().allow_dangling_amp = true;
    let push_text = |toks: &mut Vec<Tok>, t: &str| match toks.last_mut() {
        Some(Tok::Text(s)) => s.push_str(t),
        _ => toks.push(Tok::Text(t.to_string())),
    };
    // A smart link's block or embed card (`<a href data-card-appearance="block">`, an embed card with a
    // `data-layout` next) is a block, not an `a`: named `a:card` here.
    let name_of = |e: &quick_xml::events::BytesStart| {
        let name = e.name().as_ref().to_string();
        match attrs_in_order(e).as_slice() {
            [(h, _), (c, v), rest @ ..]
                if name == "a"
                    && h == "href"
                    && c == "data-card-appearance"
                    && (v == "block"
                        || v == "embed"
                            && rest.first().is_some_and(|(l, _)| l == "data-layout")) =>
            {
                "a:card".to_string()
            }
            _ => name,
        }
    };
    let mut open: Vec<String> = Vec::new();
    loop {
        match reader.read_event().expect("well-formed XML in a test") {
            Event::Start(e) => {
                let name = name_of(&e);
                open.push(name.clone());
                toks.push(Tok::Open(name, attrs(&e)));
            }
            Event::Empty(e) => {
                let name = e.name().as_ref().to_string();
                toks.push(Tok::Open(name.clone(), attrs(&e)));
                toks.push(Tok::Close(name));
            }
            Event::End(e) => {
                let name = open.pop().unwrap_or_else(|| e.name().as_ref().to_string());
                toks.push(Tok::Close(name));
            }
            Event::Text(t) => push_text(&mut toks, &t),
            Event::CData(t) => push_text(&mut toks, &t),
            Event::GeneralRef(r) => {
                let text = match r.resolve_char_ref().expect("valid reference") {
                    Some(c) => c.to_string(),
                    None => quick_xml::escape::resolve_html5_entity(&r)
                        .expect("known entity")
                        .to_string(),
                };
                push_text(&mut toks, &text)
            }
            Event::Eof => break,
            other => toks.push(Tok::Raw(format!("{other:?}"))),
        }
    }
    // Mirrors the reader: whitespace-only text is kept inside inline content (a paragraph, a mark, a
    // task's body) and dropped inside element-only parents (`ul`, `tr`, a macro) and, in block context,
    // between two things that are not inline.
    const INLINE: &[&str] = &[
        "strong",
        "b",
        "em",
        "i",
        "u",
        "s",
        "del",
        "strike",
        "sub",
        "sup",
        "code",
        "a",
        "span",
        "br",
        "ac:link",
        "ac:emoticon",
        "time",
        "ac:inline-comment-marker",
        "ac:placeholder",
        "font",
        "small",
        "big",
        "ins",
        "mark",
        "kbd",
        "abbr",
        "cite",
        "q",
        "var",
        "samp",
        "img",
    ];
    const INLINE_PARENTS: &[&str] = &[
        "p",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "pre",
        "ac:task-body",
        "ac:link-body",
        "ac:caption",
        "ac:plain-text-body",
        "ac:plain-text-link-body",
        "ac:parameter",
        "ac:task-id",
        "ac:task-status",
    ];
    const ELEMENT_PARENTS: &[&str] = &[
        "ul",
        "ol",
        "table",
        "tbody",
        "thead",
        "tfoot",
        "tr",
        "colgroup",
        "ac:structured-macro",
        "ac:link",
        "ac:image",
        "ac:task-list",
        "ac:task",
        "ac:layout",
        "ac:layout-section",
        "hr",
    ];
    let inline_tok = |t: Option<&Tok>| match t {
        Some(Tok::Open(n, _)) | Some(Tok::Close(n)) => INLINE.contains(&n.as_str()),
        Some(Tok::Text(_)) => true,
        _ => false,
    };
    let mut keep = vec![true; toks.len()];
    let mut parents: Vec<&str> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::Open(n, _) => parents.push(n),
            Tok::Close(_) => {
                parents.pop();
            }
            Tok::Text(s) if s.trim().is_empty() => {
                let parent = parents.last().copied().unwrap_or("");
                keep[i] = if INLINE_PARENTS.contains(&parent) || INLINE.contains(&parent) {
                    true
                } else if ELEMENT_PARENTS.contains(&parent) {
                    false
                } else {
                    let prev = i.checked_sub(1).and_then(|j| toks.get(j));
                    let prev_inline = match prev {
                        Some(Tok::Open(..)) => false,
                        other => inline_tok(other),
                    };
                    prev_inline || inline_tok(toks.get(i + 1))
                };
            }
            _ => {}
        }
    }
    let toks: Vec<Tok> = toks
        .into_iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(t, _)| t)
        .collect();
    let mut out = String::new();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Text(t) if t.is_empty() => {}
            Tok::Text(t) => out.push_str(
                &t.replace('&', "&amp;")
                    .replace('<', "&lt;")
                    .replace('>', "&gt;"),
            ),
            Tok::Open(name, attrs) => {
                out.push('<');
                out.push_str(name);
                for (k, v) in attrs {
                    out.push_str(&format!(
                        " {k}=\"{}\"",
                        v.replace('&', "&amp;")
                            .replace('"', "&quot;")
                            .replace('<', "&lt;")
                    ));
                }
                let empty_next = match toks.get(i + 1) {
                    Some(Tok::Close(_)) => true,
                    Some(Tok::Text(t)) if t.is_empty() => {
                        matches!(toks.get(i + 2), Some(Tok::Close(_)))
                    }
                    _ => false,
                };
                if empty_next {
                    out.push_str("/>");
                    i += if matches!(toks.get(i + 1), Some(Tok::Text(_))) {
                        2
                    } else {
                        1
                    };
                } else {
                    out.push('>');
                }
            }
            Tok::Close(name) => out.push_str(&format!("</{name}>")),
            Tok::Raw(r) => out.push_str(r),
        }
        i += 1;
    }
    out
}

fn attrs(e: &quick_xml::events::BytesStart) -> Vec<(String, String)> {
    let mut list = attrs_in_order(e);
    list.sort();
    list
}

fn attrs_in_order(e: &quick_xml::events::BytesStart) -> Vec<(String, String)> {
    let list: Vec<(String, String)> = e
        .attributes()
        .map(|a| {
            let a = a.expect("valid attribute");
            let v = quick_xml::escape::unescape_with(&a.value, |n| {
                quick_xml::escape::resolve_html5_entity(n)
            })
            .expect("known entities")
            .into_owned();
            (a.key.as_ref().to_string(), v)
        })
        .collect();
    list
}

pub fn read(xml: &str) -> Node {
    storage::read(xml)
        .unwrap_or_else(|e| panic!("{e}\nin {xml}"))
        .doc
}

/// `write(read(x))` is `x` after normalisation, and reading the written text gives the same model.
pub fn assert_roundtrip(xml: &str) -> Node {
    let doc = read(xml);
    let written = storage::write(&doc);
    assert_eq!(
        normalise(&written),
        normalise(xml),
        "storage → model → storage changed it\nmodel: {}",
        mcp_text::adf::write(&doc)
    );
    let again = read(&written);
    assert_eq!(again, doc, "the written storage reads as another model");
    doc
}

fn find<'a>(node: &'a Node, kind: &NodeType, out: &mut Vec<&'a Node>) {
    if node.kind == *kind {
        out.push(node);
    }
    for c in node.children() {
        find(c, kind, out);
    }
}

pub fn all(doc: &Node, kind: NodeType) -> Vec<&Node> {
    let mut out = Vec::new();
    find(doc, &kind, &mut out);
    out
}

#[test]
fn paragraph_marks_and_entities() {
    let doc = assert_roundtrip(
        "<p>Hello <strong>bold <em>both</em></strong> &amp; <code>x&lt;y</code>&nbsp;&mdash;&hellip;&#65;&#x42;<b>b</b><i>i</i><s>s</s><del>d</del><sub>2</sub><sup>3</sup><u>u</u></p>",
    );
    let p = &doc.children()[0];
    assert_eq!(p.kind, NodeType::Paragraph);
    assert!(p.attrs.is_none(), "a plain paragraph carries nothing");
    let texts: Vec<_> = p
        .children()
        .iter()
        .map(|n| n.text.as_deref().unwrap())
        .collect();
    assert_eq!(
        texts,
        [
            "Hello ",
            "bold ",
            "both",
            " & ",
            "x<y",
            "\u{a0}\u{2014}\u{2026}AB",
            "b",
            "i",
            "s",
            "d",
            "2",
            "3",
            "u"
        ]
    );
    let marks = |i: usize| {
        p.children()[i]
            .mark_list()
            .iter()
            .map(|m| m.kind.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(marks(2), [MarkType::Strong, MarkType::Em]);
    assert_eq!(marks(4), [MarkType::Code]);
    assert_eq!(marks(6), [MarkType::Strong]);
    assert_eq!(marks(9), [MarkType::Strike]);
    assert_eq!(
        p.children()[10].mark_list()[0].attr_str("type"),
        Some("sub")
    );
}

#[test]
fn blocks_lists_and_tables() {
    let doc = assert_roundtrip(
        "<h1>T</h1><h6>six</h6><ul><li><p>a</p><ol start=\"3\"><li>nested <strong>bare</strong></li></ol></li></ul><blockquote><p>q</p></blockquote><hr /><p>a<br />b</p><pre>raw <b>pre</b></pre><table><tbody><tr><th colspan=\"2\" rowspan=\"1\"><p>h</p></th></tr><tr><td>bare cell</td><td /></tr></tbody></table>",
    );
    assert_eq!(doc.children()[1].attr("level").unwrap(), 6);
    let ol = &all(&doc, NodeType::OrderedList)[0];
    assert_eq!(ol.attr("order").unwrap(), 3);
    let implicit = &ol.children()[0].children()[0];
    assert_eq!(
        implicit.kind,
        NodeType::Paragraph,
        "inline content of an li is a paragraph"
    );
    let th = &all(&doc, NodeType::TableHeader)[0];
    assert_eq!(th.attr("colspan").unwrap(), 2);
    assert_eq!(all(&doc, NodeType::Rule).len(), 1);
    assert_eq!(all(&doc, NodeType::HardBreak).len(), 1);
    assert_eq!(all(&doc, NodeType::CodeBlock).len(), 1);
}

#[test]
fn macros_map_to_adf_nodes() {
    let doc = assert_roundtrip(PAGE);
    let code = &all(&doc, NodeType::CodeBlock)[0];
    assert_eq!(code.attr_str("language"), Some("bash"));
    assert_eq!(
        code.children()[0].text.as_deref(),
        Some("if [ \"$a\" < 3 ] && true; then\n  echo \"]]>\" | tee out\nfi")
    );
    let panels = all(&doc, NodeType::Panel);
    assert_eq!(
        panels
            .iter()
            .map(|p| p.attr_str("panelType").unwrap())
            .collect::<Vec<_>>(),
        ["info", "warning"]
    );
    assert!(
        serde_json::to_string(panels[1].attrs.as_ref().unwrap())
            .unwrap()
            .contains("Careful"),
        "title kept"
    );
    let expand = &all(&doc, NodeType::Expand)[0];
    assert_eq!(expand.attr_str("title"), Some("Details | history"));
    let status = &all(&doc, NodeType::Status)[0];
    assert_eq!(
        (status.attr_str("text"), status.attr_str("color")),
        (Some("ON TRACK"), Some("green"))
    );
    let toc = &all(&doc, NodeType::InlineExtension)[..];
    let keys: Vec<_> = toc
        .iter()
        .map(|n| n.attr_str("extensionKey").unwrap())
        .collect();
    assert_eq!(keys, ["toc", "jira", "profile"]);
    let jira = toc[1].attr("parameters").unwrap();
    assert_eq!(jira["macroParams"]["key"]["value"], "ENG-1234");
    assert_eq!(jira["macroMetadata"]["macroId"]["value"], "j-77");
    assert_eq!(toc[0].attr_str("localId"), Some("a1b2"));
}

#[test]
fn links_mentions_images_tasks_layouts() {
    let doc = assert_roundtrip(PAGE);
    let mentions = all(&doc, NodeType::Mention);
    assert_eq!(mentions[0].attr_str("id"), Some("557058:f0c3e9a2-1234"));
    let texts = all(&doc, NodeType::Text);
    let page_link = texts
        .iter()
        .find(|t| t.text.as_deref() == Some("the checklist"))
        .unwrap();
    let link = &page_link.mark_list()[0];
    assert_eq!(link.kind, MarkType::Link);
    assert_eq!(link.attr_str("href"), Some("page:ENG:Release checklist"));
    let media = &all(&doc, NodeType::Media)[0];
    assert_eq!(media.attr_str("id"), Some("architecture diagram.png"));
    assert_eq!(media.attr_str("alt"), Some("Architecture"));
    assert_eq!(media.attr("width").unwrap(), 640);
    let tasks = all(&doc, NodeType::TaskItem);
    assert_eq!(
        tasks
            .iter()
            .map(|t| t.attr_str("state").unwrap())
            .collect::<Vec<_>>(),
        ["DONE", "TODO"]
    );
    assert_eq!(tasks[0].attr_str("localId"), Some("1"));
    assert_eq!(all(&doc, NodeType::LayoutSection).len(), 2);
    assert_eq!(all(&doc, NodeType::LayoutColumn).len(), 3);
    let emoji = &all(&doc, NodeType::Emoji)[0];
    assert_eq!(emoji.attr_str("shortName"), Some(":smile:"));
    let dates = all(&doc, NodeType::Date);
    assert_eq!(dates[0].attr_str("timestamp"), Some("1705276800000"));
    let annotated = texts
        .iter()
        .find(|t| t.text.as_deref() == Some("the soak"))
        .unwrap();
    assert_eq!(annotated.mark_list()[0].kind, MarkType::Annotation);
    assert_eq!(annotated.mark_list()[0].attr_str("id"), Some("c0ffee"));
    let late = texts
        .iter()
        .find(|t| t.text.as_deref() == Some("late"))
        .unwrap();
    assert_eq!(late.mark_list()[0].attr_str("color"), Some("#ff5630"));
}

#[test]
fn other_links_and_images() {
    assert_roundtrip(concat!(
        "<p><ac:link><ri:page ri:content-title=\"No body\" /></ac:link>",
        "<ac:link ac:anchor=\"sec\"><ac:link-body>to <em>anchor</em></ac:link-body></ac:link>",
        "<ac:link><ri:attachment ri:filename=\"a.pdf\"><ri:page ri:content-title=\"Other\" /></ri:attachment></ac:link>",
        "<ac:link><ri:user ri:userkey=\"ff80\" /></ac:link>",
        "<ac:link><ri:page ri:content-title=\"Img\" /><ac:link-body><ac:image><ri:url ri:value=\"https://x/y.png\" /></ac:image></ac:link-body></ac:link>",
        "</p><ac:image ac:height=\"20px\"><ri:url ri:value=\"https://x/z.png\" /><ac:caption><p>cap</p></ac:caption></ac:image>",
        "<ac:image><ri:attachment ri:filename=\"f.png\" ri:version-at-save=\"2\" /></ac:image>",
    ));
}

#[test]
fn unknown_elements_and_macros_are_kept() {
    let doc = assert_roundtrip(concat!(
        "<div class=\"x\"><p>in a div</p>bare text</div>",
        "<p><span class=\"y\">span</span><foo:bar baz=\"1\" /><a name=\"anchor\"></a></p>",
        "<ac:structured-macro ac:name=\"mystery\" ac:schema-version=\"2\" data-foo=\"1\"><ac:parameter ac:name=\"b\">2</ac:parameter><ac:parameter ac:name=\"a\">1</ac:parameter><ac:parameter ac:name=\"a\">again</ac:parameter><ac:rich-text-body><p>body</p></ac:rich-text-body><ac:unknown-child>x</ac:unknown-child></ac:structured-macro>",
        "<ac:structured-macro ac:name=\"noformat\"><ac:plain-text-body><![CDATA[<plain>]]></ac:plain-text-body></ac:structured-macro>",
        "<!-- a comment --><ac:adf-extension><ac:adf-node type=\"decision-list\"><ac:adf-attribute key=\"local-id\">d1</ac:adf-attribute></ac:adf-node></ac:adf-extension>",
    ));
    let ext = &all(&doc, NodeType::BodiedExtension)[0];
    assert_eq!(ext.attr_str("extensionKey"), Some("mystery"));
    assert_eq!(
        ext.attr("parameters").unwrap()["macroParams"]["a"]["value"],
        "1"
    );
    assert!(!all(&doc, NodeType::Other("storage:element".into())).is_empty());
}

#[test]
fn whitespace_between_blocks_is_formatting() {
    let xml = "<p>a</p>\n  <ul>\n <li><p>b</p></li>\n</ul>\n";
    let doc = read(xml);
    assert_eq!(doc.children().len(), 2);
    assert_eq!(storage::write(&doc), "<p>a</p><ul><li><p>b</p></li></ul>");
    // ... but whitespace inside text is kept, leading and trailing too.
    assert_roundtrip("<p>  two  spaces </p><li> <strong>x</strong> </li>");
}

#[test]
fn status_colours_and_panels_of_every_kind() {
    let doc = assert_roundtrip(concat!(
        "<p><ac:structured-macro ac:name=\"status\"><ac:parameter ac:name=\"colour\">Grey</ac:parameter><ac:parameter ac:name=\"title\">TODO</ac:parameter></ac:structured-macro>",
        "<ac:structured-macro ac:name=\"status\"><ac:parameter ac:name=\"colour\">RED</ac:parameter><ac:parameter ac:name=\"title\">X</ac:parameter></ac:structured-macro></p>",
        "<ac:structured-macro ac:name=\"note\"><ac:rich-text-body><p>n</p></ac:rich-text-body></ac:structured-macro>",
        "<ac:structured-macro ac:name=\"tip\"><ac:rich-text-body><p>t</p></ac:rich-text-body></ac:structured-macro>",
        "<ac:structured-macro ac:name=\"panel\"><ac:parameter ac:name=\"bgColor\">#eee</ac:parameter><ac:parameter ac:name=\"title\">T</ac:parameter><ac:rich-text-body><p>p</p></ac:rich-text-body></ac:structured-macro>",
    ));
    let colors: Vec<_> = all(&doc, NodeType::Status)
        .iter()
        .map(|s| s.attr_str("color").unwrap())
        .collect();
    assert_eq!(colors, ["neutral", "red"]);
    let types: Vec<_> = all(&doc, NodeType::Panel)
        .iter()
        .map(|s| s.attr_str("panelType").unwrap())
        .collect();
    assert_eq!(types, ["note", "tip", "custom"]);
}

#[test]
fn adf_panels_without_a_macro_of_their_own_come_back() {
    // An ADF `error` panel (from Markdown or ADF) is written as a panel macro that says its type.
    let mut panel = Node::with_content(
        NodeType::Panel,
        vec![Node::with_content(
            NodeType::Paragraph,
            vec![Node::text("e")],
        )],
    );
    panel.set_attr("panelType", "error");
    let doc = Node::doc(vec![panel]);
    let xml = storage::write(&doc);
    assert_eq!(read(&xml), doc);
}

#[test]
fn edits_in_the_model_win_over_kept_storage() {
    // The page link's href is derived from the ri:page; change it and the writer writes an <a>.
    let mut doc = read("<p><ac:link><ri:page ri:content-title=\"P\" /></ac:link></p>");
    let text = &mut doc.content.as_mut().unwrap()[0].content.as_mut().unwrap()[0];
    text.marks.as_mut().unwrap()[0]
        .attrs
        .as_mut()
        .unwrap()
        .insert("href", "https://example.com".into());
    let xml = storage::write(&doc);
    assert!(
        xml.starts_with("<p><a href=\"https://example.com\""),
        "{xml}"
    );
    // A code block's language edited in the model is written, the stored title kept.
    let mut doc = read("<ac:structured-macro ac:name=\"code\"><ac:parameter ac:name=\"language\">js</ac:parameter><ac:parameter ac:name=\"title\">t</ac:parameter><ac:plain-text-body><![CDATA[x]]></ac:plain-text-body></ac:structured-macro>");
    doc.content.as_mut().unwrap()[0].set_attr("language", "rust");
    let xml = storage::write(&doc);
    assert!(xml.contains(">rust<") && xml.contains(">t<"), "{xml}");
}
