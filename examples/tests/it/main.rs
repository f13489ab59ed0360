//! The examples' integration tests, one binary: the servers and clients in `src/bin` against real peers, over
//! stdio and HTTP, in both protocol eras, under load and faults. One binary links once (it was 27).

mod client_faults;
mod common;
mod confirm_server;
mod http_client;
mod http_edge;
mod http_faults;
mod http_load;
mod http_modern;
mod http_oauth;
mod http_peers;
mod http_security;
mod http_server;
mod http_support;
mod http_tasks;
mod in_process;
mod jira_server;
mod modern_client_bad_input;
mod modern_client_peers;
mod modern_peers;
mod own_server_both_eras;
mod peers;
mod rich_text;
mod rmcp_comparison;
mod scale_cluster;
mod scale_memory;
mod scale_support;
mod scale_tasks;
mod skills_rmcp;
mod stdio_bad_input;
mod stdio_cancel;
mod stdio_faults;
mod stdio_load;
mod ts_tasks;
