//! End to end on a real tailnet, all on 127.0.0.1: Tailscale's own test control server
//! with DERP and STUN, Pebble as the ACME CA, a second tsnet node acting as the phone (all
//! run by `tests/tailnet-harness`), and the real `libations` binary joining as a node.
#![cfg(feature = "tailnet")]
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is a failed test: it says where

mod common;

use common::tailnet::{App, Harness, body, header, write};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[tokio::test(flavor = "multi_thread")]
async fn serves_https_on_a_real_tailnet_redirects_and_survives_restarts() {
    let h = Harness::start(&[]);
    let host = format!("libations.{}", h.domain());
    let state = tempfile::tempdir().unwrap();
    // Run as the NixOS unit does: credentials by name from $CREDENTIALS_DIRECTORY, the key
    // in the env-file format, the recipes from a credential, JSON logs.
    let creds = tempfile::tempdir().unwrap();
    std::fs::write(
        creds.path().join("auth-key"),
        format!("TS_AUTHKEY={}\n", h.auth_key()),
    )
    .unwrap();
    std::fs::write(
        creds.path().join("recipes.json"),
        r#"[{"id": 7, "name": "Tailnet Sour", "base": ["Gin"], "ingredients": [{"name": "Lime Juice", "measure": "25", "unit": "ml"}]},
            {"id": 8, "name": "Remote Negroni", "base": ["Gin"], "ingredients": [{"name": "Campari", "measure": "30", "unit": "ml"}]}]"#,
    )
    .unwrap();
    let state_dir = state.path().join("libations");
    let unit_args = [
        "--state-dir",
        state_dir.to_str().unwrap(),
        "--auth-key-file",
        "auth-key",
        "--recipes-file",
        "recipes.json",
        "--log-format",
        "json",
    ];
    let creds_env = [
        ("CREDENTIALS_DIRECTORY", creds.path().to_str().unwrap()),
        ("STATE_DIRECTORY", state_dir.to_str().unwrap()),
    ];
    let started = Instant::now();
    let app = App::start(&h, &unit_args, &creds_env);
    app.wait_serving();
    eprintln!(
        "start to serving HTTPS on the tailnet: {:?}",
        started.elapsed()
    );
    let joined = app
        .log
        .wait_for("joined the tailnet", Duration::from_secs(1));
    assert!(joined.contains(&host), "{joined}");
    assert!(joined.contains("100.64."), "tailnet IPs logged: {joined}");
    let mode = std::fs::metadata(&state_dir).unwrap();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode.permissions()) & 0o777,
        0o700
    );
    // The node asked for its certificate's TXT record (tailscale.com's cert.go), and
    // the only name server it can see is 127.0.0.1 (tests/tailnet-harness/loopback-dns):
    // the query never left this machine.
    let seen =
        std::fs::read_to_string(format!("/proc/{}/root/etc/resolv.conf", app.child.id())).unwrap();
    let servers: Vec<&str> = seen
        .lines()
        .filter_map(|l| l.strip_prefix("nameserver"))
        .map(str::trim)
        .collect();
    assert_eq!(servers, ["127.0.0.1"], "the app's /etc/resolv.conf: {seen}");

    // :80 redirects to the full MagicDNS name, whatever the Host header says.
    let r = h.fetch("http://libations/", &[]).await;
    assert_eq!(r["status"], 301, "{r}");
    assert_eq!(header(&r, "Location"), format!("https://{host}/"));
    let r = h
        .fetch(
            &format!("http://{host}/recipes/7?x=1"),
            &[("host", "evil.example")],
        )
        .await;
    assert_eq!(
        header(&r, "Location"),
        format!("https://{host}/recipes/7?x=1")
    );

    // HTTPS verifies against Pebble's root, over HTTP/2, with HSTS.
    let r = h.fetch(&format!("https://{host}/"), &[]).await;
    assert_eq!(r["status"], 200, "{r}");
    assert_eq!(r["tls"]["verified"], true);
    assert_eq!(r["tls"]["alpn"], "h2");
    assert_eq!(header(&r, "Strict-Transport-Security"), "max-age=31536000");
    let page = body(&r);
    assert!(
        page.contains("Tailnet Sour")
            && page.contains("Remote Negroni")
            && page.contains("2 recipes")
    );
    let r = h.fetch(&format!("https://{host}/?q=lime"), &[]).await;
    assert!(body(&r).contains("1 of 2") && body(&r).contains("Tailnet Sour"));
    let r = h
        .fetch(&format!("https://{host}/recipes/8"), &[("h1", "1")])
        .await;
    assert_eq!(r["proto"], "HTTP/1.1");
    assert!(body(&r).contains("Remote Negroni") && body(&r).contains("Campari"));
    let r = h
        .fetch(&format!("https://{host}/api/recipes?q=base:gin"), &[])
        .await;
    let api: Vec<Value> = serde_json::from_str(&body(&r)).unwrap();
    assert_eq!(api.len(), 2);
    // The short name (and so any SNI) gets the same certificate.
    let r = h
        .fetch(
            "https://libations/",
            &[("sni", "libations"), ("insecure", "1")],
        )
        .await;
    assert_eq!(r["status"], 200);
    assert_eq!(r["tls"]["leaf_dns_names"][0], host.as_str());

    // The control server goes away: the connected phone still loads pages.
    h.post("/control/stop").await;
    let r = h.fetch(&format!("https://{host}/?q=negroni"), &[]).await;
    assert_eq!(r["status"], 200);
    assert!(body(&r).contains("Remote Negroni"));
    h.post("/control/start").await;

    // SIGTERM: clean exit; the state stays.
    let before = h.node_addresses("libations").await;
    assert!(!before.is_null());
    assert_eq!(app.stop(), 0, "exit code after SIGTERM");

    // Restart with the same state dir, the bare-key format and the embedded sample: it
    // rejoins as the same node, without a new login.
    std::fs::write(creds.path().join("auth-key"), format!("{}\n", h.auth_key())).unwrap();
    let app = App::start(&h, &unit_args[..6], &creds_env);
    app.wait_serving();
    assert_eq!(
        h.node_addresses("libations").await,
        before,
        "same node identity after restart"
    );
    let r = h.fetch(&format!("https://{host}/recipes/7"), &[]).await;
    assert!(body(&r).contains("Tailnet Sour"));
    assert_eq!(app.stop(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_key_the_login_url_is_logged_then_it_joins() {
    let h = Harness::start(&["-require-auth"]);
    let state = tempfile::tempdir().unwrap();
    let app = App::start(&h, &["--state-dir", state.path().to_str().unwrap()], &[]);
    let line = app.log.wait_for(
        "open this URL to add libations to your tailnet: ",
        Duration::from_secs(60),
    );
    assert!(line.contains("WARN"), "{line}");
    let url = line
        .split("your tailnet: ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap();
    assert!(url.starts_with(h.get("control")), "{url}");
    let r = common::client()
        .post(format!("{}/control/complete-auth", h.get("harness")))
        .query(&[("url", url)])
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    app.wait_serving();
    let r = h
        .fetch(&format!("https://libations.{}/", h.domain()), &[])
        .await;
    assert_eq!(r["status"], 200);
    assert_eq!(app.stop(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_https_on_the_tailnet_port_80_explains_what_to_enable() {
    let h = Harness::start(&["-magicdns-domain", ""]);
    let state = tempfile::tempdir().unwrap();
    let key = h.dir.path().join("authkey");
    let app = App::start(
        &h,
        &[
            "--state-dir",
            state.path().to_str().unwrap(),
            "--auth-key-file",
            key.to_str().unwrap(),
        ],
        &[],
    );
    let error = app
        .log
        .wait_for("no HTTPS certificate", Duration::from_secs(60));
    assert!(
        error.contains("ERROR")
            && error.contains("MagicDNS")
            && error.contains("HTTPS Certificates"),
        "{error}"
    );
    let joined = app
        .log
        .wait_for("joined the tailnet", Duration::from_secs(1));
    let ip = joined
        .split("ips=")
        .nth(1)
        .and_then(|s| s.split(|c: char| c == ',' || c.is_whitespace()).next())
        .unwrap()
        .to_owned();
    let r = h.fetch(&format!("http://{ip}/"), &[]).await;
    assert_eq!(r["status"], 503, "{r}");
    assert!(body(&r).contains("Enable <strong>MagicDNS</strong>"), "{r}");
    assert_eq!(header(&r, "Retry-After"), "60");
    assert_eq!(app.stop(), 0);
}

async fn ready_status(base: &str) -> u16 {
    common::client()
        .get(format!("{base}/readyz"))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread")]
async fn control_unreachable_at_start_is_retried_and_reported() {
    let h = Harness::start(&[]);
    h.post("/control/stop").await;
    let state = tempfile::tempdir().unwrap();
    let key = h.dir.path().join("authkey");
    let app = App::start(
        &h,
        &[
            "--state-dir",
            state.path().to_str().unwrap(),
            "--auth-key-file",
            key.to_str().unwrap(),
            "--metrics-addr",
            "127.0.0.1:0",
        ],
        &[],
    );
    let line = app
        .log
        .wait_for("metrics on http://", Duration::from_secs(30));
    let metrics = line
        .split("metrics on ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap()
        .trim_end_matches("/metrics")
        .to_owned();
    let waiting = app
        .log
        .wait_for("not on the tailnet yet", Duration::from_secs(60));
    assert!(waiting.contains("still trying"), "{waiting}");
    assert_eq!(ready_status(&metrics).await, 503);
    assert!(
        common::metrics_text(&metrics)
            .await
            .contains("libations_tailnet_up 0")
    );

    // Control comes back: the node joins by itself and serves.
    h.post("/control/start").await;
    app.wait_serving();
    assert_eq!(ready_status(&metrics).await, 200);
    let text = common::metrics_text(&metrics).await;
    assert!(text.contains("libations_tailnet_up 1"), "{text}");
    let expiry: i64 = text
        .lines()
        .find(|l| l.starts_with("libations_tls_certificate_expiry_timestamp_seconds "))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no certificate expiry in\n{text}"));
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    assert!(
        expiry > now + 86_400,
        "certificate expiry {expiry} is not in the future"
    );
    let r = h
        .fetch(&format!("https://libations.{}/", h.domain()), &[])
        .await;
    assert_eq!(r["status"], 200);
    profile_while_the_tailnet_is_busy(&h, &metrics).await;
    assert_eq!(app.stop(), 0);
}

/// Every file under `dir` with its bytes and mode, to tell whether anything changed.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>, u32)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let mode = std::os::unix::fs::PermissionsExt::mode(&meta.permissions());
            if meta.is_dir() {
                stack.push(path.clone());
                out.push((path, Vec::new(), mode));
            } else {
                out.push((path.clone(), std::fs::read(&path).unwrap(), mode));
            }
        }
    }
    out.sort();
    out
}

/// Someone moves from the Go original: its node (a tsnet node named `libations`, state in
/// `$XDG_CONFIG_HOME/tsnet-libations`) was registered and stopped. Our binary, started the
/// Go way with no state of its own and no auth key (control asks unknown nodes to log in),
/// comes up as that same node, and the original's directory is left as it was.
#[tokio::test(flavor = "multi_thread")]
async fn the_go_originals_node_is_adopted_as_the_same_machine() {
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config");
    let go_dir = config.join("tsnet-libations");
    let h = Harness::start(&[
        "-require-auth",
        "-original-state-dir",
        go_dir.to_str().unwrap(),
    ]);
    let original_key = h.get("original_node_key").to_owned();
    let original_ips: Vec<String> = h.get("original_ips").split(',').map(String::from).collect();
    assert!(go_dir.join("tailscaled.state").is_file());
    let before = snapshot(&go_dir);

    let state_home = home.path().join("state");
    let app = App::start(
        &h,
        &["-hostname", "libations", "-tsnet-logs=false"],
        &[
            ("XDG_CONFIG_HOME", config.to_str().unwrap()),
            ("XDG_STATE_HOME", state_home.to_str().unwrap()),
            ("HOME", home.path().to_str().unwrap()),
        ],
    );
    app.wait_serving();
    let ours = state_home.join("libations");
    let adopted = app.log.wait_for(
        "adopted the Go version's tailnet node",
        Duration::from_secs(1),
    );
    assert!(
        adopted.contains(&format!(
            "from {} into {}",
            go_dir.display(),
            ours.display()
        )),
        "{adopted}"
    );
    assert!(adopted.contains("tailscaled.state"), "{adopted}");
    // The node's name is read from the state the Go side wrote: only a node of our name is
    // taken over.
    assert!(
        adopted.contains("adopted the Go version's tailnet node \"libations\": copied"),
        "{adopted}"
    );
    assert!(ours.join("tailscaled.state").is_file());

    // The control server sees one machine named libations: the original's node key and IPs.
    let nodes: Vec<Value> = common::client()
        .get(format!("{}/control/nodes", h.get("harness")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ours_in_control: Vec<&Value> = nodes
        .iter()
        .filter(|n| {
            n["hostname"]
                .as_str()
                .unwrap_or_default()
                .starts_with("libations")
        })
        .collect();
    assert_eq!(ours_in_control.len(), 1, "{nodes:?}");
    assert_eq!(ours_in_control[0]["node_key"], original_key.as_str());
    assert_eq!(
        ours_in_control[0]["addresses"],
        serde_json::json!(original_ips)
    );
    let joined = app
        .log
        .wait_for("joined the tailnet", Duration::from_secs(1));
    assert!(joined.contains(&original_ips[0]), "{joined}");

    // Same name, so the same URL, with a certificate.
    let r = h
        .fetch(&format!("https://libations.{}/", h.domain()), &[])
        .await;
    assert_eq!(r["status"], 200, "{r}");
    assert_eq!(app.stop(), 0);
    assert_eq!(snapshot(&go_dir), before, "the original directory changed");
}

/// The metrics listener's base URL, from the app's log.
fn metrics_base(app: &App) -> String {
    let line = app
        .log
        .wait_for("metrics on http://", Duration::from_secs(30));
    line.split("metrics on ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap()
        .trim_end_matches("/metrics")
        .to_owned()
}

/// `/api/whoami` as the client node `from` (the phone when `None`) sees it.
async fn whoami(h: &Harness, host: &str, from: Option<&str>, extra: &[(&str, &str)]) -> Value {
    let mut params = extra.to_vec();
    if let Some(from) = from {
        params.push(("from", from));
    }
    let r = h
        .fetch(&format!("https://{host}/api/whoami"), &params)
        .await;
    assert_eq!(r["status"], 200, "{r}");
    assert_eq!(header(&r, "Cache-Control"), "private, no-store");
    serde_json::from_str(&body(&r)).unwrap_or_else(|e| panic!("whoami JSON: {e}: {r}"))
}

/// Asks until `/api/whoami` says `edit` is `want` (grants reach the node with its next map
/// response, and answers are cached for a few seconds).
async fn wait_for_edit(h: &Harness, host: &str, want: bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let me = whoami(h, host, None, &[]).await;
        if me["capabilities"]["edit"] == want {
            return me;
        }
        assert!(Instant::now() < deadline, "edit never became {want}: {me}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The loopback address the app's :443 is forwarded to, from its log.
fn forwarded_443(app: &App) -> String {
    let line = app.log.wait_for("port=443 to=", Duration::from_secs(5));
    line.split("to=")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap()
        .to_owned()
}

/// A local process (this test) connects to the forwarded listener and claims, with a
/// PROXY header of its own, to be the phone. It must get nothing: no page, no identity.
async fn forged_proxy_gets_nothing(forwarded: &str, phone_ip: &str) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tcp = tokio::net::TcpStream::connect(forwarded).await.unwrap();
    let source = format!("{phone_ip}:41000").parse().unwrap();
    let mut forged = libations::tailnet::proxy::encode(source, "100.64.0.9:443".parse().unwrap());
    forged.extend_from_slice(b"GET /api/whoami HTTP/1.1\r\nHost: x\r\n\r\n");
    let _ = tcp.write_all(&forged).await;
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(15), tcp.read_to_end(&mut answer));
    let _ = read
        .await
        .expect("the forged connection is closed, not left open");
    assert!(
        answer.is_empty(),
        "a forged PROXY header got an answer: {}",
        String::from_utf8_lossy(&answer)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn every_tailnet_request_knows_who_sent_it_and_what_they_may_do() {
    let h = Harness::start(&["-distinct-users", "-second-peer", "phone2"]);
    let host = format!("libations.{}", h.domain());
    let state = tempfile::tempdir().unwrap();
    let key = h.dir.path().join("authkey");
    let args = [
        "--state-dir",
        state.path().to_str().unwrap(),
        "--auth-key-file",
        key.to_str().unwrap(),
        "--metrics-addr",
        "127.0.0.1:0",
        "--access-log",
    ];
    let app = App::start(&h, &args, &[]);
    app.wait_serving();
    let metrics = metrics_base(&app);
    let (login, login2) = (h.get("peer_login"), h.get("peer2_login"));
    assert!(login.contains('@') && login2.contains('@') && login != login2);

    // The phone is known by its login, over HTTP/2 and HTTP/1.1; no grant: no edit.
    for extra in [&[][..], &[("h1", "1")][..]] {
        let me = whoami(&h, &host, None, extra).await;
        assert_eq!(me["known"], true, "{me}");
        assert_eq!(me["login"], login, "{me}");
        assert_eq!(me["node"], "phone", "{me}");
        assert!(
            me["display_name"].as_str().unwrap().starts_with("User "),
            "{me}"
        );
        assert_eq!(
            me["label"],
            format!("{} \u{b7} phone", me["display_name"].as_str().unwrap())
        );
        assert_eq!(me["tags"], serde_json::json!([]));
        assert_eq!(me["capabilities"]["edit"], false, "{me}");
    }
    // The page carries the place for the name and the script that fills it.
    let r = h.fetch(&format!("https://{host}/"), &[]).await;
    assert_eq!(r["status"], 200);
    assert!(body(&r).contains(r#"<span class="who" id="who" hidden></span>"#));
    // The second phone is another user, told apart.
    let me2 = whoami(&h, &host, Some("phone2"), &[]).await;
    assert_eq!(me2["login"], login2, "{me2}");
    assert_eq!(me2["node"], "phone2", "{me2}");
    // :80 still redirects, through its own forward.
    let r = h.fetch("http://libations/x", &[]).await;
    assert_eq!(r["status"], 301, "{r}");
    assert_eq!(header(&r, "Location"), format!("https://{host}/x"));
    let access = app.log.wait_for("path=/api/whoami", Duration::from_secs(5));
    assert!(access.contains(&format!("login={login}")), "{access}");

    // A grant in the policy reaches the app without a restart; taking it away too.
    let grant = common::client()
        .post(format!("{}/control/app-caps", h.get("harness")))
        .body(r#"{"libations.app/cap/libations": [{"edit": false}, {"edit": true}]}"#)
        .send()
        .await
        .unwrap();
    assert!(grant.status().is_success());
    let me = wait_for_edit(&h, &host, true).await;
    assert_eq!(me["login"], login);
    let clear = common::client()
        .delete(format!("{}/control/app-caps", h.get("harness")))
        .send()
        .await
        .unwrap();
    assert!(clear.status().is_success());
    wait_for_edit(&h, &host, false).await;

    // A local process with a forged PROXY header: closed unanswered, and counted.
    let phone_ip = h.get("peer_ips").split(',').next().unwrap().to_owned();
    forged_proxy_gets_nothing(&forwarded_443(&app), &phone_ip).await;
    let text = common::metrics_text(&metrics).await;
    assert!(
        text.contains(r#"libations_tailnet_forward_refused_total{reason="not_ours"} 1"#),
        "{text}"
    );
    assert!(text.contains("libations_tailnet_identity 1"), "{text}");
    assert!(!text.contains(login), "no per-user labels in metrics");

    // Control goes away: pages and identity still work (from the node's netmap), after
    // the cached answers have expired.
    h.post("/control/stop").await;
    tokio::time::sleep(Duration::from_secs(6)).await;
    let me = whoami(&h, &host, None, &[]).await;
    assert_eq!(me["login"], login, "{me}");
    let r = h.fetch(&format!("https://{host}/recipes/1"), &[]).await;
    assert_eq!(r["status"], 200);
    h.post("/control/start").await;
    assert_eq!(app.stop(), 0);

    // Restart with the same state: the serve config left behind points at a port that
    // is gone; it is replaced, and identity works again.
    let app = App::start(&h, &args, &[]);
    app.wait_serving();
    let replaced = app
        .log
        .wait_for("replacing the node's serve config", Duration::from_secs(5));
    assert!(replaced.contains("TCPForward"), "{replaced}");
    let me = whoami(&h, &host, None, &[]).await;
    assert_eq!(me["login"], login, "{me}");
    assert_eq!(app.stop(), 0);

    // On libtailscale's own listeners (the fallback) pages work and nobody is known.
    let socketpair = [&args[..], &["--tailnet-listener", "socketpair"]].concat();
    let app = App::start(&h, &socketpair, &[]);
    app.wait_serving();
    let metrics = metrics_base(&app);
    let me = whoami(&h, &host, None, &[]).await;
    assert_eq!(me["known"], false, "{me}");
    assert_eq!(me["capabilities"]["edit"], false, "{me}");
    let r = h.fetch(&format!("https://{host}/"), &[]).await;
    assert_eq!(r["status"], 200);
    let text = common::metrics_text(&metrics).await;
    assert!(text.contains("libations_tailnet_identity 0"), "{text}");
    assert_eq!(app.stop(), 0);
}

/// A CPU profile while the phone loads our node hard, so that `SIGPROF` lands on the Go
/// threads of the embedded node too: the process must survive it and keep serving. The
/// profile route exists only on the metrics listener, never on the tailnet.
async fn profile_while_the_tailnet_is_busy(h: &Harness, metrics: &str) {
    let page = format!("https://libations.{}/", h.domain());
    let load = common::client()
        .get(format!("{}/load", h.get("harness")))
        .query(&[
            ("url", page.as_str()),
            ("n", "400"),
            ("c", "8"),
            ("timeout", "30s"),
        ])
        .timeout(Duration::from_secs(90))
        .send();
    let profile = common::client()
        .get(format!("{metrics}/debug/pprof/profile?seconds=2"))
        .send();
    let (load, profile) = tokio::join!(load, profile);
    let load: Value = load
        .expect("harness /load")
        .json()
        .await
        .expect("load JSON");
    let profile = profile.expect("profile request");
    assert_eq!(profile.status(), 200);
    let body = profile.bytes().await.unwrap();
    assert_eq!(&body[..2], [0x1f, 0x8b]);
    // The load ran through the profile (a rare stalled request is the harness's, not
    // ours: the node must still serve afterwards, checked below).
    assert!(load["ok"].as_u64().unwrap_or(0) > 100, "{load}");
    let r = h
        .fetch(&format!("{page}debug/pprof/profile?seconds=1"), &[])
        .await;
    assert_eq!(r["status"], 404, "{r}");
    assert_eq!(h.fetch(&page, &[]).await["status"], 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_editor_saves_over_https_another_phone_finds_it_and_a_non_editor_cannot() {
    let h = Harness::start(&["-distinct-users", "-second-peer", "phone2"]);
    let host = format!("libations.{}", h.domain());
    let state = tempfile::tempdir().unwrap();
    let file = state.path().join("recipes.json");
    std::fs::write(&file, libations::recipes::SAMPLE_JSON).unwrap();
    let key = h.dir.path().join("authkey");
    let login = h.get("peer_login").to_owned();
    let args = [
        "--state-dir",
        state.path().to_str().unwrap(),
        "--auth-key-file",
        key.to_str().unwrap(),
        "--recipes-file",
        file.to_str().unwrap(),
        "--allow-edits",
        "--editor",
        &login,
    ];
    let app = App::start(&h, &args, &[]);
    app.wait_serving();
    let gimlet = serde_json::json!({
        "name": "Tailnet Gimlet",
        "base": ["Gin"],
        "ingredients": [
            {"name": "Gin", "measure": "50", "unit": "ml"},
            {"name": "Lime Juice", "measure": "20", "unit": "ml"}
        ]
    });

    // The phone's login is an editor: it sees the controls and its save lands.
    let me = whoami(&h, &host, None, &[]).await;
    assert_eq!(me["can_edit"], true, "{me}");
    let page = h.fetch(&format!("https://{host}/recipes/1"), &[]).await;
    assert!(
        body(&page).contains("/recipes/1/edit"),
        "no edit link for the editor"
    );
    let saved = write(&h, &host, None, "/api/recipes", &gimlet).await;
    assert_eq!(saved["status"], 201, "{saved}");
    let change: Value = serde_json::from_str(&body(&saved)).unwrap();
    assert_eq!(change["change"]["who"], login.as_str());

    // The second phone (another user, no grant, not an editor) finds it by search...
    let found = h
        .fetch(
            &format!("https://{host}/api/recipes?q=tailnet+gimlet"),
            &[("from", "phone2")],
        )
        .await;
    let found: Vec<Value> = serde_json::from_str(&body(&found)).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    // ...but cannot write, and sees no edit controls.
    let refused = write(&h, &host, Some("phone2"), "/api/recipes", &gimlet).await;
    assert_eq!(refused["status"], 403, "{refused}");
    assert!(body(&refused).contains("edit"), "{refused}");
    let page = h
        .fetch(&format!("https://{host}/recipes/1"), &[("from", "phone2")])
        .await;
    assert!(
        !body(&page).contains("/recipes/1/edit"),
        "edit link for a non-editor"
    );
    let me2 = whoami(&h, &host, Some("phone2"), &[]).await;
    assert_eq!(me2["can_edit"], false, "{me2}");

    // A grant in the tailnet policy makes the second phone an editor too.
    let grant = common::client()
        .post(format!("{}/control/app-caps", h.get("harness")))
        .body(r#"{"libations.app/cap/libations": [{"edit": true}]}"#)
        .send()
        .await
        .unwrap();
    assert!(grant.status().is_success());
    let deadline = Instant::now() + Duration::from_secs(60);
    while whoami(&h, &host, Some("phone2"), &[]).await["can_edit"] != true {
        assert!(Instant::now() < deadline, "the grant never reached the app");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let mut second = gimlet.clone();
    second["name"] = Value::from("Granted Gimlet");
    let saved = write(&h, &host, Some("phone2"), "/api/recipes", &second).await;
    assert_eq!(saved["status"], 201, "{saved}");
    let on_disk = libations::recipes::Recipes::from_file(&file).expect("the file loads");
    let names: Vec<&str> = on_disk.all().iter().map(|r| r.name.as_str()).collect();
    assert!(
        names.contains(&"Tailnet Gimlet") && names.contains(&"Granted Gimlet"),
        "{names:?}"
    );
    assert_eq!(app.stop(), 0);
}
