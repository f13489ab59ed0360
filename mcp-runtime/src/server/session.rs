//! One connection's session and the dispatch of every server method, in both eras.
//!
//! Each request finds its era from its own `_meta` (see [`super::era`]): a 2026-07-28 request is served
//! from what it declares about itself; any other one by the handshake-era state of this connection
//! (the lifecycle below: `initialize`, then `notifications/initialized`). Both can arrive on one
//! connection.

use super::era::{self, MetaRaw, ModernRequest, RequestMeta, Resolved, WithMeta};
use super::listen::{self, Listener};
use super::mrtr::{Binding, InputRound};
use super::session_state::{Phase, SessionState};
use super::stamp::Stamp;
use super::tasks::Plan;
use super::{Context, Eras};
use crate::connection::{Handler, Reply, RequestIn};
use crate::framing::{parse_params, to_raw};
use crate::future::BoxFuture;
use crate::protocol::*;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A handshake-era answer: the handler's result serialized straight into its response frame
/// (`hint`: the size the result is expected to have).
fn framed<T: serde::Serialize + Send + 'static>(
    id: RequestId,
    hint: usize,
    fut: BoxFuture<'static, Result<T, ErrorObject>>,
) -> Reply {
    Reply::Framed {
        fut: Box::pin(async move { crate::framing::frame::response_to(&id, &fut.await?, hint) }),
        cancellable: true,
    }
}

/// A member's JSON text, borrowed from the request.
#[derive(Clone, Copy)]
struct Json<'a>(&'a str);

impl<'de: 'a, 'a> Deserialize<'de> for Json<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&RawValue>::deserialize(d).map(|r| Json(r.get()))
    }
}

#[derive(Deserialize)]
struct CallRaw<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<Json<'a>>,
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<MetaRaw<'a>>,
    #[serde(
        rename = "inputResponses",
        borrow,
        default,
        deserialize_with = "present"
    )]
    input_responses: Option<&'a RawValue>,
    #[serde(rename = "requestState", borrow, default)]
    request_state: Option<Cow<'a, str>>,
    /// 2025-11-25: the client asks for a task.
    #[serde(borrow, default)]
    task: Option<&'a RawValue>,
}

/// A raw field that is `Some` whenever it is present, `null` included (plain `Option` reads `null` as
/// absent; an explicit `"inputResponses": null` is malformed and must be answered as such).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

impl<'a> CallRaw<'a> {
    /// The params of a call read from their members without validating them again (the whole message
    /// was parsed once already): the arguments, however large, are only skipped over. `None` for
    /// anything unusual (a key written with escapes, a repeated member, a member of the wrong type,
    /// no name), which the full parse then reports exactly as before.
    fn quick(params: Option<&'a RawValue>) -> Option<Self> {
        fn set<T>(slot: &mut Option<T>, value: T) -> Option<()> {
            slot.replace(value).is_none().then_some(())
        }
        fn text<'a>(json: &'a str) -> Option<Cow<'a, str>> {
            match serde_json::from_str::<&str>(json) {
                Ok(s) => Some(Cow::Borrowed(s)),
                Err(_) => serde_json::from_str::<String>(json).ok().map(Cow::Owned),
            }
        }
        let mut name = None;
        let mut arguments = None;
        let mut meta = None;
        let mut input_responses = None;
        let mut request_state = None;
        let mut task = None;
        for (key, value) in crate::framing::object_members(params?.get())? {
            match key {
                "\"name\"" => set(&mut name, text(value)?)?,
                "\"arguments\"" => set(&mut arguments, (value != "null").then_some(Json(value)))?,
                "\"_meta\"" => set(
                    &mut meta,
                    serde_json::from_str::<Option<MetaRaw<'a>>>(value).ok()?,
                )?,
                "\"inputResponses\"" => set(
                    &mut input_responses,
                    serde_json::from_str::<&RawValue>(value).ok()?,
                )?,
                "\"requestState\"" => set(
                    &mut request_state,
                    match value {
                        "null" => None,
                        v => Some(text(v)?),
                    },
                )?,
                "\"task\"" => set(
                    &mut task,
                    serde_json::from_str::<Option<&RawValue>>(value).ok()?,
                )?,
                k if k.contains('\\') => return None,
                _ => {}
            }
        }
        Some(CallRaw {
            name: name?,
            arguments: arguments.flatten(),
            meta: meta.flatten(),
            input_responses,
            request_state: request_state.flatten(),
            task: task.flatten(),
        })
    }
}

/// The MRTR fields of a retried request.
#[derive(Deserialize)]
struct RetryRaw<'a> {
    #[serde(
        rename = "inputResponses",
        borrow,
        default,
        deserialize_with = "present"
    )]
    input_responses: Option<&'a RawValue>,
    #[serde(rename = "requestState", borrow, default)]
    request_state: Option<Cow<'a, str>>,
}

fn empty() -> Result<Box<RawValue>, ErrorObject> {
    Ok(RawValue::from_string("{}".into()).expect("literal JSON"))
}

impl SessionState {
    fn ctx(self: &Arc<Self>, req: &RequestIn<'_>, meta: RequestMeta) -> Context {
        Context::new(
            self.clone(),
            req.id.clone(),
            req.token.clone(),
            meta.progress_token,
        )
        .with_trace(meta.trace)
    }
}

/// The session as the pump sees it.
pub struct ServerHandler(pub Arc<SessionState>);

impl Handler for ServerHandler {
    fn request(&self, req: RequestIn<'_>) -> Reply {
        if req.method == methods::TOOLS_CALL {
            return self.call_tool(&req);
        }
        let meta = match parse_params::<WithMeta<'_>>(req.params) {
            Ok(w) => w.meta.unwrap_or_default(),
            Err(e) => return Reply::Now(Err(e)),
        };
        match self.era(&meta) {
            Err(e) => Reply::Now(Err(e)),
            Ok(Some(m)) => self.modern(&req, m, meta.request_meta()),
            Ok(None) => self.legacy(&req, meta.request_meta()),
        }
    }

    fn notification(&self, method: &str, _params: Option<&RawValue>) {
        match method {
            methods::INITIALIZED => {
                let _ = self.0.phase.compare_exchange(
                    Phase::Initializing as u8,
                    Phase::Ready as u8,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                );
            }
            methods::ROOTS_LIST_CHANGED => {
                if let Some(cb) = &self.0.server.on_roots_changed {
                    cb();
                }
            }
            other => tracing::debug!(method = other, "notification ignored"),
        }
    }

    fn allows_batch(&self) -> bool {
        self.0.version.get().is_some_and(|v| v.allows_batch())
    }

    fn closed(&self) {
        self.0.phase.store(Phase::Closed as u8, Ordering::Release);
        self.0.server.tasks.session_closed(&self.0);
    }
}

impl ServerHandler {
    /// The era of a request: `None` for the handshake era, the request's declarations for 2026-07-28.
    fn era(&self, meta: &MetaRaw<'_>) -> Result<Option<Arc<ModernRequest>>, ErrorObject> {
        let eras = self.0.server.eras;
        if eras == Eras::LegacyOnly {
            return Ok(None);
        }
        if let (Some(m), true) = (self.0.preset.get(), meta.is_modern()) {
            return Ok(Some(m.clone()));
        }
        match self.0.declared.resolve(meta)? {
            Resolved::Modern(m) => Ok(Some(m)),
            Resolved::Legacy if eras == Eras::ModernOnly => Err(ErrorObject::invalid_params(
                "Invalid params: _meta is missing `io.modelcontextprotocol/protocolVersion`, which every \
                 request of protocol 2026-07-28 carries (this server speaks only 2026-07-28)",
            )),
            Resolved::Legacy => Ok(None),
            Resolved::LegacyVersionInMeta(v) => {
                if eras == Eras::Both && self.0.phase() != Phase::Connected {
                    Ok(None)
                } else {
                    Err(era::legacy_version_needs_initialize(v))
                }
            }
        }
    }

    fn stamp(&self, result_type: ResultType, cache: Option<CacheHints>) -> Stamp<'_> {
        let srv = &self.0.server;
        Stamp {
            result_type,
            cache,
            server_info: srv.info_in_results.then_some(&*srv.info_raw),
        }
    }

    // ---- the handshake era ----

    fn legacy(&self, req: &RequestIn<'_>, meta: RequestMeta) -> Reply {
        let s = &self.0;
        match req.method {
            methods::INITIALIZE => return Reply::Now(s.initialize(req.params)),
            methods::PING => return Reply::Now(empty()),
            methods::SERVER_DISCOVER if s.server.eras == Eras::LegacyOnly => {
                return Reply::Now(Err(ErrorObject::method_not_found(req.method)))
            }
            methods::SERVER_DISCOVER => {
                return Reply::Now(Err(ErrorObject::invalid_params(
                    "Invalid params: server/discover needs _meta.io.modelcontextprotocol/protocolVersion \
                     and clientCapabilities (protocol 2026-07-28)",
                )))
            }
            _ => {}
        }
        if s.phase() == Phase::Connected {
            return Reply::Now(Err(era::not_initialized(req.method)));
        }
        let srv = &s.server;
        match req.method {
            methods::TOOLS_LIST => Reply::Now(srv.list_tools(req.params, None)),
            methods::RESOURCES_LIST if srv.has_resources() => {
                Reply::Now(srv.list_resources(req.params, None))
            }
            methods::RESOURCES_TEMPLATES_LIST if srv.has_resources() => {
                Reply::Now(srv.list_resource_templates(req.params, None))
            }
            methods::RESOURCES_READ if srv.has_resources() => self.read_resource(req, meta, None),
            methods::RESOURCES_SUBSCRIBE if srv.has_resources() => {
                Reply::Now(self.subscribe(req.params, true))
            }
            methods::RESOURCES_UNSUBSCRIBE if srv.has_resources() => {
                Reply::Now(self.subscribe(req.params, false))
            }
            methods::PROMPTS_LIST if srv.has_prompts() => {
                Reply::Now(srv.list_prompts(req.params, None))
            }
            methods::PROMPTS_GET if srv.has_prompts() => self.get_prompt(req, meta, None),
            methods::COMPLETION_COMPLETE if srv.completion.is_some() => {
                self.complete(req, meta, None)
            }
            methods::LOGGING_SET_LEVEL => Reply::Now(self.set_level(req.params)),
            methods::TASKS_GET
            | methods::TASKS_RESULT
            | methods::TASKS_LIST
            | methods::TASKS_CANCEL => super::tasks::handshake_method(&self.0, req),
            // The skills extension (SEP-2640) when the server declares it; otherwise unknown.
            other => Reply::Now(
                srv.skills_request(other, req.params, None)
                    .unwrap_or_else(|| Err(ErrorObject::method_not_found(other))),
            ),
        }
    }

    // ---- 2026-07-28 ----

    fn modern(&self, req: &RequestIn<'_>, m: Arc<ModernRequest>, meta: RequestMeta) -> Reply {
        let srv = &self.0.server;
        let list = srv.cache;
        match req.method {
            methods::SERVER_DISCOVER => Reply::Now(self.discover()),
            methods::TOOLS_LIST if srv.offers_tools => Reply::Now(srv.list_tools(
                req.params,
                Some(&self.stamp(ResultType::Complete, Some(list))),
            )),
            methods::RESOURCES_LIST if srv.has_resources() => Reply::Now(srv.list_resources(
                req.params,
                Some(&self.stamp(ResultType::Complete, Some(list))),
            )),
            methods::RESOURCES_TEMPLATES_LIST if srv.has_resources() => {
                Reply::Now(srv.list_resource_templates(
                    req.params,
                    Some(&self.stamp(ResultType::Complete, Some(list))),
                ))
            }
            methods::RESOURCES_READ if srv.has_resources() => {
                self.read_resource(req, meta, Some(m))
            }
            methods::PROMPTS_LIST if srv.has_prompts() => Reply::Now(srv.list_prompts(
                req.params,
                Some(&self.stamp(ResultType::Complete, Some(list))),
            )),
            methods::PROMPTS_GET if srv.has_prompts() => self.get_prompt(req, meta, Some(m)),
            methods::COMPLETION_COMPLETE if srv.completion.is_some() => {
                self.complete(req, meta, Some(m))
            }
            methods::SUBSCRIPTIONS_LISTEN if srv.offers_listen() => self.listen(req),
            methods::TASKS_GET | methods::TASKS_UPDATE | methods::TASKS_CANCEL => {
                super::tasks::extension_method(&self.0, req, &m)
            }
            // The skills extension (SEP-2640) when the server declares it. Otherwise: removed in
            // 2026-07-28 (initialize, ping, logging/setLevel, resources/(un)subscribe), or unknown.
            other => Reply::Now(
                srv.skills_request(
                    other,
                    req.params,
                    Some(&self.stamp(ResultType::Complete, Some(list))),
                )
                .unwrap_or_else(|| Err(ErrorObject::method_not_found(other))),
            ),
        }
    }

    fn discover(&self) -> Result<Box<RawValue>, ErrorObject> {
        let srv = &self.0.server;
        #[derive(serde::Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Body<'a> {
            supported_versions: Vec<String>,
            capabilities: ServerCapabilities,
            #[serde(skip_serializing_if = "Option::is_none")]
            instructions: Option<&'a str>,
        }
        let supported_versions = match srv.eras {
            Eras::ModernOnly => vec![ProtocolVersion::MODERN.as_str().to_string()],
            _ => ProtocolVersion::supported_strings(),
        };
        self.stamp(ResultType::Complete, Some(srv.cache)).apply(
            &Body {
                supported_versions,
                capabilities: srv.capabilities(true),
                instructions: srv.instructions.as_deref(),
            },
            None,
        )
    }

    fn listen(&self, req: &RequestIn<'_>) -> Reply {
        let p: SubscriptionsListenParams = match parse_params(req.params) {
            Ok(p) => p,
            Err(e) => return Reply::Now(Err(e)),
        };
        let srv = self.0.server.clone();
        let want = p.notifications;
        // What this server honours: the acknowledgement names exactly that.
        let granted = SubscriptionFilter {
            tools_list_changed: (want.tools() && srv.offers_tools).then_some(true),
            prompts_list_changed: (want.prompts() && srv.has_prompts()).then_some(true),
            resources_list_changed: (want.resources() && srv.has_resources()).then_some(true),
            resource_subscriptions: want.resource_subscriptions.filter(|_| srv.has_resources()),
        };
        let id = req.id.clone();
        let token = req.token.clone();
        let peer = self.0.peer.clone();
        let server_info = srv.info_in_results.then(|| srv.info_raw.clone());
        Reply::Spawn {
            fut: Box::pin(async move {
                let mut ack = JsonObject::new();
                ack.insert(
                    "notifications".into(),
                    serde_json::to_value(&granted).unwrap_or_default(),
                );
                listen::tag(&mut ack, &id);
                let ack = to_raw(&ack)?;
                let _ = peer
                    .notify(
                        methods::SUBSCRIPTIONS_ACKNOWLEDGED,
                        Some(&ack),
                        Some(id.clone()),
                    )
                    .await;
                let _registration = srv.listeners.add(Listener {
                    id: id.clone(),
                    filter: granted,
                    peer,
                });
                tokio::select! {
                    _ = token.cancelled() => {}
                    _ = srv.closing.cancelled() => {}
                }
                // The server ends the subscription: a complete result says it ended gracefully.
                let mut own = JsonObject::new();
                listen::tag(&mut own, &id);
                Stamp {
                    result_type: ResultType::Complete,
                    cache: None,
                    server_info: server_info.as_deref(),
                }
                .apply(
                    &serde_json::json!({}),
                    own.remove("_meta").and_then(|v| match v {
                        serde_json::Value::Object(o) => Some(o),
                        _ => None,
                    }),
                )
            }),
            cancellable: true,
        }
    }

    /// The input round of a request that may ask for input (`None` in the handshake era, which has no
    /// rounds): the answers its retry brings, once its state is checked.
    fn input_round(
        &self,
        modern: &Option<Arc<ModernRequest>>,
        retry: &RetryRaw<'_>,
        binding: impl FnOnce() -> Binding,
    ) -> Result<Option<Arc<InputRound>>, ErrorObject> {
        if modern.is_none() {
            return Ok(None);
        }
        let answers = if retry.request_state.is_some() || retry.input_responses.is_some() {
            self.0.server.sealer.answers(
                &binding(),
                retry.request_state.as_deref(),
                retry.input_responses,
            )?
        } else {
            Default::default()
        };
        Ok(Some(InputRound::new(answers)))
    }

    fn binding(
        &self,
        method: &str,
        subject: &str,
        arguments: Option<serde_json::Value>,
    ) -> Binding {
        Binding::new(
            method,
            subject,
            arguments.as_ref(),
            self.0.principal().map(str::to_string),
        )
    }

    /// Runs a handler that may ask for input. In the handshake era its result is the response. Under
    /// 2026-07-28 it runs in its input round (`ctx` is made modern here): `input_required` when it asks for
    /// what the retry did not bring, else `finish` stamps its result. `binding` names the request a state
    /// belongs to; it is computed only when a state is sealed.
    fn run_handler<T: serde::Serialize + Send + 'static>(
        &self,
        modern: Option<(Arc<ModernRequest>, Arc<InputRound>)>,
        ctx: Context,
        handler: impl FnOnce(Context) -> BoxFuture<'static, Result<T, ErrorObject>>,
        binding: impl FnOnce(&ServerHandler) -> Binding + Send + 'static,
        finish: impl FnOnce(&ServerHandler, T) -> Result<Box<RawValue>, ErrorObject> + Send + 'static,
    ) -> Reply {
        // The handler runs in a span of its own, a child of the request's trace.
        let trace = ctx.trace_context().cloned();
        let span = |fut| crate::trace_context::instrument(trace.as_ref(), fut);
        let Some((m, round)) = modern else {
            return framed(ctx.request_id().clone(), 0, span(handler(ctx)));
        };
        let fut = span(handler(ctx.modern(m, Some(round.clone()))));
        let session = self.0.clone();
        Reply::Spawn {
            fut: Box::pin(async move {
                let h = ServerHandler(session);
                round
                    .run(
                        fut,
                        &h.0.server.sealer,
                        || binding(&h),
                        |ir| h.stamp(ResultType::InputRequired, None).apply(&ir, None),
                        |r| finish(&h, r),
                    )
                    .await
            }),
            cancellable: true,
        }
    }

    fn call_tool(&self, req: &RequestIn<'_>) -> Reply {
        let call = match CallRaw::quick(req.params).map_or_else(|| parse_params(req.params), Ok) {
            Ok(c) => c,
            Err(e) => return Reply::Now(Err(e)),
        };
        let meta = call.meta.unwrap_or_default();
        let modern = match self.era(&meta) {
            Ok(m) => m,
            Err(e) => return Reply::Now(Err(e)),
        };
        let meta = meta.request_meta();
        let srv = &self.0.server;
        match &modern {
            None if self.0.phase() == Phase::Connected => {
                return Reply::Now(Err(era::not_initialized(req.method)))
            }
            Some(_) if !srv.offers_tools => {
                return Reply::Now(Err(ErrorObject::method_not_found(req.method)))
            }
            _ => {}
        }
        // Before 2025-11-25 there were no tasks: every call is direct, and `task` an unknown field.
        let tasks_known = modern.is_some() || self.0.version() >= ProtocolVersion::V2025_11_25;
        let visible = |r: &&super::ToolRoute| srv.visible(super::Listed::Tool(&r.tool.name));
        let Some((handler, raw, plan)) =
            srv.tools
                .snapshot()
                .get(&call.name)
                .filter(visible)
                .map(|r| {
                    let plan = if tasks_known {
                        srv.tasks.plan(&srv.tools, r, modern.as_deref(), call.task)
                    } else {
                        Plan::Direct
                    };
                    (r.handler.clone(), r.raw.clone(), plan)
                })
        else {
            return Reply::Now(Err(ErrorObject::invalid_params(format!(
                "Unknown tool: {}",
                call.name
            ))
            .with_data(serde_json::json!({"field": "name"}))));
        };
        let arguments = call.arguments.map(|a| a.0).filter(|a| *a != "null");
        if modern.is_none() && raw.is_none() && matches!(plan, Plan::Direct) {
            // A direct handshake-era call: the arguments are decoded from the request's bytes where
            // they lie, and the result is serialized into the response frame (sized like the request).
            let hint = req.params.map_or(0, |p| p.get().len());
            let ctx = self.0.ctx(req, meta);
            let trace = ctx.trace_context().cloned();
            let fut = handler.call_borrowed(arguments.unwrap_or("{}"), ctx);
            let fut = crate::trace_context::instrument(trace.as_ref(), fut);
            return framed(req.id.clone(), hint, fut);
        }
        let args = super::tools::Arguments::from_borrowed(arguments);
        let name = call.name.into_owned();
        // Tasks: a task-augmented call (handshake era), or one that may become a task (2026-07-28).
        let window = match plan {
            Plan::Direct => None,
            Plan::Refuse(e) => return Reply::Now(Err(e)),
            Plan::Handshake(ttl) => {
                return super::tasks::call_handshake(
                    &self.0,
                    (req.id, meta.trace),
                    meta.progress_token,
                    name,
                    handler,
                    args,
                    ttl,
                )
            }
            Plan::Extension(window) => Some((window, name.clone())),
        };
        // Absent arguments bind like `{}`, as the handler sees them.
        let bound_args = args.clone();
        let bind = move |h: &ServerHandler| {
            h.binding(
                methods::TOOLS_CALL,
                &name,
                serde_json::from_str(bound_args.as_str()).ok(),
            )
        };
        let retry = RetryRaw {
            input_responses: call.input_responses,
            request_state: call.request_state,
        };
        let round = match self.input_round(&modern, &retry, || bind(self)) {
            Ok(r) => r,
            Err(e) => return Reply::Now(Err(e)),
        };
        let finish = |h: &ServerHandler, mut r: CallToolResult| {
            let own = r.meta.take();
            h.stamp(ResultType::Complete, None).apply(&r, own)
        };
        let modern = match (window, modern.zip(round)) {
            (Some((window, tool)), Some(modern)) => {
                let (s1, s2) = (self.0.clone(), self.0.clone());
                return super::tasks::call_extension(
                    &self.0,
                    (req, meta.trace),
                    (tool, handler, args),
                    modern,
                    window,
                    move |round| {
                        let h = ServerHandler(s1);
                        round.conclude(
                            &h.0.server.sealer,
                            || bind(&h),
                            |ir| h.stamp(ResultType::InputRequired, None).apply(&ir, None),
                        )
                    },
                    move |r| finish(&ServerHandler(s2), r),
                );
            }
            (_, modern) => modern,
        };
        let ctx = self.0.ctx(req, meta);
        if let Some(raw) = raw {
            // A direct call of a raw tool: its result goes into the frame as the JSON text it is.
            return self.run_handler(
                modern,
                ctx,
                move |ctx| raw.call(args, ctx),
                bind,
                |h, mut r: RawCallToolResult| {
                    let own = r.take_meta();
                    h.stamp(ResultType::Complete, None)
                        .apply_raw(&r, own.as_deref())
                },
            );
        }
        self.run_handler(
            modern,
            ctx,
            move |ctx| handler.call(args, ctx),
            bind,
            finish,
        )
    }

    fn read_resource(
        &self,
        req: &RequestIn<'_>,
        meta: RequestMeta,
        modern: Option<Arc<ModernRequest>>,
    ) -> Reply {
        let p: ResourceUriParams = match parse_params(req.params) {
            Ok(p) => p,
            Err(e) => return Reply::Now(Err(e)),
        };
        let Some((handler, vars, cache)) = self.0.server.find_resource(&p.uri) else {
            // 2026-07-28 reports a missing resource as invalid params; earlier versions as -32002.
            let code = if modern.is_some() {
                codes::INVALID_PARAMS
            } else {
                codes::RESOURCE_NOT_FOUND
            };
            return Reply::Now(Err(ErrorObject::new(
                code,
                format!("Resource not found: {}", p.uri),
            )
            .with_data(serde_json::json!({"uri": p.uri}))));
        };
        let uri = p.uri;
        let bound_uri = uri.clone();
        let bind = move |h: &ServerHandler| h.binding(methods::RESOURCES_READ, &bound_uri, None);
        let round = match self.retry(req.params, &modern, |s| bind(s)) {
            Ok(r) => r,
            Err(e) => return Reply::Now(Err(e)),
        };
        let read_uri = uri.clone();
        self.run_handler(
            modern.zip(round),
            self.0.ctx(req, meta),
            move |ctx| handler.read(read_uri, vars, ctx),
            bind,
            move |h, mut r: ReadResourceResult| {
                if r.contents.is_empty() {
                    // 2026-07-28 forbids an empty read: it would look like a missing resource.
                    return Err(
                        ErrorObject::invalid_params(format!("Resource not found: {uri}"))
                            .with_data(serde_json::json!({"uri": uri})),
                    );
                }
                let hints = r.cache.take().or(cache).unwrap_or(h.0.server.read_cache);
                let own = r.meta.take();
                h.stamp(ResultType::Complete, Some(hints)).apply(&r, own)
            },
        )
    }

    /// The input round of a 2026 `prompts/get` or `resources/read`: their params are small, so the retry's
    /// fields are read in a pass of their own.
    fn retry(
        &self,
        params: Option<&RawValue>,
        modern: &Option<Arc<ModernRequest>>,
        binding: impl FnOnce(&ServerHandler) -> Binding,
    ) -> Result<Option<Arc<InputRound>>, ErrorObject> {
        if modern.is_none() {
            return Ok(None);
        }
        let retry: RetryRaw<'_> = parse_params(params)?;
        self.input_round(modern, &retry, || binding(self))
    }

    fn subscribe(&self, params: Option<&RawValue>, on: bool) -> Result<Box<RawValue>, ErrorObject> {
        let p: ResourceUriParams = parse_params(params)?;
        // A caller may not subscribe to what it may not see: answered as a read of it would be.
        if on && self.0.server.visibility.is_some() && self.0.server.find_resource(&p.uri).is_none()
        {
            return Err(ErrorObject::new(
                codes::RESOURCE_NOT_FOUND,
                format!("Resource not found: {}", p.uri),
            )
            .with_data(serde_json::json!({"uri": p.uri})));
        }
        let mut subs = self
            .0
            .subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if on {
            subs.insert(p.uri);
        } else {
            subs.remove(&p.uri);
        }
        empty()
    }

    fn get_prompt(
        &self,
        req: &RequestIn<'_>,
        meta: RequestMeta,
        modern: Option<Arc<ModernRequest>>,
    ) -> Reply {
        let p: GetPromptParams = match parse_params(req.params) {
            Ok(p) => p,
            Err(e) => return Reply::Now(Err(e)),
        };
        let args = p.arguments.unwrap_or_default();
        let handler = {
            let prompts = self.0.server.prompts.snapshot();
            let visible = |_: &_| self.0.server.visible(super::Listed::Prompt(&p.name));
            let Some(route) = prompts.get(&p.name).filter(visible) else {
                return Reply::Now(Err(ErrorObject::invalid_params(format!(
                    "Unknown prompt: {}",
                    p.name
                ))
                .with_data(serde_json::json!({"field": "name"}))));
            };
            if let Err(e) = route.check_required(&args) {
                return Reply::Now(Err(e));
            }
            route.handler.clone()
        };
        let name = p.name;
        let bound_args = serde_json::to_value(&args).ok();
        let bind = move |h: &ServerHandler| h.binding(methods::PROMPTS_GET, &name, bound_args);
        let round = match self.retry(req.params, &modern, |s| bind.clone()(s)) {
            Ok(r) => r,
            Err(e) => return Reply::Now(Err(e)),
        };
        self.run_handler(
            modern.zip(round),
            self.0.ctx(req, meta),
            move |ctx| handler.get(args, ctx),
            bind,
            |h, mut r: GetPromptResult| {
                let own = r.meta.take();
                h.stamp(ResultType::Complete, None).apply(&r, own)
            },
        )
    }

    fn complete(
        &self,
        req: &RequestIn<'_>,
        meta: RequestMeta,
        modern: Option<Arc<ModernRequest>>,
    ) -> Reply {
        let p: CompleteParams = match parse_params(req.params) {
            Ok(p) => p,
            Err(e) => return Reply::Now(Err(e)),
        };
        let Some(handler) = self.0.server.completion.clone() else {
            return Reply::Now(Err(ErrorObject::method_not_found(req.method)));
        };
        // A prompt or template the caller may not see completes like an unknown one.
        let (item, what) = match &p.reference {
            CompletionRef::Prompt { name } => (super::Listed::Prompt(name), "prompt"),
            CompletionRef::Resource { uri } => match self.0.server.resources.snapshot().get(uri) {
                Some(_) => (super::Listed::Resource(uri), "resource"),
                None => (super::Listed::ResourceTemplate(uri), "resource template"),
            },
        };
        if !self.0.server.visible(item) {
            let key = match item {
                super::Listed::Prompt(k)
                | super::Listed::Resource(k)
                | super::Listed::ResourceTemplate(k)
                | super::Listed::Tool(k) => k,
            };
            return Reply::Now(Err(ErrorObject::invalid_params(format!(
                "Invalid params: unknown {what} `{key}`"
            ))));
        }
        // No progress token: a completion is answered at once.
        let meta = RequestMeta {
            progress_token: None,
            ..meta
        };
        let mut ctx = self.0.ctx(req, meta);
        let stamped = modern.is_some();
        if let Some(m) = modern {
            ctx = ctx.modern(m, None);
        }
        let fut = handler.complete(p, ctx);
        let session = self.0.clone();
        Reply::Spawn {
            fut: Box::pin(async move {
                let mut r = fut.await?;
                let values = &mut r.completion.values;
                if values.len() > 100 {
                    let total = r.completion.total.unwrap_or(values.len() as u64);
                    values.truncate(100);
                    r.completion.total = Some(total);
                    r.completion.has_more = Some(true);
                }
                if stamped {
                    let own = r.meta.take();
                    ServerHandler(session)
                        .stamp(ResultType::Complete, None)
                        .apply(&r, own)
                } else {
                    to_raw(&r)
                }
            }),
            cancellable: true,
        }
    }

    fn set_level(&self, params: Option<&RawValue>) -> Result<Box<RawValue>, ErrorObject> {
        let p: SetLevelParams = parse_params(params)?;
        self.0.log_level.store(p.level.as_u8(), Ordering::Relaxed);
        empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_call_params_agree_with_the_full_parse_or_leave_it_to_it() {
        let cases = [
            r#"{"name":"echo","arguments":{"text":"x"}}"#,
            r#" { "arguments" : {"a":[1,{"b":"}\"]"}]} , "name" : "t\"q" } "#,
            r#"{"name":"n","arguments":null,"task":{"ttl":5},"_meta":{"progressToken":3,"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"requestState":"s","inputResponses":{"a":{}}}"#,
            r#"{"name":"n","requestState":null,"task":null,"_meta":null,"inputResponses":null}"#,
            r#"{"name":"n","other":[1,2],"more":{"x":"y"}}"#,
            // The full parse decides these (and errs on most).
            r#"{"name":"a","name":"b"}"#,
            r#"{"name":"a","arguments":{},"arguments":{}}"#,
            r#"{"n\u0061me":"a"}"#,
            r#"{"name":5}"#,
            r#"{"arguments":{}}"#,
            r#"{"name":"a","requestState":5}"#,
            r#"{"name":"a","_meta":"x"}"#,
            r#"{"name":"a","task":7}"#,
            r#"[1]"#,
        ];
        let mut quick = 0;
        for text in cases {
            let raw = RawValue::from_string(text.into()).unwrap();
            let full = parse_params::<CallRaw>(Some(&raw));
            let Some(q) = CallRaw::quick(Some(&raw)) else {
                continue;
            };
            quick += 1;
            let f = full.unwrap_or_else(|e| panic!("{text}: read quickly, refused in full: {e:?}"));
            assert_eq!(q.name, f.name, "{text}");
            assert_eq!(q.arguments.map(|a| a.0), f.arguments.map(|a| a.0), "{text}");
            let token = |m: &Option<MetaRaw<'_>>| m.as_ref().and_then(|m| m.progress_token.clone());
            assert_eq!(token(&q.meta), token(&f.meta), "{text}");
            let version = |m: Option<MetaRaw<'_>>| {
                m.and_then(|m| m.protocol_version.map(|v| v.get().to_string()))
            };
            assert_eq!(version(q.meta), version(f.meta), "{text}");
            assert_eq!(
                q.input_responses.map(RawValue::get),
                f.input_responses.map(RawValue::get)
            );
            assert_eq!(q.request_state, f.request_state, "{text}");
            assert_eq!(
                q.task.map(RawValue::get),
                f.task.map(RawValue::get),
                "{text}"
            );
        }
        assert_eq!(quick, 6, "the usual calls are read quickly");
    }
}
