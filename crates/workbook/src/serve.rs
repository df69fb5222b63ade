//! `cargo labs book --serve`: a tiny static HTTP server for the built book, std only,
//! bound to 127.0.0.1. The mdBook CLI is installed without its `serve` feature (tokio and
//! axum double its build time), and a reader needs no live reload: the book is served as
//! built. GET and HEAD only; paths never leave the book's folder.

use crate::error::{Error as Failure, Result};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};

/// Serves `dir` until the process is stopped (Ctrl-C). Tries port 3000 and the nine
/// after it, then any free port; prints the URL.
pub fn run(dir: &Path) -> Result<()> {
    if !dir.join("index.html").is_file() {
        return Err(Failure::input(format!(
            "{} has no index.html: build the book first",
            dir.display()
        )));
    }
    let listener = (3000..3010)
        .chain([0])
        .find_map(|port| TcpListener::bind(("127.0.0.1", port)).ok())
        .ok_or_else(|| Failure::input("cannot bind a port on 127.0.0.1"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| Failure::io("cannot serve the book", e))?;
    println!(
        "serving {} at http://{addr}/ (Ctrl-C to stop)",
        dir.display()
    );
    let _ = std::io::stdout().flush();
    for stream in listener.incoming().flatten() {
        let dir = dir.to_path_buf();
        std::thread::spawn(move || {
            let _ = respond(stream, &dir);
        });
    }
    Ok(())
}

/// Maps a request path to a file under `dir`, or `None` when it would leave `dir`.
fn resolve(dir: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let path = percent_decode(path)?;
    let mut file = dir.to_path_buf();
    for component in Path::new(path.trim_start_matches('/')).components() {
        match component {
            Component::Normal(part) => file.push(part),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if file.is_dir() {
        file.push("index.html");
    }
    Some(file)
}

/// Decodes `%XX` escapes (a URL path as a browser sends it); `None` when malformed.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn respond(stream: TcpStream, dir: &Path) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Read (and ignore) the headers up to the empty line.
    let mut header = String::new();
    while reader.read_line(&mut header)? > 2 {
        header.clear();
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let mut stream = stream;
    if method != "GET" && method != "HEAD" {
        return send(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain",
            b"GET only\n",
            true,
        );
    }
    let head_only = method == "HEAD";
    match resolve(dir, target).and_then(|file| std::fs::read(&file).ok().map(|b| (file, b))) {
        Some((file, body)) => send(
            &mut stream,
            "200 OK",
            content_type(&file),
            &body,
            !head_only,
        ),
        None => {
            let body =
                std::fs::read(dir.join("404.html")).unwrap_or_else(|_| b"not found\n".to_vec());
            send(
                &mut stream,
                "404 Not Found",
                "text/html; charset=utf-8",
                &body,
                !head_only,
            )
        }
    }
}

fn send(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &[u8],
    with_body: bool,
) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n",
        body.len()
    )?;
    if with_body {
        stream.write_all(body)?;
    }
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_the_book() {
        let dir = Path::new("/book");
        assert_eq!(
            resolve(dir, "/figures/a%20b.svg?x=1#top"),
            Some(PathBuf::from("/book/figures/a b.svg"))
        );
        assert_eq!(resolve(dir, "/../etc/passwd"), None);
        assert_eq!(resolve(dir, "/figures/%2e%2e/%2e%2e/x"), None);
        assert_eq!(resolve(dir, "/%zz"), None);
    }

    #[test]
    fn content_types_follow_the_extension() {
        assert_eq!(content_type(Path::new("a.svg")), "image/svg+xml");
        assert_eq!(
            content_type(Path::new("searchindex-1.js")),
            "text/javascript; charset=utf-8"
        );
    }
}
