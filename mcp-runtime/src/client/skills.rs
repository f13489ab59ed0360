//! The skills extension from the host's side (SEP-2640, `io.modelcontextprotocol/skills`): list what a
//! server offers, then load a skill only when it is needed. Listing reads no file (no prefetch); loading
//! reads the skill's `SKILL.md` and uses it only if its size and digest match the entry's manifest and its
//! front matter matches the entry's field by field; a supporting file is read on demand, verified the
//! same way. Content that fails is not used: the call fails with [`Error::Verification`].

use super::{call, CallOptions, Client};
use crate::error::Error;
use crate::protocol::*;
use base64::Engine;

/// A skill whose `SKILL.md` was read and verified.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSkill {
    /// The skill's entry from `skills/list` or `skills/get`: front matter and manifest.
    pub entry: SkillEntry,
    /// The verified `SKILL.md`, front matter included.
    pub skill_md: String,
}

/// The bytes of a single-file `resources/read` result (text as UTF-8, a blob decoded).
fn contents_bytes(uri: &str, read: &ReadResourceResult) -> Result<Vec<u8>, Error> {
    let [item] = read.contents.as_slice() else {
        return Err(Error::Verification(format!(
            "{uri}: expected one content item, got {}",
            read.contents.len()
        )));
    };
    let v = serde_json::to_value(item).map_err(|e| Error::Protocol(e.to_string()))?;
    if let Some(t) = v.get("text").and_then(|t| t.as_str()) {
        return Ok(t.as_bytes().to_vec());
    }
    if let Some(b) = v.get("blob").and_then(|b| b.as_str()) {
        return base64::engine::general_purpose::STANDARD
            .decode(b)
            .map_err(|e| Error::Verification(format!("{uri}: the blob is not base64: {e}")));
    }
    Err(Error::Verification(format!("{uri}: neither text nor blob")))
}

impl Client {
    fn skills_declared(&self) -> Result<(), Error> {
        match SkillsCapability::of(&self.init.capabilities) {
            Some(_) => Ok(()),
            None => Err(Error::CapabilityMissing(
                "extensions.io.modelcontextprotocol/skills",
            )),
        }
    }

    /// One page of `skills/list`. Nothing is read from the skills themselves.
    pub async fn list_skills(&self, cursor: Option<String>) -> Result<ListSkillsResult, Error> {
        self.skills_declared()?;
        self.request(
            methods::SKILLS_LIST,
            &PaginatedParams { cursor, meta: None },
        )
        .await
    }

    /// Every skill, following `nextCursor` to the end (bounded: a cursor seen twice ends with an error).
    pub async fn list_all_skills(&self) -> Result<Vec<SkillEntry>, Error> {
        let mut all = Vec::new();
        let mut cursor = None;
        let mut seen = std::collections::BTreeSet::new();
        loop {
            let page = self.list_skills(cursor).await?;
            all.extend(page.skills);
            match page.next_cursor {
                Some(c) if !seen.insert(c.clone()) => {
                    return Err(Error::Protocol(format!(
                        "skills/list sent the cursor {c:?} twice"
                    )))
                }
                Some(c) => cursor = Some(c),
                None => return Ok(all),
            }
        }
    }

    /// `skills/get`: the entry of one skill, by the URI of its `SKILL.md`.
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry, Error> {
        self.skills_declared()?;
        let r: GetSkillResult = self
            .request(
                methods::SKILLS_GET,
                &GetSkillParams {
                    uri: uri.into(),
                    meta: None,
                },
            )
            .await?;
        Ok(r.skill)
    }

    /// Reads a resource's bytes, verified against `file` when the manifest lists one.
    async fn read_verified(&self, uri: &str, file: Option<&SkillFile>) -> Result<Vec<u8>, Error> {
        let answer = self
            .call(
                methods::RESOURCES_READ,
                &ResourceUriParams {
                    uri: uri.into(),
                    meta: None,
                },
                &CallOptions::default(),
            )
            .await?;
        let read: ReadResourceResult = call::decode(methods::RESOURCES_READ, &answer.raw)?;
        let bytes = contents_bytes(uri, &read)?;
        if let Some(f) = file {
            f.verify(&bytes)
                .map_err(|e| Error::Verification(e.to_string()))?;
        }
        Ok(bytes)
    }

    /// Loads a skill: reads its `SKILL.md`, checks its size and digest against the manifest and its front
    /// matter against the entry's, and returns it only if everything matches. Needs the `skills` feature
    /// (the front matter is YAML).
    #[cfg(not(feature = "skills"))]
    pub async fn load_skill(
        &self,
        entry: &(impl std::borrow::Borrow<SkillEntry> + crate::server::SkillsFeature),
    ) -> Result<LoadedSkill, Error> {
        match entry.unavailable() {}
    }

    /// Loads a skill: reads its `SKILL.md`, checks its size and digest against the manifest and its front
    /// matter against the entry's, and returns it only if everything matches. Needs the `skills` feature
    /// (the front matter is YAML).
    #[cfg(feature = "skills")]
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill, Error> {
        let file = match &entry.resources {
            SkillResources::Files(_) => {
                Some(entry.resources.file(&entry.uri).ok_or_else(|| {
                    Error::Verification(format!(
                        "the manifest of {} does not list its SKILL.md",
                        entry.uri
                    ))
                })?)
            }
            SkillResources::Dynamic => None,
        };
        let bytes = self.read_verified(&entry.uri, file).await?;
        let skill_md = String::from_utf8(bytes)
            .map_err(|_| Error::Verification(format!("{}: not UTF-8", entry.uri)))?;
        let fm = SkillFrontmatter::parse(&skill_md)
            .map_err(|e| Error::Verification(format!("{}: {e}", entry.uri)))?;
        let differ = fm.differences(&entry.frontmatter);
        if !differ.is_empty() {
            return Err(Error::Verification(format!(
                "{}: the front matter differs from the listed entry in {}",
                entry.uri,
                differ.join(", ")
            )));
        }
        Ok(LoadedSkill {
            entry: entry.clone(),
            skill_md,
        })
    }

    /// Reads a supporting file of a loaded skill, verified against its manifest entry. A file the manifest
    /// does not list is refused (unless the skill's resources are `dynamic`).
    pub async fn read_skill_file(&self, skill: &LoadedSkill, uri: &str) -> Result<Vec<u8>, Error> {
        let file = match &skill.entry.resources {
            SkillResources::Files(_) => Some(skill.entry.resources.file(uri).ok_or_else(|| {
                Error::Verification(format!(
                    "{uri} is not in the manifest of {}",
                    skill.entry.uri
                ))
            })?),
            SkillResources::Dynamic => None,
        };
        self.read_verified(uri, file).await
    }
}
