//! A deployment on loopback for the scale tests: `redis-server` and `nginx` from the system's packages,
//! several instances of an HTTP server (`everything-server --http --redis` by default, or what a
//! [`Launch`] starts: the gateway's tests include this module and start `mcp-gateway`), and nginx in
//! front of them (round-robin, no stickiness, no buffering), every file in a temporary directory and
//! every process killed on drop (nginx stopped). Without redis-server or nginx a test says it skipped,
//! unless MCP_PEERS_REQUIRED=1 (then it fails).

#![allow(dead_code)]

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The MRTR keys every instance shares (2026-07-28 retries may land anywhere).
pub const STATE_KEYS: &str = "k1:000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

/// A child process killed (SIGKILL) and reaped on drop.
pub struct Proc(Child);

impl Proc {
    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }

    /// SIGTERM, up to 3 s to exit, then SIGKILL. nginx's master only takes its workers down when it is
    /// asked to stop: SIGKILL alone leaves them running, orphaned, still accepting on the port.
    fn stop(&mut self) {
        if !matches!(self.0.try_wait(), Ok(None)) {
            return;
        }
        unsafe { libc::kill(self.0.id() as libc::pid_t, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(3);
        while Instant::now() < deadline {
            if !matches!(self.0.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.kill();
    }

    /// Whether it still runs.
    pub fn alive(&mut self) -> bool {
        matches!(self.0.try_wait(), Ok(None))
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A system program, on PATH or in the usual sbin directories.
pub fn program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(["/usr/sbin", "/usr/bin", "/sbin", "/usr/local/sbin"].map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// redis-server and nginx, or `None` after saying why (a failure if MCP_PEERS_REQUIRED=1).
pub fn peers(test: &str) -> Option<(PathBuf, PathBuf)> {
    match (program("redis-server"), program("nginx")) {
        (Some(r), Some(n)) => Some((r, n)),
        (r, n) => {
            let missing: Vec<&str> = [("redis-server", r.is_none()), ("nginx", n.is_none())]
                .into_iter()
                .filter_map(|(name, gone)| gone.then_some(name))
                .collect();
            let msg = format!(
                "{test}: SKIPPED: {} not installed (apt-get install -y redis-server nginx)",
                missing.join(" and ")
            );
            if std::env::var("MCP_PEERS_REQUIRED").as_deref() == Ok("1") {
                panic!("{msg}; MCP_PEERS_REQUIRED=1");
            }
            eprintln!("{msg}");
            None
        }
    }
}

/// The processes whose parent is `parent` (from `/proc`).
fn children_of(parent: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .ok()
                .and_then(|s| {
                    // After the command's closing parenthesis: state, then the parent's pid.
                    let rest = &s[s.rfind(')')? + 2..];
                    rest.split(' ').nth(1)?.parse::<u32>().ok()
                })
                == Some(parent)
        })
        .collect()
}

/// A free loopback port (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

fn wait_listening(port: u16, what: &str, dir: &Path) {
    let until = Instant::now() + Duration::from_secs(20);
    while Instant::now() < until {
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!(
        "{what} did not listen on 127.0.0.1:{port}; logs in {}",
        dir.display()
    );
}

/// The command of one instance: given its port and the Redis URL (when the cluster has Redis) and the
/// cluster's directory, a command that serves HTTP on `127.0.0.1:<port>/mcp` (its stderr goes to the
/// instance's log).
pub type Launch = Box<dyn Fn(u16, Option<&str>, &Path) -> Command>;

/// `everything-server --http --port P [--redis URL] --state-keys ...` (in the examples' tests only).
pub fn everything_server() -> Launch {
    // Set when the package under test is `examples` (the gateway's tests bring their own Launch).
    let Some(bin) = option_env!("CARGO_BIN_EXE_everything-server") else {
        panic!("everything-server is not a binary of the package under test");
    };
    everything_server_at(PathBuf::from(bin))
}

/// Like [`everything_server`], with the binary at `bin` (another build of it, for a side-by-side bench).
pub fn everything_server_at(bin: PathBuf) -> Launch {
    Box::new(move |port, redis, _dir| {
        let mut cmd = Command::new(&bin);
        cmd.args(["--http", "--port", &port.to_string()]);
        if let Some(url) = redis {
            cmd.arg("--redis").arg(url);
        }
        cmd.args(["--state-keys", STATE_KEYS])
            .env("RUST_LOG", "warn,mcp_runtime::server::tasks=debug");
        cmd
    })
}

/// One instance of the served program.
pub struct Instance {
    pub port: u16,
    pub proc: Option<Proc>,
    pub log: PathBuf,
}

/// Redis, N instances and nginx in front, in a temporary directory.
pub struct Cluster {
    pub dir: PathBuf,
    redis_bin: PathBuf,
    pub redis_port: u16,
    redis: Option<Proc>,
    use_redis: bool,
    /// Redis's `appendfsync`: `always` (every write on disk before it is acknowledged, what the tests
    /// that restart Redis need), `everysec` (Redis's default for its append-only file) or `no`.
    fsync: &'static str,
    pub instances: Vec<Instance>,
    nginx: Option<Proc>,
    pub port: u16,
    /// The endpoint through nginx.
    pub url: String,
    launch: Launch,
}

impl Cluster {
    /// Starts everything, or `None` when redis-server or nginx is missing (see [`peers`]).
    pub fn start(test: &str, instances: usize) -> Option<Cluster> {
        Cluster::start_with(test, instances, true)
    }

    /// Like [`Cluster::start`]; without `redis`, the instances share nothing (one instance behind
    /// nginx, or 2026-07-28 requests only).
    pub fn start_with(test: &str, instances: usize, redis: bool) -> Option<Cluster> {
        Cluster::launching(test, instances, redis, everything_server())
    }

    /// Like [`Cluster::start_with`], with each instance started by `launch`.
    pub fn launching(test: &str, instances: usize, redis: bool, launch: Launch) -> Option<Cluster> {
        Cluster::launching_fsync(test, instances, redis.then_some("always"), launch)
    }

    /// Like [`Cluster::launching`], with Redis (when `fsync` is given) writing its append-only file with
    /// that `appendfsync` policy (`always`, `everysec` or `no`).
    pub fn launching_fsync(
        test: &str,
        instances: usize,
        fsync: Option<&'static str>,
        launch: Launch,
    ) -> Option<Cluster> {
        let redis = fsync.is_some();
        let (redis_bin, nginx_bin) = peers(test)?;
        let dir = std::env::temp_dir().join(format!(
            "mcp-scale-{}-{}-{}",
            test,
            std::process::id(),
            free_port()
        ));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let mut c = Cluster {
            dir,
            redis_bin,
            redis_port: free_port(),
            redis: None,
            use_redis: redis,
            fsync: fsync.unwrap_or("always"),
            instances: Vec::new(),
            nginx: None,
            port: 0,
            url: String::new(),
            launch,
        };
        if redis {
            c.start_redis();
        }
        for i in 0..instances {
            let port = free_port();
            let log = c.dir.join(format!("instance-{i}.log"));
            let mut inst = Instance {
                port,
                proc: None,
                log,
            };
            inst.proc = Some(c.spawn_instance(&inst));
            c.instances.push(inst);
        }
        for inst in &c.instances {
            wait_listening(inst.port, "an instance", &c.dir);
        }
        c.port = free_port();
        c.url = format!("http://127.0.0.1:{}/mcp", c.port);
        let conf = c.dir.join("nginx.conf");
        std::fs::write(&conf, nginx_conf(&c.dir, c.port, &c.instances)).expect("nginx.conf");
        let nginx = Command::new(nginx_bin)
            .arg("-p")
            .arg(&c.dir)
            .arg("-e")
            .arg(c.dir.join("nginx-error.log"))
            .arg("-c")
            .arg(&conf)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nginx starts");
        c.nginx = Some(Proc(nginx));
        wait_listening(c.port, "nginx", &c.dir);
        Some(c)
    }

    /// The processes serving the cluster, by role: the instances, Redis (none without it), and nginx's
    /// master and workers.
    pub fn processes(&self) -> [Vec<u32>; 3] {
        let instances = self
            .instances
            .iter()
            .filter_map(|i| i.proc.as_ref().map(|p| p.0.id()))
            .collect();
        let redis = self.redis.iter().map(|p| p.0.id()).collect();
        let mut nginx = Vec::new();
        if let Some(master) = self.nginx.as_ref().map(|p| p.0.id()) {
            nginx.push(master);
            nginx.extend(children_of(master));
        }
        [instances, redis, nginx]
    }

    fn spawn_instance(&self, inst: &Instance) -> Proc {
        let log = std::fs::File::create(&inst.log).expect("instance log");
        let redis = format!("redis://127.0.0.1:{}", self.redis_port);
        let child = (self.launch)(
            inst.port,
            self.use_redis.then_some(redis.as_str()),
            &self.dir,
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("the instance starts");
        Proc(child)
    }

    /// Starts redis-server (again) on its port, with an append-only file in the directory, so that a
    /// restart keeps the data (all of it with `appendfsync always`, the default here).
    pub fn start_redis(&mut self) {
        let child = Command::new(&self.redis_bin)
            .args(["--port", &self.redis_port.to_string()])
            .args(["--bind", "127.0.0.1", "--protected-mode", "yes"])
            .args([
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                self.fsync,
            ])
            .arg("--dir")
            .arg(&self.dir)
            .arg("--logfile")
            .arg(self.dir.join("redis.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        self.redis = Some(Proc(child));
        wait_listening(self.redis_port, "redis-server", &self.dir);
    }

    /// Stops redis-server (SIGKILL).
    pub fn stop_redis(&mut self) {
        self.redis.take();
    }

    /// The instance listening on `port` (as nginx's `X-Upstream` names it).
    pub fn instance_at(&mut self, upstream: &str) -> &mut Instance {
        let port: u16 = upstream
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("an upstream address, not {upstream:?}"));
        self.instances
            .iter_mut()
            .find(|i| i.port == port)
            .unwrap_or_else(|| panic!("no instance on port {port}"))
    }

    /// The instance's endpoint, bypassing nginx.
    pub fn direct_url(inst: &Instance) -> String {
        format!("http://127.0.0.1:{}/mcp", inst.port)
    }

    /// Whether every instance still runs (none crashed).
    pub fn all_alive(&mut self) -> bool {
        self.instances
            .iter_mut()
            .all(|i| i.proc.as_mut().is_some_and(Proc::alive))
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Some(mut nginx) = self.nginx.take() {
            nginx.stop();
        }
        for i in &mut self.instances {
            i.proc.take();
        }
        self.redis.take();
        if std::thread::panicking() {
            eprintln!("scale test failed; logs kept in {}", self.dir.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// The nginx configuration the tests (and docs/deploy.md) use: round-robin over the instances, no
/// stickiness, no buffering (SSE), HTTP/1.1 kept alive to the upstreams, and the upstream that answered
/// in `X-Upstream`.
pub fn nginx_conf(dir: &Path, port: u16, instances: &[Instance]) -> String {
    let d = dir.display();
    use std::os::unix::fs::MetadataExt;
    let root = std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0);
    let user = if root { "user root;\n" } else { "" };
    let servers: String = instances
        .iter()
        .map(|i| {
            format!(
                "        server 127.0.0.1:{} max_fails=1 fail_timeout=10s;\n",
                i.port
            )
        })
        .collect();
    format!(
        r#"{user}daemon off;
master_process on;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {d}/client_body;
    proxy_temp_path {d}/proxy;
    fastcgi_temp_path {d}/fastcgi;
    uwsgi_temp_path {d}/uwsgi;
    scgi_temp_path {d}/scgi;
    upstream mcp {{
{servers}        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{port};
        location = /floor {{
            return 200 "ok";
        }}
        location / {{
            proxy_pass http://mcp;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_buffering off;
            proxy_cache off;
            proxy_read_timeout 300s;
            proxy_next_upstream error timeout;
            add_header X-Upstream $upstream_addr always;
        }}
    }}
}}
"#
    )
}
