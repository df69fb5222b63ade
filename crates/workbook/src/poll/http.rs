//! A small HTTP/1.1 client over std's `TcpStream`, for one purpose: posting a vote to the
//! teacher's poll and reading its short answer. A learner's first build pays nothing for
//! it (no HTTP crate, no async runtime). It speaks plain `http://` only (a poll runs in
//! the room, on the teacher's laptop), one request per connection (`Connection: close`),
//! and reads at most [`MAX_REPLY_BYTES`], within a time limit.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// The most of a reply the client reads: a receipt or a refusal is a few hundred bytes.
pub const MAX_REPLY_BYTES: usize = 1 << 20;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const IO_TIMEOUT: Duration = Duration::from_secs(15);

/// Where a poll answers: `http://HOST[:PORT][/PREFIX]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    pub host: String,
    pub port: u16,
    /// The path before the poll's own paths, without a trailing `/` (usually empty).
    pub prefix: String,
}

impl Endpoint {
    /// Reads a poll's URL as the teacher printed it.
    pub fn parse(url: &str) -> Result<Endpoint, String> {
        let bad = |why: &str| format!("`{url}` is not a poll's address: {why}");
        let rest = url.trim().strip_prefix("http://").ok_or_else(|| {
            bad("it starts with http:// (the poll serves plain HTTP in the room)")
        })?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) if !port.contains(']') => {
                let port = port.parse().map_err(|_| bad("its port is not a number"))?;
                (host, port)
            }
            _ => (authority, 80),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() || host.contains(['@', ' ', '?', '#']) {
            return Err(bad("it names no host"));
        }
        if path.contains(['?', '#', ' ']) {
            return Err(bad("give the address without a query"));
        }
        Ok(Endpoint {
            host: host.to_string(),
            port,
            prefix: path.trim_end_matches('/').to_string(),
        })
    }

    /// `host:port` as a `Host` header writes it (an IPv6 address in brackets).
    fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}{path}", self.authority(), self.prefix)
    }
}

/// What the server answered: its status and its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub body: String,
}

/// Sends one request and reads the whole reply. `body` is sent with `content_type`.
pub fn request(
    endpoint: &Endpoint,
    method: &str,
    path: &str,
    content_type: &str,
    body: &[u8],
) -> std::io::Result<Reply> {
    let mut stream = connect(endpoint)?;
    let head = format!(
        "{method} {}{path} HTTP/1.1\r\nHost: {}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\nUser-Agent: cargo-labs\r\n\r\n",
        endpoint.prefix,
        endpoint.authority(),
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()?;
    let mut raw = Vec::new();
    stream
        .take(MAX_REPLY_BYTES as u64 + 1)
        .read_to_end(&mut raw)?;
    if raw.len() > MAX_REPLY_BYTES {
        return Err(std::io::Error::other("the reply is larger than a poll's"));
    }
    parse_reply(&raw).map_err(std::io::Error::other)
}

fn connect(endpoint: &Endpoint) -> std::io::Result<TcpStream> {
    let mut last = std::io::Error::other("the host has no address");
    for addr in (endpoint.host.as_str(), endpoint.port).to_socket_addrs()? {
        match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
            Ok(stream) => {
                stream.set_read_timeout(Some(IO_TIMEOUT))?;
                stream.set_write_timeout(Some(IO_TIMEOUT))?;
                return Ok(stream);
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// Splits a reply into its status, its content type and its body (as long as its
/// `Content-Length` says, or up to the end: the server closes the connection).
pub fn parse_reply(raw: &[u8]) -> Result<Reply, String> {
    let end =
        (raw.windows(4).position(|w| w == b"\r\n\r\n")).ok_or("the reply has no end of headers")?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status = (lines.next().unwrap_or_default().split(' ').nth(1))
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or("the reply has no status")?;
    let mut length = None;
    let mut content_type = String::new();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse::<usize>().ok(),
            "content-type" => content_type = value.trim().to_string(),
            "transfer-encoding" => {
                return Err("the reply is chunked, which a poll never sends".into());
            }
            _ => {}
        }
    }
    let body = &raw[end + 4..];
    let body = &body[..length.unwrap_or(body.len()).min(body.len())];
    Ok(Reply {
        status,
        content_type,
        body: String::from_utf8_lossy(body).into_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_poll_address_is_plain_http_with_a_host() {
        let e = Endpoint::parse("http://192.168.1.20:8470/").unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.prefix.as_str()),
            ("192.168.1.20", 8470, "")
        );
        assert_eq!(e.url("/votes"), "http://192.168.1.20:8470/votes");
        let e = Endpoint::parse("http://[::1]:9000/class").unwrap();
        assert_eq!(
            (e.host.as_str(), e.port, e.prefix.as_str()),
            ("::1", 9000, "/class")
        );
        assert_eq!(e.url("/votes"), "http://[::1]:9000/class/votes");
        assert_eq!(Endpoint::parse("http://poll.local").unwrap().port, 80);
        for bad in [
            "https://x:1",
            "x:1",
            "http://:80",
            "http://x:port",
            "http://a@b",
            "http://x/?q",
        ] {
            assert!(Endpoint::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_reply_is_cut_at_its_content_length() {
        let raw = b"HTTP/1.1 409 Conflict\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}junk";
        let reply = parse_reply(raw).unwrap();
        assert_eq!((reply.status, reply.body.as_str()), (409, "{}"));
        assert_eq!(reply.content_type, "application/json");
        assert!(parse_reply(b"HTTP/1.1 200 OK\r\n").is_err());
        assert!(parse_reply(b"garbage\r\n\r\n").is_err());
    }
}
