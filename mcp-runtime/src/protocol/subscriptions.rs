//! `subscriptions/listen` (2026-07-28): one long-lived request whose answer is a stream of the change
//! notifications the client asked for. It replaces the GET stream, `resources/subscribe` and
//! `resources/unsubscribe`.

use super::JsonObject;
use serde::{Deserialize, Serialize};

/// Which notifications a listen stream carries. An absent field is not subscribed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed` on the stream when `Some(true)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed` on the stream when `Some(true)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed` on the stream when `Some(true)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// `notifications/resources/updated` for these URIs (and resources below them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
}

impl SubscriptionFilter {
    /// Whether the filter asks for `notifications/tools/list_changed`.
    pub fn tools(&self) -> bool {
        self.tools_list_changed == Some(true)
    }
    /// Whether the filter asks for `notifications/prompts/list_changed`.
    pub fn prompts(&self) -> bool {
        self.prompts_list_changed == Some(true)
    }
    /// Whether the filter asks for `notifications/resources/list_changed`.
    pub fn resources(&self) -> bool {
        self.resources_list_changed == Some(true)
    }
    /// Whether an update of `uri` concerns this subscription (the URI itself or a resource below it).
    pub fn watches(&self, uri: &str) -> bool {
        self.resource_subscriptions.as_ref().is_some_and(|subs| {
            subs.iter().any(|s| {
                uri == s || (uri.starts_with(s.as_str()) && uri[s.len()..].starts_with('/'))
            })
        })
    }
}

/// Params of `subscriptions/listen`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsListenParams {
    /// The notifications the client wants on this stream; an empty filter asks for none.
    #[serde(default)]
    pub notifications: SubscriptionFilter,
    /// The request's `_meta`: a 2026-07-28 request carries its protocol version and client capabilities here.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}

/// Params of `notifications/subscriptions/acknowledged`: the part of the filter the server honours.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SubscriptionsAcknowledgedParams {
    /// What the server will send on this stream: the requested filter less what it does not support.
    pub notifications: SubscriptionFilter,
    /// Metadata reserved by MCP; `None` when absent.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<JsonObject>,
}
