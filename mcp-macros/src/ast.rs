//! The typed model of a `#[tool]`/`#[prompt]`/`#[resource]` function, read from its signature and attributes.
//! Reading also strips the argument attributes, which Rust would not accept on parameters.

use crate::attr::{self, DefaultValue, Errors};
use crate::doc::{self, FnDoc};
use darling::util::SpannedValue;
use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{
    Attribute, FnArg, GenericArgument, Ident, Pat, PathArguments, ReturnType, Signature, Type,
};

/// What the macro is reading, for the words of its errors.
#[derive(Clone, Copy, PartialEq)]
pub enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Kind {
    pub fn attr(self) -> &'static str {
        match self {
            Kind::Tool => "tool",
            Kind::Prompt => "prompt",
            Kind::Resource => "resource",
        }
    }
    fn noun(self) -> &'static str {
        match self {
            Kind::Tool => "a tool",
            Kind::Prompt => "a prompt",
            Kind::Resource => "a resource",
        }
    }
}

pub struct Function {
    pub ident: Ident,
    pub is_async: bool,
    pub receiver: Option<syn::Receiver>,
    pub args: Vec<Arg>,
    pub output: Output,
    pub doc: FnDoc,
}

pub struct Arg {
    /// The parameter's name, also the binding the call uses.
    pub ident: Ident,
    pub ty: Type,
    /// A `Context` argument: the request's context, not part of the schema.
    pub context: bool,
    /// The name in JSON (the parameter's name, or `rename`).
    pub key: String,
    pub key_span: Span,
    /// `Option<T>`: may be absent.
    pub optional: bool,
    pub description: Option<String>,
    pub default: Option<SpannedValue<DefaultValue>>,
    /// `#[serde(...)]` and `#[schemars(...)]`, passed on to the argument's field.
    pub forwarded: Vec<Attribute>,
    pub has_rename: bool,
    /// `#[tool(header = "Name")]`: mirrored into `Mcp-Param-Name` (2026-07-28 `x-mcp-header`).
    pub header: Option<SpannedValue<String>>,
}

/// The return type: `Result<T, E>` gives `ok = T` and `fallible`.
pub struct Output {
    pub ok: Type,
    pub fallible: bool,
    pub span: Span,
}

impl Function {
    pub fn read(
        sig: &mut Signature,
        attrs: &[Attribute],
        kind: Kind,
        in_impl: bool,
    ) -> syn::Result<Function> {
        let mut errors = Errors::default();
        let noun = kind.noun();
        if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
            errors.push_spanned(&sig.generics, format!("{noun} cannot be a generic function: its schema is made from the concrete argument types; write a non-generic function that calls the generic one"));
        }
        if let syn::Safety::Unsafe(u) = &sig.safety {
            errors.push_spanned(
                u,
                format!(
                    "{noun} cannot be an `unsafe fn`: the client calls it with arbitrary arguments"
                ),
            );
        }
        if let Some(v) = &sig.variadic {
            errors.push_spanned(v, format!("{noun} cannot be variadic"));
        }
        let doc = doc::function(attrs);
        let mut receiver = None;
        let mut args: Vec<Arg> = Vec::new();
        for input in sig.inputs.iter_mut() {
            match input {
                FnArg::Receiver(r) => {
                    if !in_impl {
                        errors.push_spanned(&*r, format!("`#[{0}]` on a method needs `#[tools]` on its impl block: write `#[tools] impl Type {{ #[{0}] fn ... }}`", kind.attr()));
                    } else if !matches!(r.kind, syn::ReceiverKind::Reference(..)) {
                        errors.push_spanned(&*r, "a tool method takes `&self`: the value is shared by every call (an `Arc`), so it cannot be taken by value");
                    } else if matches!(r.kind, syn::ReceiverKind::Reference(_, _, Some(_))) {
                        errors.push_spanned(&*r, "a tool method takes `&self`, not `&mut self`: calls may run at the same time; keep mutable state behind a `Mutex` or an atomic");
                    }
                    r.attrs.clear();
                    receiver = Some(r.clone());
                }
                FnArg::Typed(pt) => {
                    let attrs = std::mem::take(&mut pt.attrs);
                    match Arg::read(pt, attrs, kind, &doc) {
                        Ok(a) => {
                            if let Some(prev) = args
                                .iter()
                                .find(|p| !a.context && !p.context && p.key == a.key)
                            {
                                let what = if a.has_rename || prev.has_rename {
                                    " (after `rename`)"
                                } else {
                                    ""
                                };
                                errors.push(syn::Error::new(
                                    a.key_span,
                                    format!("two arguments are named `{}`{what}", a.key),
                                ));
                            }
                            args.push(a);
                        }
                        Err(e) => errors.push(e),
                    }
                }
            }
        }
        let output = Output::read(&sig.output);
        errors.finish()?;
        Ok(Function {
            ident: sig.ident.clone(),
            is_async: sig.asyncness.is_some(),
            receiver,
            args,
            output,
            doc,
        })
    }

    pub fn name(&self) -> String {
        self.ident.unraw().to_string()
    }

    pub fn values(&self) -> impl Iterator<Item = &Arg> {
        self.args.iter().filter(|a| !a.context)
    }
}

impl Arg {
    fn read(
        pt: &syn::PatType,
        attrs: Vec<Attribute>,
        kind: Kind,
        fn_doc: &FnDoc,
    ) -> syn::Result<Arg> {
        let mut errors = Errors::default();
        let ident = match &*pt.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.clone()),
            other => {
                errors.push_spanned(other, format!("unsupported argument pattern: each argument of {} needs a plain name (`name: Type`), which is its name in the protocol", kind.noun()));
                None
            }
        };
        let ty = (*pt.ty).clone();
        let context = is_context(&ty);
        let mut forwarded = Vec::new();
        let mut own = Vec::new();
        for a in attrs {
            if doc::is_doc(&a) || a.path().is_ident(kind.attr()) {
                own.push(a);
            } else if kind == Kind::Tool
                && (a.path().is_ident("serde") || a.path().is_ident("schemars"))
            {
                forwarded.push(a);
            } else {
                let allowed = if kind == Kind::Tool {
                    "`///` comments, `#[tool(...)]`, `#[serde(...)]` and `#[schemars(...)]`"
                } else if kind == Kind::Prompt {
                    "`///` comments and `#[prompt(...)]`"
                } else {
                    "`///` comments"
                };
                errors.push_spanned(&a, format!("unsupported attribute on an argument of {}: only {allowed} are allowed here", kind.noun()));
            }
        }
        let parsed = if kind == Kind::Resource {
            if let Some(a) = own.iter().find(|a| a.path().is_ident("resource")) {
                errors.push_spanned(
                    a,
                    "a URI template variable takes no attributes: its name is the variable's name",
                );
            }
            Default::default()
        } else {
            attr::parse_arg(&own, kind.attr()).unwrap_or_else(|e| {
                errors.push(e);
                Default::default()
            })
        };
        let optional = option_inner(&ty).is_some();
        if !context {
            check_owned(&ty, kind, &mut errors);
        }
        if let Some(d) = &parsed.default {
            let at = |msg: &str| match &**d {
                DefaultValue::Expr(e) => syn::Error::new_spanned(e, msg),
                DefaultValue::Trait => syn::Error::new(d.span(), msg),
            };
            if context {
                errors.push(at("a `Context` argument cannot have a default: it is always the request's context"));
            } else if optional {
                errors.push(at("an `Option` argument cannot have a default: when the client leaves it out it is `None`; drop the `Option` to give it a default"));
            } else if kind != Kind::Tool {
                errors.push(at("`default` is only for tool arguments: a prompt argument is a string the client may leave out; make it `Option<String>`"));
            }
        }
        if let Some(h) = &parsed.header {
            let token = !h.is_empty()
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
            if context {
                errors.push(syn::Error::new(
                    h.span(),
                    "a `Context` argument is not part of the request, so it cannot be mirrored into a header",
                ));
            } else if !token {
                errors.push(syn::Error::new(
                    h.span(),
                    format!("`header` must be an HTTP field-name token (letters, digits, `-` and the like), not {:?}", h.as_str()),
                ));
            }
        }
        if let Some(r) = &parsed.rename {
            if context {
                errors.push(syn::Error::new(
                    r.span(),
                    "a `Context` argument has no name in the protocol, so it cannot be renamed",
                ));
            } else if r.as_str().is_empty() {
                errors.push(syn::Error::new(r.span(), "`rename` needs a non-empty name"));
            }
        }
        if context && !forwarded.is_empty() {
            errors.push_spanned(&forwarded[0], "a `Context` argument is not part of the schema: `serde` and `schemars` attributes do not apply to it");
        }
        errors.finish()?;
        let ident = ident.expect("errors returned above");
        let name = ident.unraw().to_string();
        let key = parsed
            .rename
            .as_ref()
            .map_or(name.clone(), |r| r.as_str().to_string());
        let key_span = parsed.rename.as_ref().map_or(ident.span(), |r| r.span());
        let own_doc = doc::normalize(&doc::lines(&own));
        let description = parsed
            .description
            .or(own_doc)
            .or_else(|| fn_doc.args.get(&name).cloned());
        Ok(Arg {
            ident,
            ty,
            context,
            key,
            key_span,
            optional,
            description,
            default: parsed.default,
            forwarded,
            has_rename: parsed.rename.is_some(),
            header: parsed.header,
        })
    }
}

impl Output {
    fn read(ret: &ReturnType) -> Output {
        match ret {
            ReturnType::Default => Output {
                ok: syn::parse_quote!(()),
                fallible: false,
                span: Span::call_site(),
            },
            ReturnType::Type(_, ty) => {
                let span = ty.span();
                if let Type::Path(p) = &**ty {
                    if let Some(last) = p.path.segments.last() {
                        if last.ident == "Result" {
                            if let PathArguments::AngleBracketed(a) = &last.arguments {
                                if let Some(GenericArgument::Type(ok)) = a.args.first() {
                                    return Output {
                                        ok: ok.clone(),
                                        fallible: true,
                                        span,
                                    };
                                }
                            }
                        }
                    }
                }
                Output {
                    ok: (**ty).clone(),
                    fallible: false,
                    span,
                }
            }
        }
    }
}

/// `Context` (by any path): the request's context.
pub fn is_context(ty: &Type) -> bool {
    match ty {
        Type::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Context" && s.arguments.is_empty()),
        _ => false,
    }
}

/// `T` of `Option<T>` (by any path).
pub fn option_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    match &last.arguments {
        PathArguments::AngleBracketed(a) if a.args.len() == 1 => match a.args.first()? {
            GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// Arguments are deserialized from the request into owned values: no borrows, no `impl Trait`.
fn check_owned(ty: &Type, kind: Kind, errors: &mut Errors) {
    struct Visit<'a>(&'a mut Vec<(proc_macro2::TokenStream, &'static str)>);
    impl<'ast> syn::visit::Visit<'ast> for Visit<'_> {
        fn visit_type_reference(&mut self, r: &'ast syn::TypeReference) {
            self.0
                .push((quote::ToTokens::to_token_stream(r), "borrows"));
        }
        fn visit_type_impl_trait(&mut self, t: &'ast syn::TypeImplTrait) {
            self.0.push((quote::ToTokens::to_token_stream(t), "impl"));
        }
        fn visit_lifetime(&mut self, l: &'ast syn::Lifetime) {
            self.0
                .push((quote::ToTokens::to_token_stream(l), "borrows"));
        }
    }
    let mut found = Vec::new();
    syn::visit::Visit::visit_type(&mut Visit(&mut found), ty);
    if let Some((tokens, what)) = found.first() {
        let msg = match (what, kind) {
            (&"impl", _) => "an argument cannot be `impl Trait`: its schema is made from a concrete type".to_string(),
            (_, Kind::Tool) => "a tool argument cannot borrow: arguments are deserialized from the request into owned values; use an owned type (`String` instead of `&str`, `Vec<T>` instead of `&[T]`)".to_string(),
            _ => format!("an argument of {} cannot borrow: use `String` instead of `&str`", kind.noun()),
        };
        errors.push(syn::Error::new_spanned(tokens, msg));
    }
}
