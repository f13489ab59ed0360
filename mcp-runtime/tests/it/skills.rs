//! The skills extension (SEP-2640) over the wire, in both eras: a message in, the messages out.

use crate::wire;

use mcp_runtime::protocol::{
    SkillEntry, SkillFile, SkillFrontmatter, SkillResources, DIRECTORY_MIME_TYPE, MAX_SKILL_BYTES,
};
use mcp_runtime::server::{ResourceRoute, ServerError, Skill, UriVars};
use mcp_runtime::{Context, Server};
use serde_json::{json, Value};
use wire::{code, Wire};

const PDF: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: MIT\n---\n\nRead `references/FORMS.md`.\n";
const FORMS: &str = "Supporting content.\n";
const NOTES: &str =
    "---\nname: release-notes\ndescription: Write release notes\n---\n\nUse template.md.\n";

fn pdf() -> Skill {
    Skill::new(PDF)
        .file("references/FORMS.md", FORMS)
        .file("references/forms/w9.md", "W-9\n")
        .file("logo.png", vec![0x89u8, b'P', b'N', b'G', 0, 0xff])
}

fn server(page_size: usize) -> Server {
    Server::builder()
        .page_size(page_size)
        .skill(pdf())
        .skill(
            Skill::new(NOTES)
                .under("acme")
                .file("template.md", "## Added\n"),
        )
        .build()
        .expect("valid skills")
}

/// The handshake: `initialize`, then `notifications/initialized`.
async fn initialize(w: &mut Wire) -> Value {
    let r = w
        .call(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
        )
        .await;
    w.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    r
}

/// The bytes a `resources/read` result carries.
fn bytes_of(read: &Value) -> Vec<u8> {
    use base64::Engine;
    let c = &read["result"]["contents"][0];
    match (c["text"].as_str(), c["blob"].as_str()) {
        (Some(t), _) => t.as_bytes().to_vec(),
        (_, Some(b)) => base64::engine::general_purpose::STANDARD.decode(b).unwrap(),
        _ => panic!("no content: {read}"),
    }
}

#[tokio::test]
async fn the_handshake_era_declares_lists_gets_and_reads_skills() {
    let mut s = Wire::connect(&server(100));
    let init = initialize(&mut s).await;
    let caps = &init["result"]["capabilities"];
    assert_eq!(
        caps["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    assert!(
        caps["resources"].is_object(),
        "skills need resources: {caps}"
    );

    let list = s.call("skills/list", json!({})).await;
    let skills: Vec<SkillEntry> = serde_json::from_value(list["result"]["skills"].clone()).unwrap();
    let uris: Vec<&str> = skills.iter().map(|e| e.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "skill://pdf-processing/SKILL.md",
            "skill://acme/release-notes/SKILL.md"
        ]
    );
    assert!(list["result"].get("resultType").is_none(), "{list}");
    assert!(list["result"].get("ttlMs").is_none(), "{list}");

    // The entry's front matter is the file's, and every file of the manifest verifies against the bytes
    // resources/read serves, text and binary alike.
    let entry = &skills[0];
    assert_eq!(entry.frontmatter, SkillFrontmatter::parse(PDF).unwrap());
    assert_eq!(entry.frontmatter.fields["license"], "MIT");
    let SkillResources::Files(files) = &entry.resources else {
        panic!("a manifest")
    };
    assert_eq!(files.len(), 4);
    for f in files {
        let read = s.call("resources/read", json!({"uri": f.uri})).await;
        f.verify(&bytes_of(&read))
            .unwrap_or_else(|e| panic!("{e}: {read}"));
    }

    let got = s
        .call(
            "skills/get",
            json!({"uri": "skill://acme/release-notes/SKILL.md"}),
        )
        .await;
    assert_eq!(
        got["result"]["skill"],
        serde_json::to_value(&skills[1]).unwrap()
    );
    assert!(got["result"].get("nextCursor").is_none());

    // Unknown skills and non-directories are invalid params (the resource-not-found code is for reads).
    let unknown = s
        .call("skills/get", json!({"uri": "skill://nope/SKILL.md"}))
        .await;
    assert_eq!(code(&unknown), -32602);
    assert_eq!(unknown["error"]["data"]["uri"], "skill://nope/SKILL.md");
    let not_dir = s
        .call(
            "resources/directory/read",
            json!({"uri": "skill://pdf-processing/SKILL.md"}),
        )
        .await;
    assert_eq!(code(&not_dir), -32602);
    assert_eq!(code(&s.call("skills/get", json!({})).await), -32602);
    let missing = s
        .call(
            "resources/read",
            json!({"uri": "skill://pdf-processing/nope.md"}),
        )
        .await;
    assert_eq!(code(&missing), -32002);

    // Only SKILL.md is listed among the resources, named and described by its front matter.
    let resources = s.call("resources/list", json!({})).await;
    assert_eq!(
        resources["result"]["resources"][0],
        json!({"uri": "skill://pdf-processing/SKILL.md", "name": "pdf-processing",
               "description": "Extract, fill, and assemble PDF documents", "mimeType": "text/markdown",
               "size": PDF.len()})
    );
    assert_eq!(
        resources["result"]["resources"].as_array().unwrap().len(),
        2
    );
}

#[tokio::test]
async fn directories_list_their_direct_children() {
    let mut s = Wire::connect(&server(100));
    let root = s
        .modern(
            "resources/directory/read",
            json!({"uri": "skill://pdf-processing"}),
        )
        .await;
    assert_eq!(
        root["result"]["resources"],
        json!([
            {"uri": "skill://pdf-processing/SKILL.md", "name": "SKILL.md", "mimeType": "text/markdown", "size": PDF.len()},
            {"uri": "skill://pdf-processing/logo.png", "name": "logo.png", "mimeType": "image/png", "size": 6},
            {"uri": "skill://pdf-processing/references", "name": "references", "mimeType": DIRECTORY_MIME_TYPE},
        ])
    );
    assert_eq!(root["result"]["resultType"], "complete");
    assert!(root["result"]["ttlMs"].is_u64(), "{root}");
    let refs = s
        .modern(
            "resources/directory/read",
            json!({"uri": "skill://pdf-processing/references"}),
        )
        .await;
    let names: Vec<&str> = refs["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["FORMS.md", "forms"]);
}

#[tokio::test]
async fn the_2026_era_stamps_results_and_reports_bad_requests_as_invalid_params() {
    let mut s = Wire::connect(&server(100));
    let discover = s.modern("server/discover", json!({})).await;
    assert_eq!(
        discover["result"]["capabilities"]["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );

    let list = s.modern("skills/list", json!({})).await;
    let r = &list["result"];
    assert_eq!(r["resultType"], "complete");
    assert!(r["ttlMs"].is_u64() && r["cacheScope"].is_string(), "{r}");
    assert!(
        r["_meta"]["io.modelcontextprotocol/serverInfo"].is_object(),
        "{r}"
    );

    let got = s
        .modern(
            "skills/get",
            json!({"uri": "skill://pdf-processing/SKILL.md"}),
        )
        .await;
    let g = &got["result"];
    assert_eq!(g["resultType"], "complete");
    assert!(g["ttlMs"].is_u64() && g["cacheScope"].is_string(), "{g}");
    assert_eq!(g["skill"], r["skills"][0]);

    let unknown = s
        .modern(
            "skills/get",
            json!({"uri": "skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md"}),
        )
        .await;
    assert_eq!(code(&unknown), -32602);
    let not_dir = s
        .modern(
            "resources/directory/read",
            json!({"uri": "skill://pdf-processing/references/FORMS.md"}),
        )
        .await;
    assert_eq!(code(&not_dir), -32602);
    // A bad cursor is invalid params too, and the connection goes on serving.
    assert_eq!(
        code(&s.modern("skills/list", json!({"cursor": "zz"})).await),
        -32602
    );

    let read = s
        .modern(
            "resources/read",
            json!({"uri": "skill://pdf-processing/references/FORMS.md"}),
        )
        .await;
    assert_eq!(read["result"]["resultType"], "complete");
    assert_eq!(bytes_of(&read), FORMS.as_bytes());
    assert_eq!(read["result"]["contents"][0]["mimeType"], "text/markdown");
}

#[tokio::test]
async fn skills_and_directories_are_paginated_without_splitting_an_entry() {
    let mut s = Wire::connect(&server(1));
    let first = s.modern("skills/list", json!({})).await;
    assert_eq!(first["result"]["skills"].as_array().unwrap().len(), 1);
    let cursor = first["result"]["nextCursor"].as_str().unwrap().to_string();
    let second = s.modern("skills/list", json!({"cursor": cursor})).await;
    assert_eq!(
        second["result"]["skills"][0]["uri"],
        "skill://acme/release-notes/SKILL.md"
    );
    assert!(second["result"].get("nextCursor").is_none());

    let mut names = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut p = json!({"uri": "skill://pdf-processing"});
        if let Some(c) = &cursor {
            p["cursor"] = json!(c);
        }
        let page = s.modern("resources/directory/read", p).await;
        names.extend(
            page["result"]["resources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["name"].as_str().unwrap().to_string()),
        );
        match page["result"]["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(names, ["SKILL.md", "logo.png", "references"]);
}

#[tokio::test]
async fn a_server_without_skills_knows_no_skills_methods() {
    let server = Server::builder().build().unwrap();
    assert!(server.capabilities().extensions.is_none());
    let mut s = Wire::connect(&server);
    initialize(&mut s).await;
    assert_eq!(code(&s.call("skills/list", json!({})).await), -32601);
    assert_eq!(
        code(
            &s.modern("resources/directory/read", json!({"uri": "skill://x"}))
                .await
        ),
        -32601
    );
}

#[tokio::test]
async fn a_skill_md_cannot_shadow_a_resource() {
    let taken = ResourceRoute::new(
        mcp_runtime::protocol::Resource {
            uri: "skill://pdf-processing/SKILL.md".into(),
            name: "mine".into(),
            ..Default::default()
        },
        |_: String, _: UriVars, _: Context| async move {
            Ok(mcp_runtime::protocol::ReadResourceResult::default())
        },
    );
    let err = Server::builder()
        .resource(taken)
        .skill(pdf())
        .build()
        .err()
        .unwrap();
    assert_eq!(
        err,
        ServerError::DuplicateResource("skill://pdf-processing/SKILL.md".into())
    );
}

// ---- skills_dir ----

fn write(path: &std::path::Path, text: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_skills_directory_serves_every_skill_below_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(&root.join("pdf-processing/SKILL.md"), PDF.as_bytes());
    write(
        &root.join("pdf-processing/references/FORMS.md"),
        FORMS.as_bytes(),
    );
    write(&root.join("pdf-processing/.cache/ignored"), b"x");
    write(&root.join("acme/release-notes/SKILL.md"), NOTES.as_bytes());
    write(&root.join("acme/README.md"), b"not a skill");
    // A skill inside a skill is listed on its own, and its files belong to the outer one too.
    let inner = "---\nname: fill-forms\ndescription: Fill PDF forms\n---\n";
    write(
        &root.join("pdf-processing/fill-forms/SKILL.md"),
        inner.as_bytes(),
    );
    let server = Server::builder().skills_dir(root).build().unwrap();
    let skills = server.skills();
    let uris: Vec<&str> = skills.iter().map(|e| e.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "skill://acme/release-notes/SKILL.md",
            "skill://pdf-processing/SKILL.md",
            "skill://pdf-processing/fill-forms/SKILL.md"
        ]
    );
    let SkillResources::Files(files) = &skills[1].resources else {
        panic!("a manifest")
    };
    assert_eq!(
        files,
        &[
            SkillFile::of("skill://pdf-processing/SKILL.md", PDF.as_bytes()),
            SkillFile::of(
                "skill://pdf-processing/fill-forms/SKILL.md",
                inner.as_bytes()
            ),
            SkillFile::of(
                "skill://pdf-processing/references/FORMS.md",
                FORMS.as_bytes()
            ),
        ]
    );
    assert_eq!(skills[2].frontmatter.name, "fill-forms");

    // An empty directory still declares the extension, with no skill.
    let empty = tempfile::tempdir().unwrap();
    let server = Server::builder().skills_dir(empty.path()).build().unwrap();
    assert!(server.skills().is_empty());
    assert!(server.capabilities().extensions.is_some());
}

fn refused(root: &std::path::Path) -> String {
    match Server::builder().skills_dir(root).build() {
        Err(ServerError::InvalidSkill(e)) => e.to_string(),
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("built"),
    }
}

#[test]
fn a_bad_skills_directory_is_refused_naming_the_file_and_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let md = root.join("pdf/SKILL.md");
    write(&md, PDF.as_bytes());
    let err = refused(root);
    assert!(err.starts_with(&md.display().to_string()), "{err}");
    assert!(
        err.contains("named `pdf-processing` but its directory `pdf`"),
        "{err}"
    );
    std::fs::remove_dir_all(root.join("pdf")).unwrap();

    let md = root.join("pdf-processing/SKILL.md");
    write(&md, b"---\nname: pdf-processing\n---\n");
    let err = refused(root);
    assert!(
        err.contains("SKILL.md: the front matter has no `description`"),
        "{err}"
    );

    write(&md, PDF.as_bytes());
    std::os::unix::fs::symlink("/etc/hostname", root.join("pdf-processing/link")).unwrap();
    let err = refused(root);
    assert!(
        err.contains("pdf-processing/link: a symbolic link"),
        "{err}"
    );
    std::fs::remove_file(root.join("pdf-processing/link")).unwrap();

    // Refused before more than the limit is read: the file is sparse, its size a lie of the disk.
    let big = std::fs::File::create(root.join("pdf-processing/big.bin")).unwrap();
    big.set_len(MAX_SKILL_BYTES + 1).unwrap();
    let err = refused(root);
    assert!(
        err.starts_with(&root.join("pdf-processing/big.bin").display().to_string()),
        "{err}"
    );
    assert!(err.contains("has more than 16777216 bytes"), "{err}");
    std::fs::remove_file(root.join("pdf-processing/big.bin")).unwrap();

    // SKILL.md and 512 more files: one over the limit.
    for i in 0..512 {
        write(&root.join(format!("pdf-processing/many/{i:03}.txt")), b"x");
    }
    let err = refused(root);
    assert!(
        err.contains("many/511.txt: with this file the skill"),
        "{err}"
    );
    assert!(err.contains("has more than 512 files"), "{err}");
    std::fs::remove_dir_all(root.join("pdf-processing/many")).unwrap();

    write(&root.join("SKILL.md"), PDF.as_bytes());
    assert!(refused(root).contains("a skill needs a directory of its own"));
    std::fs::remove_file(root.join("SKILL.md")).unwrap();

    let err = refused(&root.join("missing"));
    assert!(err.contains("missing"), "{err}");

    Server::builder().skills_dir(root).build().expect("fixed");
}
