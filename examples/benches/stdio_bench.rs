//! Side-by-side stdio benchmark: our `bench-server` against rmcp's server with the same three tools,
//! driven by the same raw client (plain threads writing and reading lines, so the client costs little), and
//! a bare line echo (no parsing, no runtime) measured in the same run as the machine's floor, and the same echo
//! from one tokio task on epoll (the floor of any event-driven server).
//!
//! Run: `cargo bench -p examples --bench stdio_bench`. `BENCH_SECS` sets the seconds per throughput run;
//! `BENCH_PEERS=0` measures only ours and the floor.
//! The bench re-executes itself as the rmcp server (`RMCP_BENCH_SERVER=stdio|pipes`).

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

mod rmcp_server {
    use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
    use rmcp::model::{ServerCapabilities, ServerConfig};
    use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt};
    use tokio_util::sync::CancellationToken;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub struct Echo {
        /// Text to echo
        text: String,
    }
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub struct Add {
        /// First addend
        a: f64,
        /// Second addend
        b: f64,
    }
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub struct Sleep {
        /// Milliseconds to wait
        ms: u64,
    }

    #[derive(Clone)]
    pub struct Bench {
        // rmcp's documented pattern keeps the router in the handler; its `#[tool_handler]` builds its own.
        #[allow(dead_code)]
        tool_router: ToolRouter<Self>,
    }

    #[tool_router]
    impl Bench {
        #[tool(description = "Return the text unchanged.")]
        async fn echo(&self, Parameters(Echo { text }): Parameters<Echo>) -> String {
            text
        }
        #[tool(description = "Add two numbers.")]
        async fn add(&self, Parameters(Add { a, b }): Parameters<Add>) -> String {
            (a + b).to_string()
        }
        #[tool(
            description = "Wait for the given number of milliseconds; stops early when cancelled."
        )]
        async fn sleep(
            &self,
            Parameters(Sleep { ms }): Parameters<Sleep>,
            ct: CancellationToken,
        ) -> String {
            tokio::select! {
                _ = tokio::time::sleep(std::time::Duration::from_millis(ms)) => format!("slept {ms} ms"),
                _ = ct.cancelled() => {
                    eprintln!("sleep cancelled after a request to wait {ms} ms");
                    "sleep cancelled".into()
                }
            }
        }
    }

    #[tool_handler]
    impl ServerHandler for Bench {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        }
    }

    pub fn run(mode: &str) {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let bench = Bench {
                tool_router: Bench::tool_router(),
            };
            let service = if mode == "pipes" {
                bench.serve(rmcp::transport::stdio_pipes()).await.unwrap()
            } else {
                bench.serve(rmcp::transport::stdio()).await.unwrap()
            };
            let _ = service.waiting().await;
        });
    }
}

/// The floor of this machine: a plain blocking loop that answers every line with a canned result carrying
/// the request's id (an `echo` gets its text back, cut out of the line by position). No JSON parsing, no
/// runtime, no tool: what pipes, copies and context switches cost.
mod bare {
    use std::io::{BufRead, Write};

    pub(super) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
        hay.windows(needle.len()).position(|w| w == needle)
    }

    pub fn run() {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut out = std::io::stdout().lock();
        let mut line = Vec::new();
        while input.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
            // Notifications (no `"id":`) get no answer, as in the protocol.
            let head = &line[..line.len().min(128)];
            if let Some(at) = find(head, b"\"id\":") {
                let id: Vec<u8> = line[at + 5..]
                    .iter()
                    .copied()
                    .take_while(u8::is_ascii_digit)
                    .collect();
                out.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":").unwrap();
                out.write_all(&id).unwrap();
                out.write_all(b",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"")
                    .unwrap();
                // The text of an echo: from after `"text":"` to before the closing `"}}}`.
                let text = find(head, b"\"text\":\"")
                    .map(|t| &line[t + 8..line.len().saturating_sub(5).max(t + 8)]);
                out.write_all(text.unwrap_or(b"2")).unwrap();
                out.write_all(b"\"}]}}\n").unwrap();
                out.flush().unwrap();
            }
            line.clear();
        }
    }
}

/// The floor of an event-driven server: the same canned answers as [`bare`], from one task on tokio's
/// current-thread runtime over non-blocking pipes (readiness from epoll, as any async runtime waits). The
/// gap between it and [`bare`] is what waiting through epoll costs; the gap between ours and it is what
/// our pump does beyond reading and writing.
mod bare_async {
    use std::io::{Read, Write};
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use tokio::io::unix::AsyncFd;

    fn nonblocking(fd: i32) -> std::fs::File {
        // A private open file description (as mcp-runtime's stdio does), so O_NONBLOCK stays ours.
        let path = format!("/proc/self/fd/{fd}");
        let flags = if fd == 0 {
            libc::O_RDONLY
        } else {
            libc::O_WRONLY
        };
        let c = std::ffi::CString::new(path).unwrap();
        let raw = unsafe { libc::open(c.as_ptr(), flags | libc::O_NONBLOCK | libc::O_CLOEXEC) };
        assert!(raw >= 0, "reopen fd {fd}");
        std::fs::File::from(unsafe { OwnedFd::from_raw_fd(raw) })
    }

    async fn write_all(out: &AsyncFd<std::fs::File>, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let mut ready = out.writable().await.unwrap();
            match ready.try_io(|f| f.get_ref().write(bytes)) {
                Ok(Ok(n)) => bytes = &bytes[n..],
                Ok(Err(e)) => panic!("write: {e}"),
                Err(_would_block) => {}
            }
        }
    }

    pub fn run() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            // SAFETY: each file is owned by its AsyncFd alone and stays open as long as it.
            let input = unsafe { AsyncFd::register(nonblocking(0)) }.unwrap();
            let out = unsafe { AsyncFd::register(nonblocking(1)) }.unwrap();
            let mut buf = vec![0u8; 64 * 1024];
            let (mut have, mut answer) = (0usize, Vec::new());
            loop {
                if have == buf.len() {
                    buf.resize(buf.len() * 2, 0);
                }
                let mut ready = input.readable().await.unwrap();
                let n = match ready.try_io(|f| f.get_ref().read(&mut buf[have..])) {
                    Ok(Ok(0)) => return,
                    Ok(Ok(n)) => n,
                    Ok(Err(e)) => panic!("read: {e}"),
                    Err(_would_block) => continue,
                };
                let scanned = have;
                have += n;
                let mut start = 0;
                let mut from = scanned;
                while let Some(nl) = buf[from..have].iter().position(|&b| b == b'\n') {
                    let line = &buf[start..from + nl + 1];
                    let head = &line[..line.len().min(128)];
                    if let Some(at) = super::bare::find(head, b"\"id\":") {
                        let id = line[at + 5..]
                            .iter()
                            .take_while(|b| b.is_ascii_digit())
                            .count();
                        answer.clear();
                        answer.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
                        answer.extend_from_slice(&line[at + 5..at + 5 + id]);
                        answer.extend_from_slice(
                            b",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"",
                        );
                        let text = super::bare::find(head, b"\"text\":\"")
                            .map(|t| &line[t + 8..line.len().saturating_sub(5).max(t + 8)]);
                        answer.extend_from_slice(text.unwrap_or(b"2"));
                        answer.extend_from_slice(b"\"}]}}\n");
                        write_all(&out, &answer).await;
                    }
                    start = from + nl + 1;
                    from = start;
                }
                buf.copy_within(start..have, 0);
                have -= start;
                let _ = out.as_raw_fd();
            }
        });
    }
}

struct Proc {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr_lines: mpsc::Receiver<(Instant, String)>,
    startup: Duration,
}

#[derive(Clone, Copy)]
enum Server {
    Ours,
    RmcpStdio,
    RmcpPipes,
}

impl Server {
    fn name(self) -> &'static str {
        match self {
            Server::Ours => "mcp-runtime",
            Server::RmcpStdio => "rmcp stdio()",
            Server::RmcpPipes => "rmcp stdio_pipes()",
        }
    }
    fn command(self) -> Command {
        match self {
            Server::Ours => Command::new(env!("CARGO_BIN_EXE_bench-server")),
            Server::RmcpStdio | Server::RmcpPipes => {
                let mut c = Command::new(std::env::current_exe().unwrap());
                c.env(
                    "RMCP_BENCH_SERVER",
                    if matches!(self, Server::RmcpPipes) {
                        "pipes"
                    } else {
                        "stdio"
                    },
                );
                c
            }
        }
    }
}

fn start(server: Server) -> Proc {
    start_command(server.command())
}

fn start_command(mut command: Command) -> Proc {
    let t0 = Instant::now();
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send((Instant::now(), line));
        }
    });
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}\n")
        .unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let startup = t0.elapsed();
    assert!(line.contains("\"result\""), "initialize failed: {line}");
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .unwrap();
    Proc {
        child,
        stdin,
        stdout,
        stderr_lines: rx,
        startup,
    }
}

fn add_request(id: u64) -> Vec<u8> {
    format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"add\",\"arguments\":{{\"a\":{id},\"b\":1}}}}}}\n").into_bytes()
}

fn sequential(p: &mut Proc, secs: f64) -> f64 {
    let mut line = String::new();
    let t0 = Instant::now();
    let mut n = 0u64;
    while t0.elapsed().as_secs_f64() < secs {
        n += 1;
        p.stdin.write_all(&add_request(n)).unwrap();
        line.clear();
        p.stdout.read_line(&mut line).unwrap();
        debug_assert!(line.contains("result"));
    }
    n as f64 / t0.elapsed().as_secs_f64()
}

/// Keeps `window` calls in flight for `secs`, then drains.
fn pipelined(p: &mut Proc, window: usize, secs: f64) -> f64 {
    let (credit_tx, credit_rx) = mpsc::sync_channel::<()>(window);
    for _ in 0..window {
        credit_tx.send(()).unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs_f64(secs);
    let mut stdin = p.stdin.try_clone_hack();
    let writer = std::thread::spawn(move || {
        let mut sent = 0u64;
        let mut buf = Vec::with_capacity(64 * 1024);
        while Instant::now() < deadline {
            // Take every credit available, write the batch in one go (a real client writes as it can).
            credit_rx.recv().unwrap();
            let mut k = 1;
            while credit_rx.try_recv().is_ok() {
                k += 1;
            }
            buf.clear();
            for _ in 0..k {
                sent += 1;
                buf.extend_from_slice(&add_request(1_000_000 + sent));
            }
            stdin.write_all(&buf).unwrap();
        }
        sent
    });
    let t0 = Instant::now();
    let mut received = 0u64;
    let mut line = String::new();
    loop {
        line.clear();
        p.stdout.read_line(&mut line).unwrap();
        received += 1;
        let _ = credit_tx.try_send(());
        if writer.is_finished() {
            break;
        }
    }
    let sent = writer.join().unwrap();
    while received < sent {
        line.clear();
        p.stdout.read_line(&mut line).unwrap();
        received += 1;
    }
    received as f64 / t0.elapsed().as_secs_f64()
}

trait CloneHack {
    fn try_clone_hack(&self) -> std::fs::File;
}
impl CloneHack for ChildStdin {
    fn try_clone_hack(&self) -> std::fs::File {
        use std::os::fd::{AsFd, OwnedFd};
        let fd: OwnedFd = self.as_fd().try_clone_to_owned().unwrap();
        std::fs::File::from(fd)
    }
}

fn echo_throughput(p: &mut Proc, size: usize, rounds: usize) -> f64 {
    let text = "e".repeat(size);
    let mut line = String::new();
    let t0 = Instant::now();
    for i in 0..rounds {
        let req = format!("{{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\"arguments\":{{\"text\":\"{text}\"}}}}}}\n", 5_000_000 + i);
        p.stdin.write_all(req.as_bytes()).unwrap();
        line.clear();
        p.stdout.read_line(&mut line).unwrap();
        assert!(line.len() > size, "echo answered {} bytes", line.len());
    }
    (size * rounds) as f64 / (1024.0 * 1024.0) / t0.elapsed().as_secs_f64()
}

/// From sending `notifications/cancelled` to the handler's "sleep cancelled" line on stderr.
fn cancel_latency(p: &mut Proc, rounds: u64) -> Duration {
    let mut total = Duration::ZERO;
    for i in 0..rounds {
        let id = 9_000_000 + i;
        let req = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"sleep\",\"arguments\":{{\"ms\":60000}}}}}}\n");
        p.stdin.write_all(req.as_bytes()).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let cancel = format!("{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{{\"requestId\":{id}}}}}\n");
        let t0 = Instant::now();
        p.stdin.write_all(cancel.as_bytes()).unwrap();
        loop {
            let (at, line) = p
                .stderr_lines
                .recv_timeout(Duration::from_secs(5))
                .expect("handler saw its cancellation");
            if line.contains("sleep cancelled") {
                total += at.saturating_duration_since(t0);
                break;
            }
        }
    }
    total / rounds as u32
}

fn peak_rss_kib(p: &Proc) -> u64 {
    let s = std::fs::read_to_string(format!("/proc/{}/status", p.child.id())).unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

struct Row {
    seq: f64,
    par: f64,
    echo: f64,
    rss: u64,
    startup: Duration,
    cancel: Duration,
}

fn measure(server: Server, secs: f64) -> Row {
    let mut p = start(server);
    let startup = p.startup;
    let seq = sequential(&mut p, secs);
    let par = pipelined(&mut p, 64, secs);
    let echo = echo_throughput(&mut p, 1024 * 1024, 30);
    let cancel = cancel_latency(&mut p, 10);
    let rss = peak_rss_kib(&p);
    drop(p.stdin);
    let _ = p.child.kill();
    let _ = p.child.wait();
    let _ = p.stdout.read_to_end(&mut Vec::new());
    Row {
        seq,
        par,
        echo,
        rss,
        startup,
        cancel,
    }
}

/// Medians of the three loads over `rounds` runs of this bench re-executed as a floor (`mode`).
fn floor(mode: &str, rounds: usize, secs: f64) -> (f64, f64, f64) {
    let (mut seq, mut par, mut echo) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds {
        let mut c = Command::new(std::env::current_exe().unwrap());
        c.env("RMCP_BENCH_SERVER", mode);
        let mut p = start_command(c);
        seq.push(sequential(&mut p, secs));
        par.push(pipelined(&mut p, 64, secs));
        echo.push(echo_throughput(&mut p, 1024 * 1024, 30));
        drop(p.stdin);
        let _ = p.child.wait();
    }
    (median(seq), median(par), median(echo))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    if let Ok(mode) = std::env::var("RMCP_BENCH_SERVER") {
        if mode == "bare" {
            bare::run();
        } else if mode == "bare-async" {
            bare_async::run();
        } else {
            rmcp_server::run(&mode);
        }
        return;
    }
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let secs: f64 = std::env::var("BENCH_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2.0);
    let rounds = 3;
    // `BENCH_PEERS=0` leaves rmcp out (a quicker run against the floor alone).
    let servers: &[Server] = if std::env::var("BENCH_PEERS").as_deref() == Ok("0") {
        &[Server::Ours]
    } else {
        &[Server::Ours, Server::RmcpStdio, Server::RmcpPipes]
    };
    let mut rows: Vec<Vec<Row>> = servers.iter().map(|_| Vec::new()).collect();
    // Interleaved, so that machine noise hits every server alike.
    for _ in 0..rounds {
        for (i, s) in servers.iter().enumerate() {
            rows[i].push(measure(*s, secs));
        }
    }
    println!("stdio benchmark, {} cores, median of {rounds} interleaved rounds, {secs} s per throughput run", std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1));
    println!(
        "{:<20} {:>12} {:>14} {:>12} {:>10} {:>10} {:>10}",
        "server", "seq calls/s", "64-deep calls/s", "1MiB echo", "peak RSS", "startup", "cancel"
    );
    let mut med = Vec::new();
    for (i, s) in servers.iter().enumerate() {
        let r = &rows[i];
        let m = (
            median(r.iter().map(|x| x.seq).collect()),
            median(r.iter().map(|x| x.par).collect()),
            median(r.iter().map(|x| x.echo).collect()),
            median(r.iter().map(|x| x.rss as f64).collect()),
            median(r.iter().map(|x| x.startup.as_secs_f64() * 1e3).collect()),
            median(r.iter().map(|x| x.cancel.as_secs_f64() * 1e6).collect()),
        );
        println!(
            "{:<20} {:>12.0} {:>14.0} {:>9.0} MiB/s {:>7.1} MiB {:>7.2} ms {:>7.0} µs",
            s.name(),
            m.0,
            m.1,
            m.2,
            m.3 / 1024.0,
            m.4,
            m.5
        );
        med.push(m);
    }
    // The floors, measured in the same run: the same three loads against a bare line echo, blocking and
    // then from one tokio task waiting on epoll.
    let (fs, fp, fe) = floor("bare", rounds, secs);
    println!(
        "{:<20} {:>12.0} {:>14.0} {:>9.0} MiB/s   (a blocking loop answering canned lines: the machine's floor)",
        "bare line echo", fs, fp, fe
    );
    let (asq, apa, aec) = floor("bare-async", rounds, secs);
    println!(
        "{:<20} {:>12.0} {:>14.0} {:>9.0} MiB/s   (the same from one tokio task on epoll: the event-driven floor)",
        "tokio line echo", asq, apa, aec
    );
    println!(
        "tokio line echo / floor: sequential {:.2}x, 64 in flight {:.2}x, 1 MiB echo {:.2}x",
        asq / fs,
        apa / fp,
        aec / fe
    );
    println!(
        "mcp-runtime / floor: sequential {:.2}x, 64 in flight {:.2}x, 1 MiB echo {:.2}x",
        med[0].0 / fs,
        med[0].1 / fp,
        med[0].2 / fe
    );
    for (i, s) in servers.iter().enumerate().skip(1) {
        println!(
            "ratio mcp-runtime / {:<18} sequential {:.2}x, 64 in flight {:.2}x, echo {:.2}x, peak RSS {:.2}x",
            s.name(), med[0].0 / med[i].0, med[0].1 / med[i].1, med[0].2 / med[i].2, med[0].3 / med[i].3
        );
    }
}
