//! A small REST service (not MCP) for the gateway's OpenAPI upstream: `GET /weather?city=Tokyo` answers
//! `{"city":"Tokyo","temp":30.1,"unit":"C"}`; an unknown city is 404, a missing or wrong `X-Api-Key`
//! (the `WEATHER_API_KEY` environment variable, when set) is 401. Its spec is `examples/gateway/weather.yaml`.
//!
//! Listens on 127.0.0.1 at a free port (or `--port N`) and prints `listening on ADDR` on stdout first.

use axum::extract::Query;
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, HeaderName, StatusCode};
use axum::routing::get;
use axum::Router;
use std::collections::HashMap;

/// The cities it knows, with their temperature in °C.
const CITIES: &[(&str, f64)] = &[("Tokyo", 30.1), ("Paris", 18.5), ("Oslo", -3.0)];

type Answer = (StatusCode, [(HeaderName, &'static str); 1], String);

async fn weather(Query(query): Query<HashMap<String, String>>, headers: HeaderMap) -> Answer {
    let (status, body) = answer(&query, &headers);
    (status, [(CONTENT_TYPE, "application/json")], body)
}

fn answer(query: &HashMap<String, String>, headers: &HeaderMap) -> (StatusCode, String) {
    if let Ok(key) = std::env::var("WEATHER_API_KEY") {
        let given = headers.get("x-api-key").and_then(|v| v.to_str().ok());
        if given != Some(key.as_str()) {
            return (
                StatusCode::UNAUTHORIZED,
                r#"{"error":"bad API key"}"#.into(),
            );
        }
    }
    let city = query.get("city").map(String::as_str).unwrap_or("");
    match CITIES.iter().find(|(c, _)| *c == city) {
        Some((c, temp)) => (
            StatusCode::OK,
            serde_json::json!({"city": c, "temp": temp, "unit": "C"}).to_string(),
        ),
        None => (
            StatusCode::NOT_FOUND,
            serde_json::json!({"error": format!("unknown city {city:?}")}).to_string(),
        ),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let port = match std::env::args().skip_while(|a| a != "--port").nth(1) {
        Some(p) => p.parse()?,
        None => 0u16,
    };
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    println!("listening on {}", listener.local_addr()?);
    let app = Router::new().route("/weather", get(weather));
    axum::serve(listener, app).await?;
    Ok(())
}
