//! Emits the bindings: one module per tool (its `Params`, its `Output`, the types of its definitions), a client
//! with one async method per tool, all formatted with prettyplease. Types shared by many tools (an OpenAPI
//! spec's components) can live in one module of their own that the tool modules refer to; tool modules can
//! be grouped (one module per tag).

use crate::derives::{trim_serde_derives, SerdeDerives, Uses};
use crate::deserialize::write_deserialize;
use crate::names::{snake_ident, Namer};
use crate::normalize::{takes_no_arguments, Extras, Normalizer};
use crate::string_enums::write_string_enums;
use crate::typegen::generate_types;
use crate::{Options, Warning};
use mcp_runtime::protocol::Tool;
use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::{format_ident, quote};
use std::collections::BTreeMap;

/// Crates the generated code reaches through `::mcp_runtime`, since it may depend on nothing else.
const REEXPORTED: &[&str] = &["serde", "serde_json", "schemars"];

/// One tool's generated code: its module and its method on the client.
pub struct ToolModule {
    /// The module's name (the tool's name as a Rust identifier, made unique).
    pub ident: String,
    /// The module: the tool's parameter and output types and its `NAME`.
    pub tokens: TokenStream,
    /// The client's method that calls the tool.
    pub method: TokenStream,
}

/// Types generated once for the whole file, which tool modules refer to instead of generating their own.
#[derive(Debug, Clone, Default)]
pub struct SharedTypes {
    /// `#/$defs/Pet` → `Pet`, the type's name in the shared module.
    pub names: BTreeMap<String, String>,
    /// The shared module's name (`components`), a sibling of the tool modules (or of their groups).
    pub module: String,
}

/// Where a tool's module goes.
#[derive(Debug, Clone)]
pub struct Job<'a> {
    /// The tool to generate.
    pub tool: &'a Tool,
    /// Its module's name, a unique Rust identifier.
    pub ident: String,
    /// The group module it sits in (`repos`), if any.
    pub group: Option<String>,
}

/// A tool's module with every type generated locally (no shared module), at the file's root. Warnings go to
/// `warnings`.
pub fn tool_module(tool: &Tool, ident: String, warnings: &mut Vec<Warning>) -> ToolModule {
    tool_module_with(tool, ident, None, 0, SerdeDerives::Both, warnings)
}

/// A tool's module; `shared` types are named by path, `depth` module levels below the file's root.
pub fn tool_module_with(
    tool: &Tool,
    ident: String,
    shared: Option<&SharedTypes>,
    depth: usize,
    derives: SerdeDerives,
    warnings: &mut Vec<Warning>,
) -> ToolModule {
    let no_arguments = takes_no_arguments(&tool.input_schema);
    let mut normalizer = Normalizer::new(&tool.name, &["Params", "Output", "NAME"]);
    if let Some(shared) = shared {
        let up = "super::".repeat(depth + 1);
        normalizer = normalizer.with_external(
            shared
                .names
                .iter()
                .map(|(r, name)| (r.clone(), format!("{up}{}::{name}", shared.module)))
                .collect(),
        );
    }
    if !no_arguments {
        normalizer.add_root("Params", "/inputSchema", &tool.input_schema);
    }
    // An output that is a shared type as it stands is that type, named, not a newtype around it.
    let output_alias = shared.and_then(|shared| {
        let o = tool.output_schema.as_ref()?;
        let r = o
            .get("$ref")
            .and_then(|r| r.as_str())
            .filter(|_| o.len() == 1)?;
        let name = shared.names.get(r)?;
        let path: TokenStream = format!("{}{}::{name}", "super::".repeat(depth + 1), shared.module)
            .parse()
            .ok()?;
        Some(quote! {
            /// The tool's output.
            pub type Output = #path;
        })
    });
    if let (Some(output), None) = (&tool.output_schema, &output_alias) {
        normalizer.add_root("Output", "/outputSchema", output);
    }
    let (defs, mut found, extras) = normalizer.finish_with_extras();
    warnings.append(&mut found);
    let types = if defs.is_empty() {
        TokenStream::new()
    } else {
        let (types, mut found) = generate_types(&tool.name, defs, &extras.replacements);
        warnings.append(&mut found);
        let uses = (derives == SerdeDerives::AsUsed).then(Uses::tool);
        tidy_items(
            reexported_paths(restore_renamed(types, &extras)),
            depth,
            uses.as_ref(),
        )
    };
    let params = if no_arguments {
        quote! {
            /// This tool takes no arguments.
            #[derive(::mcp_runtime::serde::Serialize, ::mcp_runtime::serde::Deserialize, Debug, Clone, Copy, Default, PartialEq, Eq)]
            pub struct Params {}
        }
    } else {
        TokenStream::new()
    };
    let name = &tool.name;
    let description = tool.description.as_deref().or(tool.title.as_deref());
    // Bindings of a spec carry its long descriptions once, on the client's methods; the module says what it is.
    let docs = match shared {
        Some(_) => doc_attrs(description.map(|d| d.trim().split("\n\n").next().unwrap_or(d))),
        None => doc_attrs(description),
    };
    let module = format_ident!("{}", ident);
    let output_alias = output_alias.unwrap_or_default();
    let tokens = quote! {
        #(#docs)*
        #[allow(clippy::all, clippy::pedantic, warnings)]
        pub mod #module {
            use ::mcp_runtime::serde;
            /// The tool's name on the wire.
            pub const NAME: &str = #name;
            #params
            #output_alias
            #types
        }
    };
    let method = method(tool, &module, no_arguments);
    ToolModule {
        ident,
        tokens: add_serde_crate_attrs(tokens),
        method,
    }
}

fn method(tool: &Tool, module: &Ident, no_arguments: bool) -> TokenStream {
    let mut docs = doc_attrs(tool.description.as_deref().or(tool.title.as_deref()));
    if !docs.is_empty() {
        docs.extend(doc_attrs(Some("")));
    }
    // What every method returns is said once, on the client.
    docs.extend(doc_attrs(Some(&format!(
        "Calls `{}`.",
        tool.name.replace('`', "'")
    ))));
    let (output, call) = if tool.output_schema.is_some() {
        (quote!(#module::Output), quote!(call_structured))
    } else {
        (
            quote!(::std::vec::Vec<::mcp_runtime::protocol::ContentBlock>),
            quote!(call_content),
        )
    };
    if no_arguments {
        quote! {
            #(#docs)*
            pub async fn #module(&self) -> ::std::result::Result<#output, ToolCallError> {
                ::mcp_runtime::codegen_support::#call(&self.inner, #module::NAME, &#module::Params {}).await
            }
        }
    } else {
        quote! {
            #(#docs)*
            pub async fn #module(&self, params: &#module::Params) -> ::std::result::Result<#output, ToolCallError> {
                ::mcp_runtime::codegen_support::#call(&self.inner, #module::NAME, params).await
            }
        }
    }
}

/// `#[doc = "..."]` lines; prettyplease prints them as `///` comments.
fn doc_attrs(text: Option<&str>) -> Vec<TokenStream> {
    let Some(text) = text else { return Vec::new() };
    let text = text.trim_end();
    if text.is_empty() {
        return vec![quote!(#[doc = ""])];
    }
    text.lines()
        .map(|line| {
            let line = format!(" {}", line.trim_end());
            quote!(#[doc = #line])
        })
        .collect()
}

/// Identifiers for tools: sorted by name, a tool whose name is already its identifier keeps it and the others
/// are numbered around it (`ping` stays `ping` and `Ping` becomes `ping_2`, whatever their order).
pub fn idents<'a>(tools: impl IntoIterator<Item = &'a Tool>) -> Vec<(&'a Tool, String)> {
    let mut sorted: Vec<&Tool> = tools.into_iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    let mut namer = Namer::default();
    let mut idents = vec![String::new(); sorted.len()];
    for exact in [true, false] {
        for (i, tool) in sorted.iter().enumerate() {
            if (snake_ident(&tool.name) == tool.name) == exact {
                idents[i] = namer.unique(snake_ident(&tool.name));
            }
        }
    }
    sorted.into_iter().zip(idents).collect()
}

/// The whole file, one module per tool.
pub fn bindings(tools: &[Tool], options: &Options, warnings: &mut Vec<Warning>) -> String {
    let jobs: Vec<Job> = idents(tools)
        .into_iter()
        .map(|(tool, ident)| Job {
            tool,
            ident,
            group: None,
        })
        .collect();
    files(&jobs, options, None, SerdeDerives::Both, warnings).joined()
}

/// Bindings as files: the root (client, error type), the shared module, and one part per group (or the
/// ungrouped tool modules).
#[derive(Debug, Clone, Default)]
pub struct Files {
    /// The header, the client and the error module.
    pub root: String,
    /// The shared types' module name and its contents (without the `pub mod` around them).
    pub shared: Option<(String, String)>,
    /// Group name → the group's contents: an `impl` of the client with its methods, and its tool modules.
    pub groups: Vec<(String, String)>,
    /// Tool modules outside any group.
    pub modules: String,
}

impl Files {
    /// Everything in one file.
    pub fn joined(&self) -> String {
        let mut out = self.root.clone();
        if let Some((name, body)) = &self.shared {
            out.push_str(&wrap(name, body));
        }
        for (name, body) in &self.groups {
            out.push_str(&wrap(name, body));
        }
        out.push_str(&self.modules);
        out
    }

    /// One file per module: `mod.rs` declares the others (`components.rs`, one per group).
    pub fn split(&self) -> Vec<(String, String)> {
        let mut root = self.root.clone();
        let mut out = Vec::new();
        let mut declare = |name: &str, body: &str, out: &mut Vec<(String, String)>| {
            root.push_str(&format!("pub mod {name};\n"));
            out.push((format!("{name}.rs"), body.to_string()));
        };
        if let Some((name, body)) = &self.shared {
            declare(name, body, &mut out);
        }
        for (name, body) in &self.groups {
            declare(name, body, &mut out);
        }
        root.push_str(&self.modules);
        out.insert(0, ("mod.rs".into(), root));
        out
    }
}

fn wrap(name: &str, body: &str) -> String {
    let mut out = format!("pub mod {name} {{\n");
    for line in body.lines() {
        if line.is_empty() {
            out.push('\n');
        } else {
            out.push_str("    ");
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str("}\n");
    out
}

/// Bindings for `jobs`, with the tool modules referring to `shared` types when given.
pub fn files(
    jobs: &[Job],
    options: &Options,
    shared: Option<(&SharedTypes, String)>,
    derives: SerdeDerives,
    warnings: &mut Vec<Warning>,
) -> Files {
    let shared_names = shared.as_ref().map(|(s, _)| *s);
    let mut modules = String::new();
    let mut root_methods = Vec::new();
    let mut groups: BTreeMap<String, (Vec<TokenStream>, String)> = BTreeMap::new();
    for (job, done) in jobs
        .iter()
        .zip(formatted_modules(jobs, shared_names, derives))
    {
        // Token streams cannot cross threads; a method comes back as text and is parsed here (it is short).
        let method = done.method.parse::<TokenStream>().unwrap_or_default();
        warnings.extend(done.warnings);
        match &job.group {
            Some(g) => {
                let entry = groups.entry(g.clone()).or_default();
                entry.0.push(method);
                entry.1.push_str(&done.module);
            }
            None => {
                root_methods.push(method);
                modules.push_str(&done.module);
            }
        }
    }
    let client = format_ident!("{}", crate::names::camel_ident(&options.client_name));
    let groups: Vec<(String, String)> = groups
        .into_iter()
        .map(|(name, (methods, modules))| {
            let block = quote! {
                #[allow(clippy::all, clippy::pedantic, dead_code)]
                impl super::#client {
                    #(#methods)*
                }
            };
            (name, format!("{}{modules}", format_file(block)))
        })
        .collect();
    // The error type of typify's conversions, when some type has one (unused, it would be dead code).
    let parts = std::iter::once(modules.as_str())
        .chain(shared.as_ref().map(|(_, body)| body.as_str()))
        .chain(groups.iter().map(|(_, body)| body.as_str()));
    let error_module = uses_error_module(parts).then(error_module);
    let client_doc = format!(
        " A typed client for the tools of `{}`.",
        options.server_label.replace('`', "'")
    );
    let client_more = [
        "",
        " Each method calls the tool of its name and returns the tool's `structuredContent` as its",
        " module's `Output`, or its content blocks when the tool declares no output schema; a result with",
        " `isError` is [`ToolCallError::Tool`].",
    ];
    let file = quote! {
        pub use ::mcp_runtime::codegen_support::ToolCallError;

        #[doc = #client_doc]
        #(#[doc = #client_more])*
        pub struct #client {
            inner: ::mcp_runtime::Client,
        }

        #[allow(clippy::all, clippy::pedantic, dead_code)]
        impl #client {
            /// Wraps a connected client.
            pub fn new(inner: ::mcp_runtime::Client) -> Self {
                Self { inner }
            }
            /// The underlying client, for everything that is not a tool call.
            pub fn inner(&self) -> &::mcp_runtime::Client {
                &self.inner
            }
            /// Unwraps the underlying client.
            pub fn into_inner(self) -> ::mcp_runtime::Client {
                self.inner
            }
            #(#root_methods)*
        }

        #error_module
    };
    let header = format!(
        "// Generated by mcp-codegen from {}. Do not edit: regenerate instead.\n\n",
        options.server_label.replace('\n', " ")
    );
    Files {
        root: format!("{header}{}", format_file(file)),
        shared: shared.map(|(s, body)| (s.module.clone(), body)),
        groups,
        modules,
    }
}

/// The shared module's contents from typify's tokens for the shared definitions; with `uses`, each type
/// derives only the serde traits its direction needs.
pub fn shared_module(types: TokenStream, extras: &Extras, uses: Option<&Uses>) -> String {
    let body = tidy_items(reexported_paths(restore_renamed(types, extras)), 0, uses);
    let tokens = quote! {
        #![allow(clippy::all, clippy::pedantic, warnings)]
        use ::mcp_runtime::serde;
        #body
    };
    format_file(add_serde_crate_attrs(tokens))
}

/// One tool's module, formatted, and its client method as text.
struct FormattedModule {
    module: String,
    method: String,
    warnings: Vec<Warning>,
}

/// Types and formatting for every tool, in the order given. Tools are independent, so they are split
/// across the machine's cores; the result is the same whatever the number of threads.
fn formatted_modules(
    jobs: &[Job],
    shared: Option<&SharedTypes>,
    derives: SerdeDerives,
) -> Vec<FormattedModule> {
    let one = |job: &Job| {
        let mut warnings = Vec::new();
        let depth = usize::from(job.group.is_some());
        let m = tool_module_with(
            job.tool,
            job.ident.clone(),
            shared,
            depth,
            derives,
            &mut warnings,
        );
        FormattedModule {
            module: format_file(m.tokens),
            method: m.method.to_string(),
            warnings,
        }
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len().div_ceil(8))
        .max(1);
    if threads == 1 {
        return jobs.iter().map(one).collect();
    }
    // Tools differ a lot in size, so workers take the next tool as they finish one rather than a fixed
    // share.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let worker = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(job) = jobs.get(i) else { break done };
            done.push((i, one(job)));
        }
    };
    let mut results: Vec<Option<FormattedModule>> = Vec::new();
    results.resize_with(jobs.len(), || None);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads).map(|_| scope.spawn(worker)).collect();
        for handle in handles {
            // A worker cannot panic (typify runs under catch_unwind); if one did, the tools it had taken
            // are done again below, so nothing is lost silently.
            for (i, m) in handle.join().unwrap_or_default() {
                results[i] = Some(m);
            }
        }
    });
    results
        .into_iter()
        .zip(jobs)
        .map(|(m, job)| m.unwrap_or_else(|| one(job)))
        .collect()
}

fn format_file(tokens: TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(parsed) => crate::string_enums::lay_out(&prettyplease::unparse(&parsed)),
        // Unreachable with the tokens we build, but a generator never panics: emit them unformatted.
        Err(e) => format!("// mcp-codegen could not format this part: {e}\n{tokens}\n"),
    }
}

/// How generated code names the error type of typify's conversions (`self::error::ConversionError`, after
/// formatting); a file carries the error module only if some module uses it.
const ERROR_PATH: &str = "error::ConversionError";

/// Whether generated code in `parts` names the conversions' error type.
fn uses_error_module<'a>(mut parts: impl Iterator<Item = &'a str>) -> bool {
    parts.any(|part| part.contains(ERROR_PATH))
}

/// typify's items tidied: without the `mod error` it emits with every type space (the file carries one,
/// shared by all tools, `depth` module levels above the types), without the conversions serde makes
/// redundant, with prelude types by their short names, and, given `uses`, with only the serde derives each
/// type's direction needs.
fn tidy_items(types: TokenStream, depth: usize, uses: Option<&Uses>) -> TokenStream {
    let Ok(mut file) = syn::parse2::<syn::File>(types.clone()) else {
        return types;
    };
    file.items
        .retain(|item| !matches!(item, syn::Item::Mod(m) if m.ident == "error"));
    prune_conversions(&mut file.items);
    drop_name_docs(&mut file.items);
    let mut written = false;
    if let Some(uses) = uses {
        trim_serde_derives(&mut file.items, uses);
    }
    let string_enums = write_string_enums(&mut file.items);
    if uses.is_some() {
        // A spec's bindings are large: their `Deserialize` is written, not derived (see `deserialize`).
        written = write_deserialize(&mut file.items);
    }
    let defined: std::collections::BTreeSet<String> = file
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s) => Some(s.ident.to_string()),
            syn::Item::Enum(e) => Some(e.ident.to_string()),
            syn::Item::Type(t) => Some(t.ident.to_string()),
            syn::Item::Mod(m) => Some(m.ident.to_string()),
            _ => None,
        })
        .collect();
    let items: Vec<TokenStream> = file
        .items
        .iter()
        .map(|item| prelude_paths(quote!(#item), &defined))
        .collect();
    let up: TokenStream = "super::".repeat(depth + 1).parse().unwrap_or_default();
    let uses_error = items.iter().any(|i| i.to_string().contains("error ::"));
    let import = uses_error.then(|| quote!(use #up error;));
    let helpers = match (written, string_enums) {
        (true, true) => Some(quote!(
            use ::mcp_runtime::codegen_support::{de, string_enum};
        )),
        (true, false) => Some(quote!(
            use ::mcp_runtime::codegen_support::de;
        )),
        (false, true) => Some(quote!(
            use ::mcp_runtime::codegen_support::string_enum;
        )),
        (false, false) => None,
    };
    quote! {
        #import
        #helpers
        #(#items)*
    }
}

/// The prelude's types, which typify names by their full paths: `::std::string::String` → `String`, also in
/// serde's attributes (`"::std::option::Option::is_none"`), unless the module defines a type of that name.
const PRELUDE: &[(&str, &str)] = &[
    ("option", "Option"),
    ("string", "String"),
    ("vec", "Vec"),
    ("boxed", "Box"),
];

fn prelude_paths(tokens: TokenStream, defined: &std::collections::BTreeSet<String>) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut i = 0;
    let colons = |a: Option<&TokenTree>, b: Option<&TokenTree>| {
        matches!((a, b), (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':')
    };
    let ident_is =
        |t: Option<&TokenTree>, name: &str| matches!(t, Some(TokenTree::Ident(x)) if x == name);
    while i < trees.len() {
        let leading = i == 0 || !matches!(&trees[i - 1], TokenTree::Ident(_));
        if leading && colons(trees.get(i), trees.get(i + 1)) && ident_is(trees.get(i + 2), "std") {
            let found = PRELUDE.iter().find(|(module, ty)| {
                colons(trees.get(i + 3), trees.get(i + 4))
                    && ident_is(trees.get(i + 5), module)
                    && colons(trees.get(i + 6), trees.get(i + 7))
                    && ident_is(trees.get(i + 8), ty)
                    && !defined.contains(*ty)
            });
            if let Some((_, ty)) = found {
                out.push(TokenTree::Ident(Ident::new(ty, Span::call_site())));
                i += 9;
                continue;
            }
        }
        match &trees[i] {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), prelude_paths(g.stream(), defined));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            TokenTree::Literal(lit) => {
                let text = lit.to_string();
                let short = PRELUDE.iter().find_map(|(module, ty)| {
                    let prefix = format!("\"::std::{module}::{ty}::");
                    text.strip_prefix(&prefix)
                        .filter(|_| !defined.contains(*ty))
                        .map(|rest| format!("\"{ty}::{rest}"))
                });
                match short.and_then(|s| s.parse::<Literal>().ok()) {
                    Some(mut l) => {
                        l.set_span(lit.span());
                        out.push(TokenTree::Literal(l));
                    }
                    None => out.push(trees[i].clone()),
                }
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// typify documents a type that has no description with its own name (`///`Params``), which says nothing
/// the item does not: such a doc goes.
fn drop_name_docs(items: &mut [syn::Item]) {
    for item in items {
        let (ident, attrs) = match item {
            syn::Item::Struct(s) => (&s.ident, &mut s.attrs),
            syn::Item::Enum(e) => (&e.ident, &mut e.attrs),
            _ => continue,
        };
        let name = format!("`{ident}`");
        let docs: Vec<Option<String>> = attrs
            .iter()
            .filter(|a| a.path().is_ident("doc"))
            .map(|a| match &a.meta {
                syn::Meta::NameValue(nv) => {
                    crate::serde_attrs::string(&nv.value).map(|s| s.value())
                }
                _ => None,
            })
            .collect();
        if docs.len() == 1 && docs[0].as_deref().map(str::trim) == Some(name.as_str()) {
            attrs.retain(|a| !a.path().is_ident("doc"));
        }
    }
}

/// typify gives every string enum `FromStr`, and `TryFrom<&str>`, `TryFrom<&String>` and `TryFrom<String>`
/// that only call `parse`; in a spec's bindings they are a third of the code, and serde already parses the
/// enum. They go (an enum keeps `Display`), unless serde deserializes the type through one
/// (`#[serde(try_from = ...)]`).
fn prune_conversions(items: &mut Vec<syn::Item>) {
    let type_name = |ty: &syn::Type| match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    };
    let trait_name = |i: &syn::ItemImpl| {
        i.trait_
            .as_ref()
            .and_then(|(_, path, _)| path.segments.last())
            .map(|s| s.ident.to_string())
    };
    let parsed: std::collections::BTreeSet<String> = items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Impl(i) if trait_name(i).as_deref() == Some("FromStr") => {
                type_name(&i.self_ty)
            }
            _ => None,
        })
        .collect();
    let through_try_from: std::collections::BTreeSet<String> = items
        .iter()
        .filter_map(|item| {
            let (ident, attrs) = match item {
                syn::Item::Struct(s) => (&s.ident, &s.attrs),
                syn::Item::Enum(e) => (&e.ident, &e.attrs),
                _ => return None,
            };
            attrs
                .iter()
                .any(|a| {
                    let text = quote!(#a).to_string();
                    text.contains("try_from") || text.contains("from =")
                })
                .then(|| ident.to_string())
        })
        .collect();
    let enums: std::collections::BTreeSet<String> = items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Enum(e) => Some(e.ident.to_string()),
            _ => None,
        })
        .collect();
    items.retain(|item| {
        let syn::Item::Impl(i) = item else {
            return true;
        };
        if trait_name(i).as_deref() == Some("FromStr") {
            // An enum parses through serde as well; its `FromStr` goes with its `TryFrom`s.
            return type_name(&i.self_ty)
                .is_none_or(|ty| !enums.contains(&ty) || through_try_from.contains(&ty));
        }
        if trait_name(i).as_deref() != Some("TryFrom") {
            return true;
        }
        let Some(ty) = type_name(&i.self_ty) else {
            return true;
        };
        let from_text = i
            .trait_
            .as_ref()
            .map(|(_, path, _)| quote!(#path).to_string())
            .unwrap_or_default();
        let from_string = from_text.contains("str") || from_text.contains("String");
        !(from_string && parsed.contains(&ty) && !through_try_from.contains(&ty))
    });
}

/// Puts back the wire names of properties the normalizer renamed (see `Normalizer::distinct_fields`):
/// every string literal holding a marked name is replaced by the real one.
fn restore_renamed(tokens: TokenStream, extras: &Extras) -> TokenStream {
    if extras.renamed.is_empty() {
        return tokens;
    }
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), restore_renamed(g.stream(), extras));
                group.set_span(g.span());
                TokenTree::Group(group)
            }
            TokenTree::Literal(lit) => {
                let text = lit.to_string();
                let Ok(syn::Lit::Str(s)) = syn::parse_str::<syn::Lit>(&text) else {
                    return TokenTree::Literal(lit);
                };
                let value = s.value();
                match extras
                    .renamed
                    .iter()
                    .find(|(marked, _)| value.contains(marked.as_str()))
                {
                    Some(_) => {
                        let mut v = value;
                        for (marked, real) in &extras.renamed {
                            v = v.replace(marked.as_str(), real);
                        }
                        let mut l = Literal::string(&v);
                        l.set_span(lit.span());
                        TokenTree::Literal(l)
                    }
                    None => TokenTree::Literal(lit),
                }
            }
            other => other,
        })
        .collect()
}

/// The error type of typify's `TryFrom` and `FromStr` implementations.
fn error_module() -> TokenStream {
    quote! {
        /// Error from a `TryFrom` or `FromStr` implementation of a generated type.
        pub mod error {
            /// Error from a `TryFrom` or `FromStr` implementation.
            pub struct ConversionError(::std::borrow::Cow<'static, str>);
            impl ::std::error::Error for ConversionError {}
            impl ::std::fmt::Display for ConversionError {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::result::Result<(), ::std::fmt::Error> {
                    ::std::fmt::Display::fmt(&self.0, f)
                }
            }
            impl ::std::fmt::Debug for ConversionError {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::result::Result<(), ::std::fmt::Error> {
                    ::std::fmt::Debug::fmt(&self.0, f)
                }
            }
            impl ::std::convert::From<&'static str> for ConversionError {
                fn from(value: &'static str) -> Self {
                    Self(value.into())
                }
            }
            impl ::std::convert::From<::std::string::String> for ConversionError {
                fn from(value: ::std::string::String) -> Self {
                    Self(value.into())
                }
            }
        }
    }
}

/// Rust's keywords: `::serde` after one of these (`pub ::serde_json::Value`, `as ::serde::de::Error`) starts a
/// crate path; after any other identifier (`my::serde`) it continues one.
const KEYWORDS_BEFORE_PATHS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "static", "struct", "trait", "type", "unsafe", "use", "where", "while", "yield",
];

/// `::serde::X` → `::mcp_runtime::serde::X`, everywhere, including inside attributes, macro calls and the
/// string literals serde's attributes hold (`skip_serializing_if = "::serde_json::Map::is_empty"`).
fn reexported_paths(tokens: TokenStream) -> TokenStream {
    let mut out = Vec::new();
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        let tree = &trees[i];
        // `::serde` starts a path unless it continues one (`my::serde`); after a keyword (`as ::serde`,
        // `for ::serde`) or a generic list (`impl<'de> ::serde`) it starts one.
        let leading = |j: usize| match j.checked_sub(1).map(|k| &trees[k]) {
            Some(TokenTree::Ident(prev)) => {
                KEYWORDS_BEFORE_PATHS.contains(&prev.to_string().as_str())
            }
            _ => true,
        };
        if let (TokenTree::Punct(a), Some(TokenTree::Punct(b)), Some(TokenTree::Ident(id))) =
            (tree, trees.get(i + 1), trees.get(i + 2))
        {
            if a.as_char() == ':'
                && a.spacing() == Spacing::Joint
                && b.as_char() == ':'
                && leading(i)
                && REEXPORTED.contains(&id.to_string().as_str())
            {
                out.push(TokenTree::Punct(a.clone()));
                out.push(TokenTree::Punct(b.clone()));
                out.push(TokenTree::Ident(Ident::new(
                    "mcp_runtime",
                    Span::call_site(),
                )));
                let mut colon = Punct::new(':', Spacing::Joint);
                colon.set_span(b.span());
                out.push(TokenTree::Punct(colon));
                out.push(TokenTree::Punct(Punct::new(':', Spacing::Alone)));
                i += 2;
                continue;
            }
        }
        match tree {
            TokenTree::Literal(lit) => {
                let text = lit.to_string();
                let renamed = REEXPORTED.iter().find_map(|krate| {
                    let prefix = format!("\"::{krate}::");
                    text.strip_prefix(&prefix)
                        .map(|rest| format!("\"::mcp_runtime::{krate}::{rest}"))
                });
                match renamed.and_then(|r| r.parse::<Literal>().ok()) {
                    Some(mut l) => {
                        l.set_span(lit.span());
                        out.push(TokenTree::Literal(l));
                    }
                    None => out.push(tree.clone()),
                }
            }
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), reexported_paths(g.stream()));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// Adds `#[serde(crate = "serde")]` after every derive of serde's traits, so the derived code names the
/// runtime's serde (every module that holds derives has `use ::mcp_runtime::serde;`).
fn add_serde_crate_attrs(tokens: TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                if let Some(TokenTree::Group(g)) = trees.get(i + 1) {
                    if g.delimiter() == Delimiter::Bracket {
                        let text = g.stream().to_string();
                        out.push(trees[i].clone());
                        if text.starts_with("derive")
                            && (text.contains("Serialize") || text.contains("Deserialize"))
                        {
                            // `serde::Deserialize` through the module's `use ::mcp_runtime::serde`: a derive
                            // list that fits on one line.
                            let short = text.replace(":: mcp_runtime :: serde ::", "serde ::");
                            match short.parse::<TokenStream>() {
                                Ok(stream) => {
                                    let mut group = Group::new(Delimiter::Bracket, stream);
                                    group.set_span(g.span());
                                    out.push(TokenTree::Group(group));
                                }
                                Err(_) => out.push(trees[i + 1].clone()),
                            }
                            // The module's `use ::mcp_runtime::serde` is what the derived code names.
                            out.extend(quote!(#[serde(crate = "serde")]));
                        } else {
                            out.push(trees[i + 1].clone());
                        }
                        i += 2;
                        continue;
                    }
                }
                out.push(trees[i].clone());
            }
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), add_serde_crate_attrs(g.stream()));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_paths_go_through_the_runtime() {
        let t = reexported_paths(quote!(
            #[derive(::serde::Serialize)]
            struct A(pub ::serde_json::Value, my::serde::X);
            #[serde(skip_serializing_if = "::serde_json::Map::is_empty")]
            struct B;
            impl<'de> ::serde::Deserialize<'de> for A {
                fn f<D: ::serde::Deserializer<'de>>(e: String) -> D::Error {
                    <D::Error as ::serde::de::Error>::custom(e)
                }
            }
        ));
        let s = t.to_string();
        assert!(s.contains(":: mcp_runtime :: serde :: Serialize"), "{s}");
        assert!(s.contains(":: mcp_runtime :: serde_json :: Value"), "{s}");
        assert!(s.contains("my :: serde :: X"), "{s}");
        assert!(
            s.contains("impl < 'de > :: mcp_runtime :: serde :: Deserialize"),
            "{s}"
        );
        assert!(
            s.contains("as :: mcp_runtime :: serde :: de :: Error"),
            "{s}"
        );
        assert!(
            s.contains("\"::mcp_runtime::serde_json::Map::is_empty\""),
            "{s}"
        );
        // Only `my::serde::X` keeps a bare `serde` segment.
        let bare = s.replace("mcp_runtime :: serde", "");
        assert_eq!(bare.matches(":: serde ::").count(), 1, "{s}");
    }

    #[test]
    fn the_error_module_comes_only_with_a_conversion_that_uses_it() {
        let tool = |name: &str, property: serde_json::Value| {
            let schema = serde_json::json!({
                "type": "object", "properties": {"code": property}, "required": ["code"]
            });
            Tool::new(name, "", schema.as_object().cloned().unwrap_or_default())
        };
        let options = Options::default();
        let mut warnings = Vec::new();
        let plain = bindings(
            &[tool("plain", serde_json::json!({"type": "string"}))],
            &options,
            &mut warnings,
        );
        assert!(!plain.contains("pub mod error"), "{plain}");
        assert!(warnings.is_empty(), "{warnings:?}");
        // A module whose conversion returns the error type brings the module in.
        let uses = "impl TryFrom<&str> for X { type Error = self::error::ConversionError; }";
        assert!(uses_error_module([plain.as_str(), uses].into_iter()));
        assert!(!uses_error_module([plain.as_str()].into_iter()));
    }

    #[test]
    fn derives_get_the_crate_attribute() {
        let t = add_serde_crate_attrs(quote!(
            mod m {
                #[derive(Debug, ::mcp_runtime::serde::Deserialize)]
                struct A;
                #[derive(Debug)]
                struct B;
            }
        ));
        let s = t.to_string();
        // The serde derive is shortened to the module's `use ::mcp_runtime::serde` and told so.
        assert_eq!(s.matches("crate = \"serde\"").count(), 1, "{s}");
        assert!(s.contains("serde :: Deserialize"), "{s}");
    }
}
