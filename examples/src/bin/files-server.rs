//! A server as it is deployed on the internet (docs/deploy.md): an OAuth 2.1 resource server whose tools
//! need scopes, over HTTPS (or h2c behind a proxy), with compression, CORS and rate limits.
//!
//! ```text
//! MCP_RESOURCE=https://mcp.example.com/mcp   # this server's public URI (the tokens' audience)
//! MCP_ISSUER=https://auth.example.com/       # the authorization server (JWKS from its metadata)
//! MCP_TLS_CERT=fullchain.pem MCP_TLS_KEY=privkey.pem   # HTTPS; without them plain HTTP/1.1 + h2c
//! MCP_CORS_ORIGINS=https://app.example.com   # comma-separated
//! MCP_ADDR=0.0.0.0:8443                      # default 127.0.0.1:3000
//! files-server
//! ```

use mcp_runtime::http::{
    serve_http, Compression, Cors, HttpConfig, JwtVerifier, Quota, RateLimits, ResourceServer,
    TlsConfig,
};
use mcp_runtime::{tool, Context, Server};

/// Lists the caller's files.
#[tool(read_only, scopes = "files:read")]
async fn list_files(ctx: Context) -> Result<Vec<String>, String> {
    // The verified identity of the caller: subject, client, scopes, every claim.
    let who = ctx.auth().ok_or("not authenticated")?;
    let owner = who.subject.as_deref().unwrap_or("nobody");
    Ok(vec![format!("/home/{owner}/notes.txt")])
}

/// Deletes one of the caller's files.
#[tool(destructive, scopes = ["files:read", "files:write"])]
async fn delete_file(ctx: Context, path: String) -> Result<String, String> {
    let who = ctx.auth().ok_or("not authenticated")?;
    Ok(format!(
        "{path} deleted for {}",
        who.subject.as_deref().unwrap_or("nobody")
    ))
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .try_init();
    let server = Server::builder()
        .name("files")
        .tool(list_files_tool())
        .tool(delete_file_tool())
        .build()?;

    let resource = env("MCP_RESOURCE").unwrap_or_else(|| "http://localhost:3000/mcp".into());
    let issuer = env("MCP_ISSUER").ok_or_else(|| anyhow::anyhow!("set MCP_ISSUER"))?;
    let tokens = JwtVerifier::new(&issuer, &resource);
    let tls = match (env("MCP_TLS_CERT"), env("MCP_TLS_KEY")) {
        (Some(cert), Some(key)) => Some(TlsConfig::from_pem_files(cert, key)?),
        _ => None,
    };
    let host = resource
        .split("://")
        .nth(1)
        .and_then(|r| r.split(['/', ':']).next())
        .unwrap_or("localhost")
        .to_string();
    let config = HttpConfig {
        auth: Some(
            ResourceServer::new(&resource, tokens)
                .authorization_server(&issuer)
                .scopes_supported(["files:read"])
                .name("Files"),
        ),
        tls,
        compression: Some(Compression::default()),
        cors: env("MCP_CORS_ORIGINS").map(|o| Cors::new(o.split(',').map(str::trim))),
        rate_limits: Some(
            RateLimits::default()
                .per_client(Quota::per_minute(600))
                .tool("delete_file", Quota::per_minute(10)),
        ),
        allowed_hosts: vec![host, "localhost".into(), "127.0.0.1".into()],
        ..HttpConfig::default()
    };
    let addr = env("MCP_ADDR").unwrap_or_else(|| "127.0.0.1:3000".into());
    eprintln!("files-server: {resource} (tokens from {issuer}) on {addr}");
    serve_http(server, addr.parse()?, config, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    Ok(())
}
