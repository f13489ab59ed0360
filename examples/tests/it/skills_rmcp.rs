//! Our skills (SEP-2640) read by a peer we did not write: the rmcp 3.11 client, in both eras. It lists,
//! gets and reads every skill, and checks each entry with rmcp's own validation (URI and name rules,
//! complete manifest, digest format) and each file with rmcp's digest and size verification.

use base64::Engine;
use mcp_runtime::server::Skill;
use mcp_runtime::Server;
use rmcp::model::{
    GetSkillRequestParams, ProtocolVersion, ReadResourceDirectoryRequestParams,
    ReadResourceRequestParams, ResourceContents, SkillResources,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};

const PDF: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nmetadata:\n  author: mcp-runtime\n---\n\nRead `references/FORMS.md`.\n";

fn server() -> Server {
    Server::builder()
        .page_size(1)
        .skill(
            Skill::new(PDF)
                .file("references/FORMS.md", "Forms.\n")
                .file("assets/logo.png", vec![0x89u8, b'P', b'N', b'G', 0, 0xff]),
        )
        .skill(
            Skill::new("---\nname: release-notes\ndescription: Write release notes\n---\n")
                .under("acme")
                .file("template.md", "## Added\n"),
        )
        .build()
        .expect("valid skills")
}

async fn check(lifecycle: ClientLifecycleMode) {
    let (a, b) = tokio::io::duplex(1 << 20);
    let (sr, sw) = tokio::io::split(a);
    let server = server();
    tokio::spawn(async move { server.serve(sr, sw).await });
    let client = ().serve_with_lifecycle(tokio::io::split(b), lifecycle).await.expect("connected");
    let peer = client.peer();
    let info = peer.peer_info().expect("server info");
    assert!(info.capabilities.supports_skills());
    assert!(info.capabilities.supports_directory_read());

    // Two pages of one skill each; rmcp checks every entry against the spec's rules.
    let skills = peer.list_all_skills().await.expect("skills/list");
    let uris: Vec<&str> = skills.iter().map(|s| s.uri.as_str()).collect();
    assert_eq!(
        uris,
        [
            "skill://pdf-processing/SKILL.md",
            "skill://acme/release-notes/SKILL.md"
        ]
    );
    rmcp::model::validate_skills(&skills).expect("rmcp finds the listing valid");

    for skill in &skills {
        let got = peer
            .get_skill(GetSkillRequestParams::new(&skill.uri))
            .await
            .expect("skills/get");
        assert_eq!(&got.skill, skill);
        let SkillResources::Files(files) = &skill.resources else {
            panic!("a manifest")
        };
        for file in files {
            let read = peer
                .read_resource(ReadResourceRequestParams::new(&file.uri))
                .await
                .expect("resources/read");
            let bytes = match &read.contents[0] {
                ResourceContents::TextResourceContents { text, .. } => text.as_bytes().to_vec(),
                ResourceContents::BlobResourceContents { blob, .. } => {
                    base64::engine::general_purpose::STANDARD
                        .decode(blob)
                        .unwrap()
                }
                other => panic!("unexpected contents {other:?}"),
            };
            file.verify(&bytes).expect("rmcp verifies the bytes");
        }
    }

    let dir = peer
        .read_resource_directory(ReadResourceDirectoryRequestParams::new(
            "skill://pdf-processing",
        ))
        .await
        .expect("resources/directory/read");
    assert_eq!(dir.resources[0].uri, "skill://pdf-processing/SKILL.md");
    assert!(dir.next_cursor.is_some(), "one child per page");

    let unknown = peer
        .get_skill(GetSkillRequestParams::new("skill://nope/SKILL.md"))
        .await
        .unwrap_err();
    assert!(unknown.to_string().contains("-32602"), "{unknown}");
    client.cancel().await.ok();
}

#[tokio::test]
async fn rmcp_reads_our_skills_in_the_handshake_era() {
    check(ClientLifecycleMode::Initialize).await;
}

#[tokio::test]
async fn rmcp_reads_our_skills_in_2026() {
    check(ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    })
    .await;
}
