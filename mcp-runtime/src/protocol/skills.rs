//! The skills extension (SEP-2640, `io.modelcontextprotocol/skills`): agent skills served over resources.
//!
//! A skill is a directory of files whose entry point is `SKILL.md`, a Markdown file that opens with YAML
//! front matter (at least `name` and `description`). Its files are resources, read with `resources/read`
//! at `skill://<skill-path>/<file>`, where the last segment of the skill-path is the skill's name. The
//! extension adds three methods:
//!
//! - `skills/list` (paginated): one [`SkillEntry`] per skill, never split across pages;
//! - `skills/get {uri}`: the entry of one skill, `-32602` for a URI that names none;
//! - `resources/directory/read {uri, cursor?}` (when the capability says `directoryRead`): the direct
//!   children of a directory resource, subdirectories with the MIME type `inode/directory`.
//!
//! An entry's manifest lists every file of the skill with the SHA-256 digest and size of its bytes, so
//! a host can verify what it reads ([`SkillFile::verify`]) and compare the `SKILL.md` it fetched with
//! the entry's front matter ([`SkillFrontmatter::parse`], [`SkillFrontmatter::differences`]).
//! Server and client share these types.

use super::{CacheHints, Cursor, JsonObject, ListResourcesResult};
#[cfg(feature = "skills")]
use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
#[cfg(feature = "skills")]
use std::cell::Cell;
#[cfg(feature = "skills")]
use std::fmt;

/// The extension's identifier, the key of its settings under `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";
/// The file name of a skill's entry point.
pub const SKILL_MD: &str = "SKILL.md";
/// The MIME type of `SKILL.md`.
pub const SKILL_MD_MIME_TYPE: &str = "text/markdown";
/// The MIME type that marks a resource as a directory.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";
/// The URI scheme servers should use for skill files.
pub const SKILL_SCHEME: &str = "skill";
/// Files per skill (`SKILL.md` included) above which a server should not serve it, nor a host load it.
pub const MAX_SKILL_FILES: usize = 512;
/// Bytes per skill, summed over its files, above which a server should not serve it.
pub const MAX_SKILL_BYTES: u64 = 16 * 1024 * 1024;
/// Keys of the front matter's `metadata` object with this prefix are reserved for MCP extensions.
pub const RESERVED_METADATA_PREFIX: &str = "io.modelcontextprotocol/";
/// The prefix of the `_meta` keys this extension defines on skill resources.
pub const SKILLS_META_PREFIX: &str = "io.modelcontextprotocol.skills/";

/// Bytes of YAML front matter we parse at most: real front matter is a few hundred bytes.
pub const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;
/// YAML aliases can make a small text expand into a huge tree: we stop after this many values...
const MAX_FRONTMATTER_VALUES: usize = 10_000;
/// ...or this many bytes of strings and keys, whichever comes first.
const MAX_FRONTMATTER_EXPANDED_BYTES: usize = 1024 * 1024;
/// The Agent Skills specification's limits on `name` and `description`.
const MAX_NAME_CHARS: usize = 64;
const MAX_DESCRIPTION_CHARS: usize = 1024;

/// The extension's settings, declared at `capabilities.extensions["io.modelcontextprotocol/skills"]`.
/// `{}` declares the extension with no optional feature.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillsCapability {
    /// The server answers `resources/directory/read`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub directory_read: bool,
}

impl SkillsCapability {
    /// The settings a server declared, or `None` when it does not declare the extension (a value that
    /// is not a settings object counts as not declared).
    pub fn of(capabilities: &super::ServerCapabilities) -> Option<SkillsCapability> {
        let settings = capabilities.extensions.as_ref()?.get(SKILLS_EXTENSION)?;
        serde_json::from_value(settings.clone()).ok()
    }
}

/// One file of a skill's manifest: its URI, and the digest and size of its raw bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillFile {
    /// The file's URI (`skill://<skill-path>/<file>`), read with `resources/read`.
    pub uri: String,
    /// `sha256:` and 64 lowercase hex digits.
    pub digest: String,
    /// The length of the file's bytes, the same bytes the digest covers.
    pub size: u64,
}

impl SkillFile {
    /// The manifest entry of `bytes` served at `uri`.
    pub fn of(uri: impl Into<String>, bytes: &[u8]) -> Self {
        SkillFile {
            uri: uri.into(),
            digest: sha256_digest(bytes),
            size: bytes.len() as u64,
        }
    }

    /// Whether `bytes` are the file this entry describes: the size first (no hashing for a wrong
    /// length), then the digest. Content that fails must not be used.
    pub fn verify(&self, bytes: &[u8]) -> Result<(), SkillIntegrityError> {
        if bytes.len() as u64 != self.size {
            return Err(SkillIntegrityError::Size {
                uri: self.uri.clone(),
                expected: self.size,
                actual: bytes.len() as u64,
            });
        }
        let digest = sha256_digest(bytes);
        if digest != self.digest {
            return Err(SkillIntegrityError::Digest {
                uri: self.uri.clone(),
                expected: self.digest.clone(),
                actual: digest,
            });
        }
        Ok(())
    }
}

/// Bytes read from a skill that are not the ones its manifest describes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillIntegrityError {
    /// The file's length differs from the manifest's `size`.
    Size {
        /// The file's URI.
        uri: String,
        /// The size the manifest lists, in bytes.
        expected: u64,
        /// The size read, in bytes.
        actual: u64,
    },
    /// The file's SHA-256 digest differs from the manifest's.
    Digest {
        /// The file's URI.
        uri: String,
        /// The digest the manifest lists (`sha256:<hex>`).
        expected: String,
        /// The digest of the bytes read.
        actual: String,
    },
}

impl std::fmt::Display for SkillIntegrityError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkillIntegrityError::Size {
                uri,
                expected,
                actual,
            } => write!(
                f,
                "{uri}: {actual} bytes, but the skill's manifest says {expected}"
            ),
            SkillIntegrityError::Digest {
                uri,
                expected,
                actual,
            } => write!(
                f,
                "{uri}: digest {actual}, but the skill's manifest says {expected}"
            ),
        }
    }
}

impl std::error::Error for SkillIntegrityError {}

/// The files of a skill: a complete manifest, or `"dynamic"` when the server publishes none (content
/// generated on demand, with no stable digests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillResources {
    /// The complete manifest: every file of the skill, `SKILL.md` included.
    Files(Vec<SkillFile>),
    /// No manifest: the server generates the files on demand (`"dynamic"` on the wire).
    Dynamic,
}

const DYNAMIC: &str = "dynamic";

impl SkillResources {
    /// The manifest entry of `uri`, if the manifest is published and lists it.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        match self {
            SkillResources::Files(files) => files.iter().find(|f| f.uri == uri),
            SkillResources::Dynamic => None,
        }
    }
}

impl Serialize for SkillResources {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            SkillResources::Files(files) => files.serialize(s),
            SkillResources::Dynamic => s.serialize_str(DYNAMIC),
        }
    }
}

impl<'de> Deserialize<'de> for SkillResources {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Wire {
            Files(Vec<SkillFile>),
            Marker(String),
        }
        match Wire::deserialize(d)? {
            Wire::Files(files) => Ok(SkillResources::Files(files)),
            Wire::Marker(m) if m == DYNAMIC => Ok(SkillResources::Dynamic),
            Wire::Marker(m) => Err(de::Error::custom(format!(
                "resources must be a list of {{uri, digest, size}} or \"{DYNAMIC}\", not {m:?}"
            ))),
        }
    }
}

/// The YAML front matter of a `SKILL.md`, as a JSON object with every field the author wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillFrontmatter {
    /// The skill's name: the last segment of its skill-path.
    pub name: String,
    /// What the skill does and when to use it; what a host shows the model to choose skills.
    pub description: String,
    /// Every other field (`license`, `compatibility`, `metadata`, `allowed-tools`, ...).
    #[serde(flatten)]
    pub fields: JsonObject,
}

impl SkillFrontmatter {
    #[cfg(feature = "skills")]
    /// The front matter at the start of a `SKILL.md` (a UTF-8 BOM is skipped): the YAML between a first
    /// line `---` and the next line `---`, with non-empty `name` and `description`. Bounded: at most
    /// [`MAX_FRONTMATTER_BYTES`] of YAML, and aliases cannot expand it past a fixed budget.
    pub fn parse(skill_md: &str) -> Result<SkillFrontmatter, FrontmatterError> {
        let yaml = frontmatter_block(skill_md)?;
        let value = parse_yaml_bounded(yaml)?;
        let Value::Object(mut fields) = value else {
            return Err(FrontmatterError::NotAMapping);
        };
        let mut take = |key: &'static str| match fields.remove(key) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s),
            Some(Value::String(_)) => Err(FrontmatterError::EmptyField(key)),
            Some(_) => Err(FrontmatterError::NotAString(key)),
            None => Err(FrontmatterError::MissingField(key)),
        };
        let name = take("name")?;
        let description = take("description")?;
        Ok(SkillFrontmatter {
            name,
            description,
            fields,
        })
    }

    #[cfg(feature = "skills")]
    /// [`SkillFrontmatter::parse`] of raw bytes (which must be UTF-8).
    pub fn parse_bytes(skill_md: &[u8]) -> Result<SkillFrontmatter, FrontmatterError> {
        let text = std::str::from_utf8(skill_md).map_err(|_| FrontmatterError::NotUtf8)?;
        Self::parse(text)
    }

    /// The fields whose values differ between two front matters (a field absent from one side differs
    /// unless it is `null` on the other), sorted. Numbers are compared by value, so `1` equals `1.0`.
    /// A host loads a skill only when the `SKILL.md` it fetched has no difference with the entry.
    pub fn differences(&self, other: &SkillFrontmatter) -> Vec<String> {
        let mut out = Vec::new();
        if self.name != other.name {
            out.push("name".to_string());
        }
        if self.description != other.description {
            out.push("description".to_string());
        }
        let keys: std::collections::BTreeSet<&String> =
            self.fields.keys().chain(other.fields.keys()).collect();
        for k in keys {
            let a = self.fields.get(k).unwrap_or(&Value::Null);
            let b = other.fields.get(k).unwrap_or(&Value::Null);
            if !same_value(a, b) {
                out.push(k.clone());
            }
        }
        out.sort();
        out
    }

    /// The keys of the `metadata` object that use the prefix reserved for MCP extensions.
    pub fn reserved_metadata_keys(&self) -> Vec<&str> {
        match self.fields.get("metadata") {
            Some(Value::Object(m)) => m
                .keys()
                .filter(|k| k.starts_with(RESERVED_METADATA_PREFIX))
                .map(String::as_str)
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The rules of the Agent Skills specification that the front matter alone can break: the name's
    /// form and length (see [`check_skill_name`]), and a description of at most 1024 characters.
    pub fn check(&self) -> Result<(), String> {
        check_skill_name(&self.name)?;
        let chars = self.description.chars().count();
        if chars > MAX_DESCRIPTION_CHARS {
            return Err(format!(
                "the description has {chars} characters; the Agent Skills specification allows {MAX_DESCRIPTION_CHARS}"
            ));
        }
        Ok(())
    }
}

/// JSON equality where numbers compare by value (YAML `1.0` may arrive as `1` from another parser).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same_value(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_value(v, w)))
        }
        _ => a == b,
    }
}

/// Why a `SKILL.md` has no usable front matter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrontmatterError {
    /// The file's bytes are not UTF-8.
    NotUtf8,
    /// The first line is not `---`.
    Missing,
    /// No closing `---` line.
    Unclosed,
    /// The front matter exceeds the byte limit.
    TooLarge,
    /// The YAML expands (through aliases) past the value or byte limit.
    TooExpanded,
    /// The YAML does not parse; the parser's message.
    Yaml(String),
    /// The YAML is not a mapping.
    NotAMapping,
    /// A required field (`name` or `description`) is absent.
    MissingField(&'static str),
    /// A required field is an empty string.
    EmptyField(&'static str),
    /// A required field is not a string.
    NotAString(&'static str),
}

impl std::fmt::Display for FrontmatterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrontmatterError::NotUtf8 => f.write_str("SKILL.md is not UTF-8"),
            FrontmatterError::Missing => {
                f.write_str("SKILL.md must begin with YAML front matter: a first line `---`")
            }
            FrontmatterError::Unclosed => f.write_str("the front matter has no closing `---` line"),
            FrontmatterError::TooLarge => write!(
                f,
                "the front matter is larger than {MAX_FRONTMATTER_BYTES} bytes"
            ),
            FrontmatterError::TooExpanded => write!(
                f,
                "the front matter expands past {MAX_FRONTMATTER_VALUES} values or \
                 {MAX_FRONTMATTER_EXPANDED_BYTES} bytes (YAML aliases?)"
            ),
            FrontmatterError::Yaml(e) => write!(f, "invalid YAML in the front matter: {e}"),
            FrontmatterError::NotAMapping => {
                f.write_str("the front matter is not a mapping of fields")
            }
            FrontmatterError::MissingField(name) => write!(f, "the front matter has no `{name}`"),
            FrontmatterError::EmptyField(name) => write!(f, "the front matter's `{name}` is empty"),
            FrontmatterError::NotAString(name) => {
                write!(f, "the front matter's `{name}` is not a string")
            }
        }
    }
}

impl std::error::Error for FrontmatterError {}

/// The YAML between the opening `---` line and the closing one (which may end in spaces or tabs).
#[cfg(feature = "skills")]
fn frontmatter_block(text: &str) -> Result<&str, FrontmatterError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or(FrontmatterError::Missing)?;
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare
            .strip_prefix("---")
            .is_some_and(|tail| tail.trim_matches([' ', '\t']).is_empty())
        {
            let yaml = &rest[..offset];
            return if yaml.len() > MAX_FRONTMATTER_BYTES {
                Err(FrontmatterError::TooLarge)
            } else {
                Ok(yaml)
            };
        }
        offset += line.len();
        if offset > MAX_FRONTMATTER_BYTES {
            return Err(FrontmatterError::TooLarge);
        }
    }
    Err(FrontmatterError::Unclosed)
}

/// YAML to JSON with a budget of values and bytes, checked as the tree is built, so that an alias bomb
/// fails before it takes memory.
#[cfg(feature = "skills")]
fn parse_yaml_bounded(yaml: &str) -> Result<Value, FrontmatterError> {
    let budget = Budget {
        values: Cell::new(MAX_FRONTMATTER_VALUES),
        bytes: Cell::new(MAX_FRONTMATTER_EXPANDED_BYTES),
        exceeded: Cell::new(false),
    };
    let de = yaml_serde::Deserializer::from_str(yaml);
    match Bounded(&budget).deserialize(de) {
        Ok(v) => Ok(v),
        Err(_) if budget.exceeded.get() => Err(FrontmatterError::TooExpanded),
        // The parser's own guards against alias repetition and deep nesting.
        Err(e) if e.to_string().contains("limit exceeded") => Err(FrontmatterError::TooExpanded),
        Err(e) => Err(FrontmatterError::Yaml(e.to_string())),
    }
}

#[cfg(feature = "skills")]
struct Budget {
    values: Cell<usize>,
    bytes: Cell<usize>,
    exceeded: Cell<bool>,
}

#[cfg(feature = "skills")]
impl Budget {
    fn take<E: de::Error>(&self, bytes: usize) -> Result<(), E> {
        let values = self.values.get().checked_sub(1);
        let left = self.bytes.get().checked_sub(bytes);
        match (values, left) {
            (Some(v), Some(b)) => {
                self.values.set(v);
                self.bytes.set(b);
                Ok(())
            }
            _ => {
                self.exceeded.set(true);
                Err(E::custom("front matter budget exceeded"))
            }
        }
    }
}

#[cfg(feature = "skills")]
#[derive(Clone, Copy)]
struct Bounded<'b>(&'b Budget);

#[cfg(feature = "skills")]
impl<'de> DeserializeSeed<'de> for Bounded<'_> {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

/// A mapping key: YAML allows any scalar, JSON wants text (`1: x` becomes `"1"`).
#[cfg(feature = "skills")]
struct Key<'b>(&'b Budget);

#[cfg(feature = "skills")]
impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = String;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<String, D::Error> {
        let key = match Bounded(self.0).deserialize(d)? {
            Value::String(s) => s,
            Value::Null => "null".to_string(),
            v @ (Value::Bool(_) | Value::Number(_)) => v.to_string(),
            _ => {
                return Err(de::Error::custom(
                    "a mapping key must be a scalar (text, number or boolean)",
                ))
            }
        };
        Ok(key)
    }
}

#[cfg(feature = "skills")]
impl<'de> Visitor<'de> for Bounded<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a YAML value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.0.take(0)?;
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        self.0.take(0)?;
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.0.take(0)?;
        Ok(v.into())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.0.take(0)?;
        Ok(v.into())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        self.0.take(0)?;
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom(format!("{v} has no JSON form (use a quoted string)")))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.0.take(v.len())?;
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.0.take(v.len())?;
        Ok(Value::String(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.0.take(0)?;
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.0.take(0)?;
        let mut out = JsonObject::new();
        while let Some(k) = map.next_key_seed(Key(self.0))? {
            let v = map.next_value_seed(self)?;
            if out.insert(k.clone(), v).is_some() {
                return Err(de::Error::custom(format!("duplicate key `{k}`")));
            }
        }
        Ok(Value::Object(out))
    }
}

/// Checks a skill name against the Agent Skills specification: 1 to 64 characters, lowercase ASCII
/// letters, digits and hyphens, no hyphen at either end and no two in a row.
pub fn check_skill_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > MAX_NAME_CHARS {
        return Err(format!(
            "the skill name {name:?} must have 1 to {MAX_NAME_CHARS} characters"
        ));
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Err(format!(
            "the skill name {name:?} may hold only lowercase letters a-z, digits and hyphens"
        ));
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return Err(format!(
            "the skill name {name:?} may not start or end with a hyphen, nor have two in a row"
        ));
    }
    Ok(())
}

/// The skill name a `SKILL.md` URI ends in: the path segment before `/SKILL.md` (still percent-encoded).
pub fn skill_name_from_uri(uri: &str) -> Option<&str> {
    if uri.contains(['?', '#']) {
        return None;
    }
    let (_, path) = uri.split_once("://")?;
    let dir = path.strip_suffix(SKILL_MD)?.strip_suffix('/')?;
    let name = dir.rsplit('/').next()?;
    (!name.is_empty()).then_some(name)
}

/// The `sha256:<64 lowercase hex digits>` digest of `bytes`.
pub fn sha256_digest(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let hash = crate::sha256::Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in hash.iter() {
        out.push(HEX[usize::from(b >> 4)] as char);
        out.push(HEX[usize::from(b & 15)] as char);
    }
    out
}

/// Whether `digest` has the form `sha256:<64 lowercase hex digits>`.
pub fn is_sha256_digest(digest: &str) -> bool {
    digest.strip_prefix("sha256:").is_some_and(|hex| {
        hex.len() == 64 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// One skill, as `skills/list` lists it and `skills/get` returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillEntry {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// The front matter of that `SKILL.md`, identical in content to the file's.
    pub frontmatter: SkillFrontmatter,
    /// The skill's files with their digests and sizes, or `"dynamic"`.
    pub resources: SkillResources,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

impl SkillEntry {
    /// The skill's name, from its front matter.
    pub fn name(&self) -> &str {
        &self.frontmatter.name
    }
}

/// Result of `skills/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListSkillsResult {
    /// This page's skills; a skill is never split across pages.
    pub skills: Vec<SkillEntry>,
    /// The cursor of the next page; `None` on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<Cursor>,
    /// 2026-07-28 caching hints (`ttlMs`, `cacheScope`).
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheHints>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of `skills/get`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetSkillParams {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Result of `skills/get`: one entry, and no cursor (a single entry is not a list).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GetSkillResult {
    /// The skill's entry.
    pub skill: SkillEntry,
    /// 2026-07-28 caching hints (`ttlMs`, `cacheScope`).
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheHints>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of `resources/directory/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReadDirectoryParams {
    /// The URI of a directory resource.
    pub uri: String,
    /// Where to resume: the `nextCursor` of the previous page; `None` for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<Cursor>,
    /// Metadata reserved by MCP (`_meta`); `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Result of `resources/directory/read`: the directory's direct children, paginated as `resources/list`.
pub type ReadDirectoryResult = ListResourcesResult;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The `pdf-processing` SKILL.md of the extension's example, with the digest and size its manifest lists.
    const EXAMPLE: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\n# PDF processing\n\nChoose the matching template from `templates/`.\n";
    const EXAMPLE_DIGEST: &str =
        "sha256:99b737495721155ece826d57521e2d66141ebdc1344a400487481ea2642ab19e";

    #[test]
    fn the_digest_of_the_example_is_the_one_its_manifest_lists() {
        assert_eq!(sha256_digest(EXAMPLE.as_bytes()), EXAMPLE_DIGEST);
        assert!(is_sha256_digest(EXAMPLE_DIGEST));
        assert!(!is_sha256_digest(&EXAMPLE_DIGEST.to_uppercase()));
        assert!(!is_sha256_digest("sha256:abc"));
        assert!(!is_sha256_digest(&"a".repeat(64)));
    }

    #[test]
    fn verify_checks_the_size_before_the_digest() {
        let entry = SkillFile::of("skill://pdf-processing/SKILL.md", EXAMPLE.as_bytes());
        assert_eq!(entry.size, 151);
        assert_eq!(entry.verify(EXAMPLE.as_bytes()), Ok(()));
        let longer = format!("{EXAMPLE}extra");
        assert!(matches!(
            entry.verify(longer.as_bytes()),
            Err(SkillIntegrityError::Size {
                expected: 151,
                actual: 156,
                ..
            })
        ));
        let same_size = EXAMPLE.replace("PDF processing", "PDF Processing");
        assert!(matches!(
            entry.verify(same_size.as_bytes()),
            Err(SkillIntegrityError::Digest { .. })
        ));
    }

    #[test]
    fn an_entry_round_trips_with_both_forms_of_resources() {
        let wire = json!({
            "uri": "skill://pdf-processing/SKILL.md",
            "frontmatter": {"name": "pdf-processing", "description": "PDFs", "license": "MIT"},
            "resources": [{"uri": "skill://pdf-processing/SKILL.md", "digest": EXAMPLE_DIGEST, "size": 151}]
        });
        let entry: SkillEntry = serde_json::from_value(wire.clone()).unwrap();
        assert_eq!(entry.name(), "pdf-processing");
        assert_eq!(entry.frontmatter.fields["license"], "MIT");
        assert_eq!(serde_json::to_value(&entry).unwrap(), wire);

        let dynamic = json!({"uri": "skill://x/SKILL.md", "frontmatter": {"name": "x", "description": "d"}, "resources": "dynamic"});
        let entry: SkillEntry = serde_json::from_value(dynamic.clone()).unwrap();
        assert_eq!(entry.resources, SkillResources::Dynamic);
        assert_eq!(serde_json::to_value(&entry).unwrap(), dynamic);

        let bad = json!({"uri": "skill://x/SKILL.md", "frontmatter": {"name": "x", "description": "d"}, "resources": "static"});
        let err = serde_json::from_value::<SkillEntry>(bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"static\""), "{err}");
    }

    #[test]
    fn the_capability_is_an_empty_object_without_directory_reads() {
        assert_eq!(
            serde_json::to_value(SkillsCapability::default()).unwrap(),
            json!({})
        );
        let with = SkillsCapability {
            directory_read: true,
        };
        assert_eq!(
            serde_json::to_value(with).unwrap(),
            json!({"directoryRead": true})
        );
    }

    #[test]
    fn the_settings_are_read_from_the_capabilities() {
        let caps: super::super::ServerCapabilities = serde_json::from_value(json!({
            "resources": {}, "extensions": {"io.modelcontextprotocol/skills": {"directoryRead": true}}
        }))
        .unwrap();
        assert_eq!(
            SkillsCapability::of(&caps),
            Some(SkillsCapability {
                directory_read: true
            })
        );
        assert_eq!(SkillsCapability::of(&Default::default()), None);
        let odd: super::super::ServerCapabilities =
            serde_json::from_value(json!({"extensions": {"io.modelcontextprotocol/skills": true}}))
                .unwrap();
        assert_eq!(SkillsCapability::of(&odd), None);
    }

    #[test]
    fn front_matter_is_read_as_json_with_every_field() {
        let md = "\u{feff}---\r\nname: pdf-processing\r\ndescription: \"Extract: PDFs\"\r\nlicense: MIT\r\nversion: 1.0\r\nmetadata:\r\n  author: a\r\n  tags: [x, y]\r\n  1: one\r\n---  \r\nbody\n";
        let fm = SkillFrontmatter::parse(md).unwrap();
        assert_eq!(fm.name, "pdf-processing");
        assert_eq!(fm.description, "Extract: PDFs");
        assert_eq!(
            serde_json::to_value(&fm).unwrap(),
            json!({"name": "pdf-processing", "description": "Extract: PDFs", "license": "MIT", "version": 1.0,
                   "metadata": {"author": "a", "tags": ["x", "y"], "1": "one"}})
        );
    }

    #[test]
    fn malformed_front_matter_says_what_is_wrong() {
        use FrontmatterError::*;
        for (md, want) in [
            ("# no front matter\n", Missing),
            ("---\nname: x\ndescription: y\n", Unclosed),
            ("---\n- a\n- b\n---\n", NotAMapping),
            ("---\ndescription: y\n---\n", MissingField("name")),
            (
                "---\nname: x\ndescription: ''\n---\n",
                EmptyField("description"),
            ),
            ("---\nname: [x]\ndescription: y\n---\n", NotAString("name")),
        ] {
            assert_eq!(SkillFrontmatter::parse(md), Err(want), "{md:?}");
        }
        let err = SkillFrontmatter::parse("---\nname: x\n  bad: indent\n---\n").unwrap_err();
        assert!(matches!(err, Yaml(_)), "{err:?}");
        let err =
            SkillFrontmatter::parse("---\nname: x\nname: y\ndescription: z\n---\n").unwrap_err();
        assert!(
            matches!(err, Yaml(ref m) if m.contains("duplicate")),
            "{err:?}"
        );
        assert_eq!(SkillFrontmatter::parse_bytes(b"---\xff\n"), Err(NotUtf8));
        let huge = format!(
            "---\nname: x\ndescription: {}\n---\n",
            "y".repeat(MAX_FRONTMATTER_BYTES)
        );
        assert_eq!(SkillFrontmatter::parse(&huge), Err(TooLarge));
    }

    #[test]
    fn an_alias_bomb_stops_at_the_budget() {
        let mut md = String::from("---\nname: x\ndescription: y\na0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
        for i in 1..10 {
            let p = i - 1;
            md.push_str(&format!(
                "a{i}: &a{i} [*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p},*a{p}]\n"
            ));
        }
        md.push_str("---\n");
        assert!(md.len() < 1024);
        assert_eq!(
            SkillFrontmatter::parse(&md),
            Err(FrontmatterError::TooExpanded)
        );
    }

    #[test]
    fn differences_name_the_fields_and_compare_numbers_by_value() {
        let a =
            SkillFrontmatter::parse("---\nname: x\ndescription: y\nversion: 1.0\nn: null\n---\n")
                .unwrap();
        let mut b = a.clone();
        b.fields.insert("version".into(), json!(1));
        b.fields.remove("n");
        assert!(a.differences(&b).is_empty());
        b.description = "Exfiltrate credentials".into();
        b.fields.insert("license".into(), json!("MIT"));
        assert_eq!(a.differences(&b), vec!["description", "license"]);
    }

    #[test]
    fn names_follow_the_agent_skills_rules() {
        for ok in ["a", "pdf-processing", "x2", &"a".repeat(64)] {
            assert_eq!(check_skill_name(ok), Ok(()), "{ok}");
        }
        for bad in [
            "",
            "PDF",
            "two_words",
            "two words",
            "-a",
            "a-",
            "a--b",
            "é",
            &"a".repeat(65),
        ] {
            assert!(check_skill_name(bad).is_err(), "{bad}");
        }
        let long = SkillFrontmatter::parse(&format!(
            "---\nname: x\ndescription: {}\n---\n",
            "d".repeat(1025)
        ))
        .unwrap();
        assert!(long.check().unwrap_err().contains("1025 characters"));
    }

    #[test]
    fn the_name_of_a_skill_uri_is_its_last_directory() {
        assert_eq!(
            skill_name_from_uri("skill://acme/billing/SKILL.md"),
            Some("billing")
        );
        assert_eq!(
            skill_name_from_uri("skill://pdf-processing/SKILL.md"),
            Some("pdf-processing")
        );
        assert_eq!(skill_name_from_uri("skill://acme/billing/README.md"), None);
        assert_eq!(skill_name_from_uri("skill:///SKILL.md"), None);
        assert_eq!(skill_name_from_uri("skill://a/b?x=/c/SKILL.md"), None);
    }
}
