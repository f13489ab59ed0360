//! A table cell of several paragraphs of text alone, as documentation tables hold them: `a<p>b` in a pipe
//! table, where the whole table was an HTML table (a pipe cell holds one line).

use mcp_text::markdown::{self, WriteOptions};
use mcp_text::{adf, storage};
use serde_json::json;

use crate::storage_read::read;

fn cell(kind: &str, paragraphs: &[&str]) -> serde_json::Value {
    let content: Vec<_> = paragraphs
        .iter()
        .map(|t| match *t {
            "" => json!({"type":"paragraph"}),
            "\n" => json!({"type":"paragraph","content":[{"type":"hardBreak"}]}),
            t => json!({"type":"paragraph","content":[{"type":"text","text":t}]}),
        })
        .collect();
    json!({"type":kind,"attrs":{},"content":content})
}

#[test]
fn a_cell_of_paragraphs_stays_a_pipe_table_and_comes_back() {
    let doc = json!({"type":"doc","version":1,"content":[{"type":"table",
        "attrs":{"isNumberColumnEnabled":false,"layout":"default"},"content":[
        {"type":"tableRow","content":[cell("tableHeader", &["Tool"]), cell("tableHeader", &["Notes", "two"])]},
        {"type":"tableRow","content":[cell("tableCell", &["a", "b", "c"]), cell("tableCell", &["x", "\n"])]}]}]});
    let node = adf::from_value(doc.clone()).unwrap();
    let md = markdown::write(&node, &WriteOptions::default());
    assert_eq!(
        md,
        "| Tool | Notes<p>two |\n| --- | --- |\n| a<p>b<p>c | x<p><br> |\n",
    );
    let back = markdown::read(&md);
    assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    assert_eq!(adf::to_value(&back.doc), doc);
    if let Some(schema) = crate::schema::schema() {
        schema.check(&adf::to_value(&back.doc)).unwrap();
    }
    // An empty paragraph among them has no such form: the table stays HTML.
    let doc = json!({"type":"doc","version":1,"content":[{"type":"table",
        "attrs":{"isNumberColumnEnabled":false,"layout":"default"},"content":[
        {"type":"tableRow","content":[cell("tableHeader", &["a", ""])]}]}]});
    let md = markdown::write(&adf::from_value(doc).unwrap(), &WriteOptions::default());
    assert!(md.contains("<table>"), "{md}");
}

#[test]
fn a_data_center_cell_of_paragraphs_reads_as_them_and_comes_back_the_same() {
    let xml = concat!(
        r#"<table class="wrapped"><colgroup><col /><col /></colgroup><tbody>"#,
        "<tr><th>Enterprise Architect</th><th>MagicDraw</th></tr>",
        "<tr><td><p>Part [uml:Class]</p><p>Part [uml:Property]</p></td><td>Part [uml:Property]</td></tr>",
        "</tbody></table>"
    );
    let md = markdown::write(&read(xml), &WriteOptions::default());
    assert!(
        md.contains("| Part \\[uml:Class]<p>Part \\[uml:Property] | Part \\[uml:Property] |"),
        "{md}"
    );
    assert!(!md.contains("<table>"), "{md}");
    let back = markdown::read(&md);
    assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    assert_eq!(storage::write(&back.doc), xml);
}

#[test]
fn paragraphs_a_model_writes_in_a_cell_are_paragraphs() {
    // `a<p>b` and `<p>a</p><p>b</p>` are two paragraphs; `a<br><br>b` stays one with two breaks; `<p>`
    // outside a table is the text the model wrote, as before.
    let md = "| h |\n| --- |\n| a<p>b |\n| <p>a</p><p>b</p> |\n| a<br><br>b |\n\nx <p> y\n";
    let doc = adf::to_value(&markdown::read(md).doc);
    let cells: Vec<usize> = doc["content"][0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row["content"][0]["content"].as_array().unwrap().len())
        .collect();
    assert_eq!(cells, [1, 2, 2, 1]);
    let row = &doc["content"][0]["content"][2]["content"][0]["content"];
    assert_eq!(row[0]["content"][0]["text"], "a");
    assert_eq!(row[1]["content"][0]["text"], "b");
    assert_eq!(doc["content"][1]["content"][0]["text"], "x <p> y");
}
