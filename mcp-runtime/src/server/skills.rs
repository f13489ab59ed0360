//! Skills (SEP-2640) served by a server: a directory of skills, or skills built in code, checked and
//! digested once when the server is built, then served through the resources machinery.
//!
//! Each skill's `SKILL.md` is a resource of the server (listed by `resources/list` with the front
//! matter's name and description); its other files are readable with `resources/read` without being
//! listed; `skills/list`, `skills/get` and `resources/directory/read` answer from the catalog built here.
//! Nothing is read from disk after the build: the bytes served are the bytes the digests describe.
//!
//! ```no_run
//! use mcp_runtime::server::Skill;
//! use mcp_runtime::Server;
//!
//! let server = Server::builder()
//!     .name("docs")
//!     // Every directory below ./skills that holds a SKILL.md, with all its files.
//!     .skills_dir("./skills")
//!     // A skill built in code, at skill://acme/release-notes/SKILL.md.
//!     .skill(
//!         Skill::new("---\nname: release-notes\ndescription: Write release notes from a changelog\n---\n\nRead `template.md`.\n")
//!             .under("acme")
//!             .file("template.md", "## Added\n\n## Fixed\n"),
//!     )
//!     .build()?; // a malformed or oversized skill is an error here, naming the file
//! # Ok::<(), mcp_runtime::server::ServerError>(())
//! ```

use super::registry::{Keyed, Set};
use super::resources::{ResourceHandler, ResourceRoute, UriVars};
use super::stamp::Stamp;
use super::{Context, ServerInner};
use crate::framing::{parse_params, to_raw};
use crate::future::BoxFuture;
use crate::protocol::*;
use serde_json::value::RawValue;
use std::collections::{BTreeMap, HashMap, HashSet};
#[cfg(feature = "skills")]
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What serving skills needs: the `skills` feature of mcp-runtime (a YAML parser for the front matter).
/// With the feature every type has it, so the bound is invisible; without it no type has it, so a call of
/// [`Skill::new`], [`Skill::from_dir`] or `ServerBuilder::skills_dir` fails to compile, naming the feature.
#[cfg(feature = "skills")]
pub trait SkillsFeature {}
#[cfg(feature = "skills")]
impl<T: ?Sized> SkillsFeature for T {}

/// What serving skills needs: the `skills` feature of mcp-runtime (a YAML parser for the front matter).
/// With the feature every type has it, so the bound is invisible; without it no type has it, so a call of
/// [`Skill::new`], [`Skill::from_dir`] or `ServerBuilder::skills_dir` fails to compile, naming the feature.
#[cfg(not(feature = "skills"))]
#[diagnostic::on_unimplemented(
    message = "serving skills needs the `skills` feature of mcp-runtime",
    label = "available with the `skills` feature",
    note = "in Cargo.toml: mcp-runtime = {{ version = \"0.1\", features = [\"skills\"] }}"
)]
pub trait SkillsFeature {
    /// Never called: no type implements this trait without the feature.
    fn unavailable(&self) -> std::convert::Infallible;
}

/// A skill to serve: its `SKILL.md` and its supporting files. Nothing is checked until the server is
/// built; then the front matter is parsed, the name, paths and limits are checked, and every file's
/// digest and size are computed once.
#[derive(Clone)]
pub struct Skill {
    skill_md: Vec<u8>,
    /// Supporting files by path relative to the skill's directory (`/`-separated).
    files: Vec<(String, Vec<u8>)>,
    /// The skill-path segments before the skill's name.
    prefix: Vec<String>,
    /// The directory the skill was read from, to name files in errors (and whose name must be the skill's).
    dir: Option<PathBuf>,
    cache: Option<CacheHints>,
    meta: Option<JsonObject>,
    /// Without the `skills` feature no `Skill` exists (its constructors do not compile).
    #[cfg(not(feature = "skills"))]
    unavailable: std::convert::Infallible,
}

/// A skill that cannot be served, naming the file and the problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillError {
    /// The file (a path on disk, or `skill://...` for a skill built in code).
    pub file: String,
    /// What is wrong with it.
    pub problem: String,
}

impl std::fmt::Display for SkillError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.problem)
    }
}

impl std::error::Error for SkillError {}

impl SkillError {
    fn new(file: impl Into<String>, problem: impl Into<String>) -> Self {
        SkillError {
            file: file.into(),
            problem: problem.into(),
        }
    }
}

impl Skill {
    /// A skill from the text of its `SKILL.md`, which names it (front matter `name`). It is served at
    /// `skill://<name>/SKILL.md` unless placed [`under`](Skill::under) a path. Needs the `skills` feature.
    #[cfg(not(feature = "skills"))]
    pub fn new(skill_md: impl Into<Vec<u8>> + SkillsFeature) -> Self {
        match skill_md.unavailable() {}
    }

    /// A skill from the text of its `SKILL.md`, which names it (front matter `name`). It is served at
    /// `skill://<name>/SKILL.md` unless placed [`under`](Skill::under) a path.
    #[cfg(feature = "skills")]
    pub fn new(skill_md: impl Into<Vec<u8>>) -> Self {
        Skill {
            skill_md: skill_md.into(),
            files: Vec::new(),
            prefix: Vec::new(),
            dir: None,
            cache: None,
            meta: None,
        }
    }

    /// Adds a supporting file at `path`, relative to the skill's directory (`references/FORMS.md`).
    pub fn file(mut self, path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        self.files.push((path.into(), bytes.into()));
        self
    }

    /// Serves the skill below `path` (`acme` or `acme/billing`): at `skill://<path>/<name>/SKILL.md`.
    /// The first segment becomes the URI's authority.
    pub fn under(mut self, path: &str) -> Self {
        self.prefix = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        self
    }

    /// Caching hints of this skill's entry and of reads of its files (2026-07-28); the server's otherwise.
    pub fn cache(mut self, hints: CacheHints) -> Self {
        self.cache = Some(hints);
        self
    }

    /// The `_meta` of this skill's entry in `skills/list` and `skills/get`.
    pub fn meta(mut self, meta: JsonObject) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Reads a skill from a directory holding a `SKILL.md`: every regular file below it, hidden ones
    /// (a name starting with `.`) left out. The directory's name must be the skill's name. Symbolic
    /// links and special files are refused, and so is a skill over [`MAX_SKILL_FILES`] files or
    /// [`MAX_SKILL_BYTES`] bytes, before more than that is read. Needs the `skills` feature.
    #[cfg(not(feature = "skills"))]
    #[allow(unreachable_code)] // the lint's view of a `Result` made from `Infallible`
    pub fn from_dir(dir: impl AsRef<Path> + SkillsFeature) -> Result<Skill, SkillError> {
        match dir.unavailable() {}
    }

    /// Reads a skill from a directory holding a `SKILL.md`: every regular file below it, hidden ones
    /// (a name starting with `.`) left out. The directory's name must be the skill's name. Symbolic
    /// links and special files are refused, and so is a skill over [`MAX_SKILL_FILES`] files or
    /// [`MAX_SKILL_BYTES`] bytes, before more than that is read.
    #[cfg(feature = "skills")]
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Skill, SkillError> {
        let dir = dir.as_ref();
        let mut walk = Walk {
            root: dir,
            files: Vec::new(),
            bytes: 0,
        };
        walk.visit(dir, "", 0)?;
        let mut skill_md = None;
        let mut files = Vec::with_capacity(walk.files.len());
        for (rel, bytes) in walk.files {
            if rel == SKILL_MD {
                skill_md = Some(bytes);
            } else {
                files.push((rel, bytes));
            }
        }
        let skill_md = skill_md.ok_or_else(|| {
            SkillError::new(
                dir.join(SKILL_MD).display().to_string(),
                "missing: a skill's directory holds its SKILL.md",
            )
        })?;
        Ok(Skill {
            skill_md,
            files,
            prefix: Vec::new(),
            dir: Some(dir.to_path_buf()),
            cache: None,
            meta: None,
        })
    }

    /// How a file of this skill is named in an error.
    fn describe(&self, rel: &str, uri_root: Option<&str>) -> String {
        match (&self.dir, uri_root) {
            (Some(d), _) => d.join(rel).display().to_string(),
            (None, Some(root)) => format!("{root}/{rel}"),
            (None, None) => format!("{rel} of a skill built in code"),
        }
    }
}

/// The skill's front matter, parsed (with the `skills` feature; without it no `Skill` exists).
#[cfg(feature = "skills")]
fn frontmatter_of(skill: &Skill) -> Result<SkillFrontmatter, FrontmatterError> {
    SkillFrontmatter::parse_bytes(&skill.skill_md)
}

#[cfg(not(feature = "skills"))]
fn frontmatter_of(skill: &Skill) -> Result<SkillFrontmatter, FrontmatterError> {
    match skill.unavailable {}
}

/// Reads a skill's files depth first, in name order, within the limits.
#[cfg(feature = "skills")]
struct Walk<'a> {
    root: &'a Path,
    files: Vec<(String, Vec<u8>)>,
    bytes: u64,
}

/// Deeper than this is a loop or a mistake, not a skill.
#[cfg(feature = "skills")]
const MAX_DEPTH: usize = 32;

#[cfg(feature = "skills")]
impl Walk<'_> {
    fn visit(&mut self, dir: &Path, rel: &str, depth: usize) -> Result<(), SkillError> {
        let io = |path: &Path, e: std::io::Error| {
            SkillError::new(path.display().to_string(), e.to_string())
        };
        if depth > MAX_DEPTH {
            return Err(SkillError::new(
                dir.display().to_string(),
                format!("nested deeper than {MAX_DEPTH} directories"),
            ));
        }
        let mut entries = std::fs::read_dir(dir)
            .map_err(|e| io(dir, e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| io(dir, e))?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                return Err(SkillError::new(
                    path.display().to_string(),
                    "the name is not UTF-8, so it has no URI",
                ));
            };
            if name.starts_with('.') {
                continue;
            }
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            let kind = entry.file_type().map_err(|e| io(&path, e))?;
            if kind.is_dir() {
                self.visit(&path, &child, depth + 1)?;
            } else if kind.is_file() {
                self.read(&path, child)?;
            } else {
                return Err(SkillError::new(
                    path.display().to_string(),
                    "a symbolic link or special file: a skill serves regular files only",
                ));
            }
        }
        Ok(())
    }

    fn read(&mut self, path: &Path, rel: String) -> Result<(), SkillError> {
        // Named by the file that crosses the limit, and the skill it would overfill.
        let over = |what: &str| {
            SkillError::new(
                path.display().to_string(),
                format!(
                    "with this file the skill {} has more than {what}: hosts need not load such a \
                     skill, so it is not served",
                    self.root.display()
                ),
            )
        };
        if self.files.len() + 1 > MAX_SKILL_FILES {
            return Err(over(&format!("{MAX_SKILL_FILES} files")));
        }
        let left = MAX_SKILL_BYTES - self.bytes;
        let file = std::fs::File::open(path)
            .map_err(|e| SkillError::new(path.display().to_string(), e.to_string()))?;
        let mut bytes = Vec::new();
        // One byte past what is left tells an oversized skill without reading the rest.
        file.take(left + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| SkillError::new(path.display().to_string(), e.to_string()))?;
        if bytes.len() as u64 > left {
            return Err(over(&format!("{MAX_SKILL_BYTES} bytes (16 MiB)")));
        }
        self.bytes += bytes.len() as u64;
        self.files.push((rel, bytes));
        Ok(())
    }
}

/// Every directory below `root` that holds a `SKILL.md`, as a skill placed under its parent directories
/// (`root/acme/billing/SKILL.md` is `skill://acme/billing/SKILL.md`), in path order.
#[cfg(not(feature = "skills"))]
#[allow(unreachable_code)] // the lint's view of a `Result` made from `Infallible`
pub(crate) fn skills_in(
    root: &(impl AsRef<Path> + SkillsFeature),
) -> Result<Vec<Skill>, SkillError> {
    match root.unavailable() {}
}

/// Every directory below `root` that holds a `SKILL.md`, as a skill placed under its parent directories
/// (`root/acme/billing/SKILL.md` is `skill://acme/billing/SKILL.md`), in path order.
#[cfg(feature = "skills")]
pub(crate) fn skills_in(
    root: &(impl AsRef<Path> + SkillsFeature),
) -> Result<Vec<Skill>, SkillError> {
    let root = root.as_ref();
    let mut found = Vec::new();
    find(root, &mut Vec::new(), &mut found)?;
    if found.iter().any(|(segments, _)| segments.is_empty()) {
        return Err(SkillError::new(
            root.join(SKILL_MD).display().to_string(),
            "a skill needs a directory of its own, named after it, below the skills directory",
        ));
    }
    found
        .into_iter()
        .map(|(mut segments, dir)| {
            segments.pop();
            let mut skill = Skill::from_dir(&dir)?;
            skill.prefix = segments;
            Ok(skill)
        })
        .collect()
}

#[cfg(feature = "skills")]
fn find(
    dir: &Path,
    segments: &mut Vec<String>,
    found: &mut Vec<(Vec<String>, PathBuf)>,
) -> Result<(), SkillError> {
    let io = |e: std::io::Error| SkillError::new(dir.display().to_string(), e.to_string());
    if segments.len() > MAX_DEPTH {
        return Err(SkillError::new(
            dir.display().to_string(),
            format!("nested deeper than {MAX_DEPTH} directories"),
        ));
    }
    if dir.join(SKILL_MD).is_file() {
        found.push((segments.clone(), dir.to_path_buf()));
    }
    let mut entries = std::fs::read_dir(dir)
        .map_err(io)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(io)?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if name.starts_with('.') || !entry.file_type().map_err(io)?.is_dir() {
            continue;
        }
        segments.push(name);
        find(&entry.path(), segments, found)?;
        segments.pop();
    }
    Ok(())
}

/// Everything the server answers about its skills, built once.
pub(crate) struct SkillCatalog {
    pub(crate) entries: Set<SkillRoute>,
    /// Every file of every skill, `SKILL.md` included, by URI.
    files: HashMap<String, ServedFile>,
    /// Each directory of a skill (its root included) and its direct children, by URI.
    directories: HashMap<String, Set<Child>>,
}

#[derive(Clone)]
pub(crate) struct SkillRoute {
    pub(crate) entry: SkillEntry,
    cache: Option<CacheHints>,
}

impl Keyed for SkillRoute {
    fn key(&self) -> &str {
        &self.entry.uri
    }
}

/// A directory's child: a file, or a subdirectory (MIME type `inode/directory`).
#[derive(Clone)]
struct Child(Resource);

impl Keyed for Child {
    fn key(&self) -> &str {
        &self.0.uri
    }
}

#[derive(Clone)]
struct ServedFile {
    handler: Arc<SkillFileHandler>,
    cache: Option<CacheHints>,
    /// The digest of the bytes, to tell the same file served by two skills from a conflict.
    digest: String,
}

/// Serves one file's bytes, prepared once (as text when they are UTF-8, base64 otherwise).
struct SkillFileHandler {
    contents: ResourceContents,
}

impl ResourceHandler for SkillFileHandler {
    fn read(
        &self,
        _uri: String,
        _vars: UriVars,
        _ctx: Context,
    ) -> BoxFuture<'static, Result<ReadResourceResult, ErrorObject>> {
        let result = ReadResourceResult {
            contents: vec![self.contents.clone()],
            cache: None,
            meta: None,
        };
        Box::pin(std::future::ready(Ok(result)))
    }
}

impl SkillCatalog {
    /// Checks and digests every skill; returns the catalog and the resource route of each `SKILL.md`.
    pub(crate) fn build(skills: Vec<Skill>) -> Result<(Self, Vec<ResourceRoute>), SkillError> {
        let mut catalog = SkillCatalog {
            entries: Set::new(Vec::new()),
            files: HashMap::new(),
            directories: HashMap::new(),
        };
        let mut entries = Vec::with_capacity(skills.len());
        let mut routes = Vec::with_capacity(skills.len());
        let mut children: BTreeMap<String, BTreeMap<String, Resource>> = BTreeMap::new();
        let mut uris = HashSet::with_capacity(skills.len());
        for skill in skills {
            let (route, resource) = catalog.add(skill, &mut uris, &mut children)?;
            routes.push(ResourceRoute {
                resource,
                handler: catalog.files[&route.entry.uri].handler.clone(),
                cache: route.cache,
            });
            entries.push(route);
        }
        catalog.entries = Set::new(entries);
        catalog.directories = children
            .into_iter()
            .map(|(dir, kids)| (dir, Set::new(kids.into_values().map(Child).collect())))
            .collect();
        Ok((catalog, routes))
    }

    /// Checks one skill and adds its files and directories.
    fn add(
        &mut self,
        skill: Skill,
        uris: &mut HashSet<String>,
        children: &mut BTreeMap<String, BTreeMap<String, Resource>>,
    ) -> Result<(SkillRoute, Resource), SkillError> {
        let md_name = skill.describe(SKILL_MD, None);
        let frontmatter =
            frontmatter_of(&skill).map_err(|e| SkillError::new(&md_name, e.to_string()))?;
        frontmatter
            .check()
            .map_err(|e| SkillError::new(&md_name, e))?;
        if let Some(key) = frontmatter.reserved_metadata_keys().first() {
            return Err(SkillError::new(
                &md_name,
                format!("metadata key `{key}`: the prefix {RESERVED_METADATA_PREFIX} is reserved for MCP extensions, which define no such key"),
            ));
        }
        let name = frontmatter.name.clone();
        if let Some(dir_name) = skill.dir.as_ref().and_then(|d| d.file_name()) {
            if dir_name.to_str() != Some(name.as_str()) {
                return Err(SkillError::new(
                    &md_name,
                    format!(
                        "the skill is named `{name}` but its directory `{}`: a skill's directory bears its name",
                        dir_name.to_string_lossy()
                    ),
                ));
            }
        }
        for segment in &skill.prefix {
            if segment == "." || segment == ".." {
                return Err(SkillError::new(
                    &md_name,
                    format!("the skill path segment `{segment}` has no URI"),
                ));
            }
        }
        let mut root = String::from("skill://");
        for segment in skill.prefix.iter().chain(std::iter::once(&name)) {
            encode_segment(segment, &mut root);
            root.push('/');
        }
        root.pop();
        let uri = format!("{root}/{SKILL_MD}");
        if !uris.insert(uri.clone()) {
            return Err(SkillError::new(&uri, "two skills are served at this URI"));
        }

        let count = skill.files.len() + 1;
        if count > MAX_SKILL_FILES {
            return Err(SkillError::new(
                &uri,
                format!("{count} files, over the {MAX_SKILL_FILES} a skill may have"),
            ));
        }
        let total: u64 = skill.skill_md.len() as u64
            + skill.files.iter().map(|(_, b)| b.len() as u64).sum::<u64>();
        if total > MAX_SKILL_BYTES {
            return Err(SkillError::new(
                &uri,
                format!(
                    "{total} bytes, over the {MAX_SKILL_BYTES} bytes (16 MiB) a skill may have"
                ),
            ));
        }

        let mut manifest = Vec::with_capacity(count);
        let mut seen = HashSet::with_capacity(count);
        let all = std::iter::once((SKILL_MD.to_string(), &skill.skill_md))
            .chain(skill.files.iter().map(|(p, b)| (p.clone(), b)));
        for (i, (rel, bytes)) in all.enumerate() {
            let shown = skill.describe(&rel, Some(&root));
            let segments = file_segments(&rel).map_err(|e| SkillError::new(&shown, e))?;
            if i > 0 && segments == [SKILL_MD] {
                return Err(SkillError::new(
                    &shown,
                    "the skill's own SKILL.md is given by Skill::new, not as a file",
                ));
            }
            if !seen.insert(segments.clone()) {
                return Err(SkillError::new(&shown, "the same file is given twice"));
            }
            let mut file_uri = root.clone();
            let mut dir_uri = root.clone();
            for (depth, segment) in segments.iter().enumerate() {
                let parent = dir_uri.clone();
                file_uri.push('/');
                encode_segment(segment, &mut file_uri);
                let is_file = depth + 1 == segments.len();
                let child = if is_file {
                    file_resource(&file_uri, segment, bytes)
                } else {
                    dir_uri = file_uri.clone();
                    Resource {
                        uri: file_uri.clone(),
                        name: segment.clone(),
                        mime_type: Some(DIRECTORY_MIME_TYPE.into()),
                        ..Default::default()
                    }
                };
                children
                    .entry(parent)
                    .or_default()
                    .insert(child.uri.clone(), child);
            }
            let entry = SkillFile::of(file_uri.clone(), bytes);
            self.serve(&file_uri, &rel, bytes, &entry.digest, skill.cache)
                .map_err(|e| SkillError::new(&shown, e))?;
            manifest.push(entry);
        }
        let resource = Resource {
            uri: uri.clone(),
            name: name.clone(),
            description: Some(frontmatter.description.clone()),
            mime_type: Some(SKILL_MD_MIME_TYPE.into()),
            size: Some(skill.skill_md.len() as u64),
            ..Default::default()
        };
        let route = SkillRoute {
            entry: SkillEntry {
                uri,
                frontmatter,
                resources: SkillResources::Files(manifest),
                meta: skill.meta,
            },
            cache: skill.cache,
        };
        Ok((route, resource))
    }

    fn serve(
        &mut self,
        uri: &str,
        rel: &str,
        bytes: &[u8],
        digest: &str,
        cache: Option<CacheHints>,
    ) -> Result<(), String> {
        if let Some(known) = self.files.get(uri) {
            // A nested skill's files belong to the skills around it too: the same bytes are fine.
            return if known.digest == digest {
                Ok(())
            } else {
                Err(format!(
                    "{uri} is also a file of another skill, with other bytes"
                ))
            };
        }
        let mime = mime_type(rel, bytes);
        let contents = match std::str::from_utf8(bytes) {
            Ok(text) if mime.textual && !bytes.contains(&0) => {
                ResourceContents::text(uri, Some(mime.name), text)
            }
            _ => {
                use base64::Engine;
                let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
                ResourceContents::blob(uri, Some(mime.name), b64)
            }
        };
        self.files.insert(
            uri.to_string(),
            ServedFile {
                handler: Arc::new(SkillFileHandler { contents }),
                cache,
                digest: digest.to_string(),
            },
        );
        Ok(())
    }

    /// The handler and caching hints of a skill file.
    pub(crate) fn file(&self, uri: &str) -> Option<(Arc<dyn ResourceHandler>, Option<CacheHints>)> {
        self.files
            .get(uri)
            .map(|f| (f.handler.clone() as Arc<dyn ResourceHandler>, f.cache))
    }

    /// The extension's settings: directory reads are always served.
    pub(crate) fn capability() -> SkillsCapability {
        SkillsCapability {
            directory_read: true,
        }
    }
}

fn file_resource(uri: &str, name: &str, bytes: &[u8]) -> Resource {
    Resource {
        uri: uri.to_string(),
        name: name.to_string(),
        mime_type: Some(mime_type(name, bytes).name.into()),
        size: Some(bytes.len() as u64),
        ..Default::default()
    }
}

/// The segments of a file's path relative to its skill's directory, refusing what has no place in a URI
/// below the skill (empty segments, `.` and `..`, backslashes, control characters).
fn file_segments(rel: &str) -> Result<Vec<String>, String> {
    if rel.is_empty() {
        return Err("a file needs a path".into());
    }
    rel.split('/')
        .map(|s| match s {
            "" => Err("an empty path segment (a leading, trailing or doubled `/`)".to_string()),
            "." | ".." => Err(format!(
                "the path segment `{s}` would leave the skill's directory"
            )),
            _ if s.contains('\\') || s.chars().any(char::is_control) => Err(format!(
                "the path segment {s:?} holds a backslash or a control character"
            )),
            _ => Ok(s.to_string()),
        })
        .collect()
}

/// Appends a path segment, percent-encoding all but RFC 3986's unreserved characters and sub-delims, so
/// that a first segment is a valid authority (reg-name) and every other a valid path segment.
fn encode_segment(segment: &str, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=".contains(&b) {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
    }
}

struct Mime {
    name: &'static str,
    /// Served as text when the bytes are UTF-8.
    textual: bool,
}

/// The MIME type of a skill file from its extension; unknown text is `text/plain`, unknown bytes
/// `application/octet-stream`.
fn mime_type(path: &str, bytes: &[u8]) -> Mime {
    let ext = path
        .rsplit('/')
        .next()
        .and_then(|n| n.rsplit_once('.'))
        .map(|(_, e)| e.to_ascii_lowercase());
    let (name, textual) = match ext.as_deref() {
        Some("md" | "markdown") => ("text/markdown", true),
        Some("txt") => ("text/plain", true),
        Some("json") => ("application/json", true),
        Some("yaml" | "yml") => ("application/yaml", true),
        Some("toml") => ("application/toml", true),
        Some("csv") => ("text/csv", true),
        Some("html" | "htm") => ("text/html", true),
        Some("xml") => ("application/xml", true),
        Some("py") => ("text/x-python", true),
        Some("sh") => ("application/x-sh", true),
        Some("js" | "mjs") => ("text/javascript", true),
        Some("ts") => ("application/typescript", true),
        Some("rs") => ("text/x-rust", true),
        Some("svg") => ("image/svg+xml", true),
        Some("png") => ("image/png", false),
        Some("jpg" | "jpeg") => ("image/jpeg", false),
        Some("gif") => ("image/gif", false),
        Some("webp") => ("image/webp", false),
        Some("pdf") => ("application/pdf", false),
        Some("zip") => ("application/zip", false),
        _ if std::str::from_utf8(bytes).is_ok() && !bytes.contains(&0) => ("text/plain", true),
        _ => ("application/octet-stream", false),
    };
    Mime { name, textual }
}

impl ServerInner {
    /// Answers a method of the skills extension, or `None` for any other method (or when the server
    /// serves no skills). `stamp` is given for 2026-07-28 requests.
    pub(crate) fn skills_request(
        &self,
        method: &str,
        params: Option<&RawValue>,
        stamp: Option<&Stamp<'_>>,
    ) -> Option<Result<Box<RawValue>, ErrorObject>> {
        let catalog = self.skills.as_ref()?;
        Some(match method {
            methods::SKILLS_LIST => self.page(
                &catalog.entries,
                params,
                "skills",
                |r| &r.entry,
                |r| r.cache,
                stamp,
                None,
            ),
            methods::SKILLS_GET => self.get_skill(catalog, params, stamp),
            methods::RESOURCES_DIRECTORY_READ => {
                let p: ReadDirectoryParams = match parse_params(params) {
                    Ok(p) => p,
                    Err(e) => return Some(Err(e)),
                };
                match catalog.directories.get(&p.uri) {
                    Some(set) => {
                        self.page(set, params, "resources", |c| &c.0, |_| None, stamp, None)
                    }
                    None => Err(ErrorObject::invalid_params(format!(
                        "Invalid params: {} is not a directory this server serves",
                        p.uri
                    ))
                    .with_data(serde_json::json!({ "uri": p.uri }))),
                }
            }
            _ => return None,
        })
    }

    fn get_skill(
        &self,
        catalog: &SkillCatalog,
        params: Option<&RawValue>,
        stamp: Option<&Stamp<'_>>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let p: GetSkillParams = parse_params(params)?;
        let Some(route) = catalog.entries.get(&p.uri) else {
            return Err(ErrorObject::invalid_params(format!(
                "Invalid params: no skill is served at {}",
                p.uri
            ))
            .with_data(serde_json::json!({ "uri": p.uri })));
        };
        #[derive(serde::Serialize)]
        struct Body<'a> {
            skill: &'a SkillEntry,
        }
        let body = Body {
            skill: &route.entry,
        };
        match stamp {
            None => to_raw(&body),
            Some(s) => Stamp {
                result_type: s.result_type.clone(),
                cache: route.cache.or(s.cache),
                server_info: s.server_info,
            }
            .apply(&body, None),
        }
    }
}

#[cfg(all(test, feature = "skills"))]
mod tests {
    use super::*;

    const PDF: &str = "---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\n\nUse references/FORMS.md.\n";

    fn build(skills: Vec<Skill>) -> Result<SkillCatalog, SkillError> {
        SkillCatalog::build(skills).map(|(c, _)| c)
    }

    #[test]
    fn a_skill_built_in_code_gets_its_uris_manifest_and_directories() {
        let (catalog, routes) = SkillCatalog::build(vec![Skill::new(PDF)
            .file("references/FORMS.md", "Forms.\n")
            .file("scripts/fill.py", "print(1)\n")])
        .unwrap();
        let entry = &catalog.entries.items[0].entry;
        assert_eq!(entry.uri, "skill://pdf-processing/SKILL.md");
        let SkillResources::Files(files) = &entry.resources else {
            panic!("a manifest")
        };
        let uris: Vec<&str> = files.iter().map(|f| f.uri.as_str()).collect();
        assert_eq!(
            uris,
            [
                "skill://pdf-processing/SKILL.md",
                "skill://pdf-processing/references/FORMS.md",
                "skill://pdf-processing/scripts/fill.py"
            ]
        );
        assert_eq!(files[0], SkillFile::of(&entry.uri, PDF.as_bytes()));
        assert_eq!(routes[0].resource.name, "pdf-processing");
        assert_eq!(
            routes[0].resource.mime_type.as_deref(),
            Some("text/markdown")
        );

        let root = &catalog.directories["skill://pdf-processing"];
        let kids: Vec<(&str, Option<&str>)> = root
            .items
            .iter()
            .map(|c| (c.0.uri.as_str(), c.0.mime_type.as_deref()))
            .collect();
        assert_eq!(
            kids,
            [
                ("skill://pdf-processing/SKILL.md", Some("text/markdown")),
                (
                    "skill://pdf-processing/references",
                    Some(DIRECTORY_MIME_TYPE)
                ),
                ("skill://pdf-processing/scripts", Some(DIRECTORY_MIME_TYPE)),
            ]
        );
        assert_eq!(
            catalog.directories["skill://pdf-processing/scripts"].items[0]
                .0
                .mime_type
                .as_deref(),
            Some("text/x-python")
        );
        assert!(catalog
            .file("skill://pdf-processing/scripts/fill.py")
            .is_some());
        assert!(catalog.file("skill://pdf-processing/scripts").is_none());
    }

    #[test]
    fn a_path_prefix_and_odd_characters_are_encoded() {
        let c = build(vec![Skill::new(PDF)
            .under("acme co/docs")
            .file("my notes.md", "x")])
        .unwrap();
        let entry = &c.entries.items[0].entry;
        assert_eq!(entry.uri, "skill://acme%20co/docs/pdf-processing/SKILL.md");
        assert!(entry
            .resources
            .file("skill://acme%20co/docs/pdf-processing/my%20notes.md")
            .is_some());
    }

    #[test]
    fn malformed_skills_are_refused_with_the_file_and_the_problem() {
        let cases: Vec<(Skill, &str)> = vec![
            (Skill::new("no front matter"), "must begin with YAML front matter"),
            (Skill::new("---\nname: PDF\ndescription: d\n---\n"), "lowercase letters"),
            (
                Skill::new("---\nname: x\ndescription: d\nmetadata:\n  io.modelcontextprotocol/k: v\n---\n"),
                "reserved",
            ),
            (Skill::new(PDF).file("../escape.md", "x"), "would leave the skill's directory"),
            (Skill::new(PDF).file("a//b.md", "x"), "empty path segment"),
            (Skill::new(PDF).file("SKILL.md", "x"), "given by Skill::new"),
            (Skill::new(PDF).file("a.md", "x").file("a.md", "y"), "given twice"),
            (
                Skill::new(PDF).file("big.bin", vec![0u8; MAX_SKILL_BYTES as usize]),
                "over the 16777216 bytes",
            ),
        ];
        for (skill, want) in cases {
            let err = build(vec![skill]).err().expect("refused");
            assert!(err.to_string().contains(want), "{err} (wanted {want})");
        }
        let many =
            (0..MAX_SKILL_FILES).fold(Skill::new(PDF), |s, i| s.file(format!("f{i}.txt"), "x"));
        let err = build(vec![many]).err().unwrap();
        assert_eq!(err.file, "skill://pdf-processing/SKILL.md");
        assert!(err.problem.contains("513 files"), "{err}");
        let err = build(vec![Skill::new(PDF), Skill::new(PDF)]).err().unwrap();
        assert!(err.problem.contains("two skills"), "{err}");
    }

    #[test]
    fn binary_files_are_served_as_base64_and_text_as_text() {
        let c = build(vec![Skill::new(PDF)
            .file("logo.png", vec![0x89, b'P', 0, 1])
            .file("notes", "plain")])
        .unwrap();
        let contents = |uri: &str| c.files[uri].handler.contents.clone();
        assert!(matches!(
            contents("skill://pdf-processing/logo.png"),
            ResourceContents::Blob { .. }
        ));
        assert!(matches!(
            contents("skill://pdf-processing/notes"),
            ResourceContents::Text { .. }
        ));
    }
}
