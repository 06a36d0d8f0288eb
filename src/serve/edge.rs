//! The server's edge towards the network: which pages and host names may talk to it (the
//! `Origin` and `Host` headers), how many connections it holds (in total and per client
//! address), and how long a client may take to send its request's headers. The accept
//! loop here serves each connection with hyper's HTTP/1 server (upgrades on, for the
//! WebSockets), which is what lets it set a header-read timeout.
//!
//! Nothing here knows about games: it guards the router `mod.rs` builds.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::http::header::{CONNECTION, CONTENT_TYPE, HOST, ORIGIN};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// The limits of the server's edge (see lang/REFERENCE.md, section 14).
#[derive(Clone, Debug)]
pub struct EdgeOptions {
    /// Origins of pages served through a proxy, as the browser sees them
    /// (`https://games.example.org`): their WebSockets are accepted, and their host is
    /// accepted in the `Host` header.
    pub public_origins: Vec<String>,
    /// How long a client may take to send a request's headers before the connection is
    /// closed.
    pub header_timeout: Duration,
    /// How long a WebSocket may send nothing at all (not even the pong that answers the
    /// server's pings, sent every third of this) before the server closes it.
    pub idle_timeout: Duration,
    /// The most connections open at once; more are answered 503.
    pub max_connections: usize,
    /// The most connections open at once from one client address; more are answered 429.
    pub max_per_client: usize,
    /// How long one request's transaction (with the moves of the seats the server plays)
    /// may run before it is interrupted, failing with the world as it was.
    pub deadline: Duration,
    /// How long a request waits for the game while another seat's transaction runs
    /// before it is answered that the table is busy.
    pub busy_wait: Duration,
}

impl Default for EdgeOptions {
    fn default() -> EdgeOptions {
        EdgeOptions {
            public_origins: Vec::new(),
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(3 * 60),
            max_connections: 512,
            max_per_client: 128,
            deadline: Duration::from_secs(10),
            busy_wait: Duration::from_secs(1),
        }
    }
}

/// The edge of one running server: what it accepts, and the connections it holds.
pub(super) struct Edge {
    pub(super) options: EdgeOptions,
    /// Accepted `Origin` values, normalised (`http://127.0.0.1:8080`).
    origins: Vec<String>,
    /// Accepted `Host` values, lower case (`127.0.0.1:8080`).
    hosts: Vec<String>,
    open: Mutex<Open>,
    /// Connections being answered a refusal (bounded too).
    refusing: AtomicUsize,
}

#[derive(Default)]
struct Open {
    total: usize,
    per_client: HashMap<IpAddr, usize>,
}

impl Edge {
    /// The edge of a server listening on loopback port `port`: its own addresses (as
    /// `127.0.0.1`, `localhost` or `[::1]`) and the public origins are accepted. An error
    /// names a public origin that is not one.
    pub(super) fn new(options: EdgeOptions, port: u16) -> Result<Edge, String> {
        let mut origins = Vec::new();
        let mut hosts = Vec::new();
        for host in ["127.0.0.1", "localhost", "[::1]"] {
            origins.push(normalise_origin(&format!("http://{host}:{port}")).expect("valid"));
            hosts.push(format!("{host}:{port}"));
            if port == 80 {
                hosts.push(host.to_string());
            }
        }
        for given in &options.public_origins {
            let origin = normalise_origin(given).ok_or_else(|| {
                format!(
                    "--public-origin {given}: give the origin the browser sees, as <scheme>://<host>[:<port>] with scheme http or https and no path (https://games.example.org)"
                )
            })?;
            let authority = origin.split_once("://").expect("normalised").1.to_string();
            if !authority.contains(':') || authority.ends_with(']') {
                // The default port: a browser sends the Host without it, a proxy may not.
                let port = if origin.starts_with("https") { 443 } else { 80 };
                hosts.push(format!("{authority}:{port}"));
            }
            hosts.push(authority);
            origins.push(origin);
        }
        if options.max_connections == 0 || options.max_per_client == 0 {
            return Err("the connection limits must be at least 1".into());
        }
        Ok(Edge {
            options,
            origins,
            hosts,
            open: Mutex::new(Open::default()),
            refusing: AtomicUsize::new(0),
        })
    }

    /// Whether a request may reach the server at all: its `Host` must be one of the
    /// server's (a page of another site whose name was made to point at 127.0.0.1, DNS
    /// rebinding, names its own host).
    pub(super) fn check_host(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let Some(host) = headers.get(HOST) else {
            return Err(refusal(
                StatusCode::BAD_REQUEST,
                "refused: the request has no Host header".into(),
            ));
        };
        let host = String::from_utf8_lossy(host.as_bytes()).to_ascii_lowercase();
        if self.hosts.contains(&host) {
            return Ok(());
        }
        Err(refusal(
            StatusCode::FORBIDDEN,
            format!(
                "refused: Host `{}` is not this server's address (it answers to {}); a name that points at this machine is not enough, and a server behind a proxy is given its public address with --public-origin",
                printable(&host),
                self.hosts.join(", ")
            ),
        ))
    }

    /// Whether a WebSocket may open: a request from a browser names the page that opens
    /// it (`Origin`), which must be this server's page (or one of the public origins). A
    /// request without `Origin` comes from a program, not a page, and is accepted.
    pub(super) fn check_origin(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let Some(origin) = headers.get(ORIGIN) else {
            return Ok(());
        };
        let given = String::from_utf8_lossy(origin.as_bytes()).to_string();
        if normalise_origin(&given).is_some_and(|o| self.origins.contains(&o)) {
            return Ok(());
        }
        Err(refusal(
            StatusCode::FORBIDDEN,
            format!(
                "refused: a page from `{}` may not connect to this game; only the server's own page ({}) may (a server behind a proxy is given its public origin with --public-origin)",
                printable(&given),
                self.origins.join(", ")
            ),
        ))
    }

    /// Take a place for a connection from `client`, or say why there is none.
    fn admit(self: &Arc<Self>, client: IpAddr) -> Result<Slot, Refusal> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if open.total >= self.options.max_connections {
            return Err(refusal(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "refused: the server holds {} connections, its limit; try again later",
                    self.options.max_connections
                ),
            ));
        }
        let mine = open.per_client.entry(client).or_insert(0);
        if *mine >= self.options.max_per_client {
            return Err(refusal(
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "refused: {} connections from your address are open, the limit per address; close some pages first",
                    self.options.max_per_client
                ),
            ));
        }
        *mine += 1;
        open.total += 1;
        Ok(Slot {
            edge: self.clone(),
            client,
        })
    }
}

/// A connection's place, given back when it closes (for a WebSocket: when the socket,
/// which carries the connection's stream, is dropped).
struct Slot {
    edge: Arc<Edge>,
    client: IpAddr,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.edge.open.lock().unwrap_or_else(|e| e.into_inner());
        open.total -= 1;
        if let Some(n) = open.per_client.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                open.per_client.remove(&self.client);
            }
        }
    }
}

/// A connection's stream with its place: the place lives as long as the stream, through
/// an upgrade to a WebSocket.
struct Counted {
    stream: TcpStream,
    _slot: Slot,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }
}

/// Accept connections for `app` until the task is aborted.
pub(super) async fn serve(listener: TcpListener, app: Router, edge: Arc<Edge>) {
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(c) => c,
            // Out of file descriptors and the like: wait, then go on.
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(edge.options.header_timeout);
        match edge.admit(peer.ip()) {
            Ok(slot) => {
                let io = TokioIo::new(Counted {
                    stream,
                    _slot: slot,
                });
                let service = TowerToHyperService::new(app.clone());
                tokio::spawn(async move {
                    let _ = http.serve_connection(io, service).with_upgrades().await;
                });
            }
            Err(_) if edge.refusing.load(Ordering::Relaxed) >= edge.options.max_connections => {
                // Refusals are bounded too: beyond that, the connection is just closed.
                drop(stream);
            }
            Err(refused) => {
                // The request is read (within the header timeout) and answered, so that
                // the client reads why; then the connection closes.
                edge.refusing.fetch_add(1, Ordering::Relaxed);
                let edge = edge.clone();
                http.keep_alive(false);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |_request| {
                        let response = refused.clone().into_response();
                        async move { Ok::<_, Infallible>(response) }
                    });
                    let _ = http.serve_connection(TokioIo::new(stream), service).await;
                    edge.refusing.fetch_sub(1, Ordering::Relaxed);
                });
            }
        }
    }
}

/// A refusal: the status, and a plain-text body that says why.
#[derive(Clone, Debug)]
pub(super) struct Refusal {
    status: StatusCode,
    text: String,
}

fn refusal(status: StatusCode, text: String) -> Refusal {
    Refusal { status, text }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        (
            self.status,
            [
                (CONTENT_TYPE, "text/plain; charset=utf-8"),
                (CONNECTION, "close"),
            ],
            self.text,
        )
            .into_response()
    }
}

/// An origin as browsers send it: `scheme://host[:port]`, lower case, without the
/// scheme's default port; `None` when `text` is not an http or https origin (a path other
/// than `/`, a query, user information or no host).
fn normalise_origin(text: &str) -> Option<String> {
    let text = text.trim().to_ascii_lowercase();
    let (scheme, rest) = text.split_once("://")?;
    let default = match scheme {
        "http" => ":80",
        "https" => ":443",
        _ => return None,
    };
    let authority = rest.strip_suffix('/').unwrap_or(rest);
    if authority.is_empty()
        || authority
            .chars()
            .any(|c| matches!(c, '/' | '?' | '#' | '@' | ' ') || c.is_control())
    {
        return None;
    }
    if let Some((host, port)) = authority.rsplit_once(':')
        && !port.contains(']')
        && (host.is_empty() || port.parse::<u16>().is_err())
    {
        return None;
    }
    let authority = authority.strip_suffix(default).unwrap_or(authority);
    Some(format!("{scheme}://{authority}"))
}

/// A header value for a message: at most 100 characters, no control characters.
fn printable(text: &str) -> String {
    text.chars().filter(|c| !c.is_control()).take(100).collect()
}

#[cfg(test)]
mod tests {
    use super::normalise_origin;

    #[test]
    fn origins_are_normalised() {
        let n = |s| normalise_origin(s);
        assert_eq!(
            n("HTTP://LocalHost:8080").as_deref(),
            Some("http://localhost:8080")
        );
        assert_eq!(n("https://a.org:443/").as_deref(), Some("https://a.org"));
        assert_eq!(n("http://[::1]:80").as_deref(), Some("http://[::1]"));
        assert_eq!(n("http://[::1]").as_deref(), Some("http://[::1]"));
        for bad in [
            "null",
            "ftp://a.org",
            "https://a.org/game",
            "http://:80",
            "http://a:b",
            "http://u@a.org",
            "https://",
        ] {
            assert_eq!(n(bad), None, "{bad}");
        }
    }
}
