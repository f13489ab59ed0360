//! `mcp-codegen audit` on the gateway's catalogue, with and without discovery mode, through the real
//! binaries: the figure the README quotes (at least 90% fewer bytes and tokens).

use crate::common;

use common::{catalogue, workspace_bin};
use std::io::Write;
use std::process::Command;

/// The percentage in `… N.N% fewer <what>` of the audit's comparison line.
fn fewer(report: &str, what: &str) -> f64 {
    let line = report
        .lines()
        .find(|l| l.starts_with("against "))
        .unwrap_or_else(|| panic!("no comparison in\n{report}"));
    let (before, _) = line
        .split_once(&format!("% fewer {what}"))
        .unwrap_or_else(|| panic!("{line}"));
    before
        .rsplit(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap_or_else(|_| panic!("{line}"))
}

#[test]
fn the_audit_cli_shows_discovery_mode_costs_at_least_90_percent_less() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("catalogue.json");
    std::fs::File::create(&cfg)
        .unwrap()
        .write_all(catalogue(false).to_string().as_bytes())
        .unwrap();
    let gateway = format!(
        "{} --config {}",
        env!("CARGO_BIN_EXE_mcp-gateway"),
        cfg.display()
    );
    let codegen = workspace_bin("mcp-codegen");
    let full = dir.path().join("full.json");
    let out = Command::new(&codegen)
        .args(["snapshot", "--stdio", &gateway, "--output"])
        .arg(&full)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&codegen)
        .args([
            "audit",
            "--stdio",
            &format!("{gateway} --discovery"),
            "--baseline",
        ])
        .arg(&full)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{report}");
    for tool in ["search_tools", "describe_tool", "call_tool"] {
        assert!(
            report.lines().any(|l| l.starts_with(tool)),
            "{tool} missing:\n{report}"
        );
    }
    let (bytes, tokens) = (fewer(&report, "bytes"), fewer(&report, "tokens"));
    assert!(bytes >= 90.0, "{bytes}% fewer bytes:\n{report}");
    assert!(tokens >= 90.0, "{tokens}% fewer tokens:\n{report}");
}
