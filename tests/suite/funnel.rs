//! The guests' menu through Tailscale Funnel (`--guest-menu-funnel`), end to end on the
//! local tailnet (`tests/tailnet-harness`, all on 127.0.0.1): the harness's "ingress" node
//! plays Tailscale's ingress relay as tsnet's own `TestFunnel` does (`POST /v0/ingress` to
//! the app node's PeerAPI with `Tailscale-Ingress-Src` and `Tailscale-Ingress-Target`, the
//! `101`, then TLS over that connection trusting Pebble's root), and the real binary is
//! the node it reaches.
#![cfg(feature = "tailnet")]

use crate::common;

use common::tailnet::{App, Harness, body, header, write};
use serde_json::{Value, json};
use std::time::Duration;

/// A public address, as Tailscale's relay would name the guest's.
const GUEST: &str = "203.0.113.7:40000";

/// One Funnel connection from the harness's ingress node to the app node, aimed at
/// `target` (`<name>:<port>`), with `n` requests for `path` over it.
async fn funnel(h: &Harness, host: &str, target: &str, src: &str, path: &str, n: u32) -> Value {
    funnel_method(h, host, target, src, "GET", path, n).await
}

/// [`funnel`] with another method.
async fn funnel_method(
    h: &Harness,
    host: &str,
    target: &str,
    src: &str,
    method: &str,
    path: &str,
    n: u32,
) -> Value {
    let n = n.to_string();
    let r = common::client()
        .get(format!("{}/ingress", h.get("harness")))
        .query(&[
            ("host", host),
            ("target", target),
            ("src", src),
            ("method", method),
            ("path", path),
            ("n", &n),
        ])
        .timeout(Duration::from_secs(90))
        .send()
        .await
        .expect("harness /ingress");
    let v: Value = r.json().await.expect("harness JSON");
    assert_eq!(v["ok"], true, "ingress to {target}{path} failed: {v}");
    v
}

/// A guest's request for `path` on the Funnel port: the node took the connection (101)
/// and the app answered.
async fn guest_get(h: &Harness, host: &str, path: &str) -> Value {
    let v = funnel(h, host, &format!("{host}:8443"), GUEST, path, 1).await;
    assert_eq!(
        v["ingress_status"], 101,
        "the node refused Funnel to :8443: {v}"
    );
    assert_eq!(v["tls"]["verified"], true, "{v}");
    v
}

/// The node refused the Funnel connection because its serve config lets no Funnel in to
/// that target (`HandleIngressTCPConn`'s "denied"), not for want of the ingress capability
/// ("denied; no ingress cap"), which would prove nothing about the config.
fn refused_by_the_serve_config(r: &Value) -> bool {
    r["ingress_status"] == 403
        && r["ingress_body"].as_str().map(str::trim) == Some("denied")
        && (r["status"].is_null() || r["status"] == 0)
}

/// A phone's request that may fail (nothing listening): the harness's answer as it is.
async fn phone_try(h: &Harness, url: &str) -> Value {
    common::client()
        .get(format!("{}/fetch", h.get("harness")))
        .query(&[("url", url), ("timeout", "10s")])
        .timeout(Duration::from_secs(60))
        .send()
        .await
        .expect("harness /fetch")
        .json()
        .await
        .expect("harness JSON")
}

/// The addresses of this server a page loads or links (`href="/…"`, `src="/…"`), without
/// their fragments.
fn page_urls(page: &str) -> Vec<String> {
    ["href=\"/", "src=\"/"]
        .iter()
        .flat_map(|attr| page.split(attr).skip(1))
        .filter_map(|rest| rest.split('"').next())
        .map(|url| format!("/{}", url.split('#').next().unwrap_or(url)))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn funnel_reaches_only_the_guests_menu_and_off_means_refused() {
    let h = Harness::start(&["-ingress", "ingress"]);
    let domain = h.domain().to_owned();
    let host = format!("libations.{domain}");
    let state = tempfile::tempdir().unwrap();
    let file = state.path().join("recipes.json");
    std::fs::write(&file, libations::recipes::SAMPLE_JSON).unwrap();
    let key = h.dir.path().join("authkey");
    let login = h.get("peer_login").to_owned();
    let common_args = [
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
    let mut args = common_args.to_vec();
    args.extend(["--guest-menu-funnel", "--access-log"]);
    let app = App::start(&h, &args, &[]);
    app.wait_serving();
    // Start-up names the public address; the harness's policy allows Funnel, so no warning.
    let public = app.log.wait_for(
        "the guests' menu is on the internet through Funnel at",
        Duration::from_secs(30),
    );
    assert!(
        public.contains(&format!("https://{host}:8443/menu")),
        "{public}"
    );
    assert!(
        !app.log
            .text()
            .contains("Funnel is on for the guests' menu, but"),
        "{}",
        app.log.text()
    );

    // No menu on yet: the plain page.
    let r = guest_get(&h, &host, "/menu").await;
    assert_eq!(r["status"], 200, "{r}");
    assert!(body(&r).contains("No menu tonight"), "{r}");

    // The phone (an editor on the tailnet) composes a menu and switches it on, on :443.
    let made = write(
        &h,
        &host,
        None,
        "/api/menus",
        &json!({"title": "Friday", "recipes": [{"id": 1, "description": "Bitter and bright"}, {"id": 2}]}),
    )
    .await;
    assert_eq!(made["status"], 201, "{made}");
    let id = serde_json::from_str::<Value>(&body(&made)).unwrap()["id"].clone();
    let on = write(&h, &host, None, &format!("/api/menus/{id}/on"), &json!({})).await;
    assert_eq!(on["status"], 200, "{on}");

    // The guest gets the menu, over TLS with the node's certificate.
    let r = guest_get(&h, &host, "/menu").await;
    assert_eq!(r["status"], 200, "{r}");
    assert_eq!(r["tls"]["leaf_dns_names"][0], host.as_str(), "{r}");
    let page = body(&r);
    assert!(
        page.contains("Friday") && page.contains("Negroni") && page.contains("Daiquiri"),
        "{page}"
    );
    assert!(page.contains("Bitter and bright"), "{page}");
    // The guest's public address is logged (--access-log), and is all that is known.
    let logged = app.log.wait_for("guest request", Duration::from_secs(5));
    assert!(
        logged.contains("source=203.0.113.7") && !logged.contains("login="),
        "{logged}"
    );
    assert!(
        header(&r, "Content-Security-Policy").contains("default-src 'self'"),
        "{r}"
    );
    assert_eq!(header(&r, "Strict-Transport-Security"), "max-age=31536000");
    // ...and every file the page names.
    let assets = page_urls(&page);
    assert!(!assets.is_empty(), "{page}");
    for asset in &assets {
        let r = guest_get(&h, &host, asset).await;
        assert_eq!(r["status"], 200, "{asset}: {r}");
    }

    // Every other address on :8443 is 404, with nothing of the app in it: pages, the API
    // (reads and writes), the app's own scripts, the service worker, the manifest.
    let front = h.fetch(&format!("https://{host}/"), &[]).await;
    let app_script = page_urls(&body(&front))
        .into_iter()
        .find(|u| u.ends_with(".js"))
        .expect("the app's page names its script");
    for path in [
        "/",
        "/recipes/1",
        "/shelf",
        "/changes",
        "/api/recipes",
        "/api/recipes/download",
        "/api/menus",
        "/api/whoami",
        "/api/me",
        "/api/bar",
        "/api/household/download",
        "/sw.js",
        "/manifest.webmanifest",
        "/static/sw.js",
        "/static/icon-512.png",
        "/menu/print",
        "/metrics",
        app_script.as_str(),
    ] {
        let r = guest_get(&h, &host, path).await;
        assert_eq!(r["status"], 404, "{path} on :8443: {r}");
        assert_eq!(body(&r), "Not found.\n", "{path} on :8443: {r}");
    }

    // No write of any kind: the menu API is not there, and /menu takes only GET.
    let target = format!("{host}:8443");
    for (method, path, status) in [
        ("POST", "/api/menus/off", 404),
        ("POST", &format!("/api/menus/{id}/on") as &str, 404),
        ("DELETE", &format!("/api/menus/{id}"), 404),
        ("PUT", "/api/bar/shelf", 404),
        ("POST", "/menu", 405),
    ] {
        let r = funnel_method(&h, &host, &target, GUEST, method, path, 1).await;
        assert_eq!(r["status"], status, "{method} {path} on :8443: {r}");
    }
    let r = guest_get(&h, &host, "/menu").await;
    assert!(body(&r).contains("Friday"), "a guest's write took: {r}");

    // A Funnel connection aimed at the full app (:443) or the redirect (:80) is refused by
    // the node itself (nothing lets Funnel in there).
    for port in [443, 80] {
        let r = funnel(&h, &host, &format!("{host}:{port}"), GUEST, "/", 1).await;
        assert!(refused_by_the_serve_config(&r), "Funnel to :{port}: {r}");
    }

    // A source that claims a tailnet address (the phone's, even) still gets only the menu:
    // the address is counted and logged, never an identity.
    let phone_ip = h.get("peer_ips").split(',').next().unwrap().to_owned();
    let claimed = format!("{phone_ip}:40000");
    let r = funnel(&h, &host, &target, &claimed, "/menu", 1).await;
    assert_eq!(r["status"], 200, "{r}");
    assert!(body(&r).contains("Friday"));
    for path in ["/api/whoami", "/api/me", "/", "/api/menus"] {
        let r = funnel(&h, &host, &target, &claimed, path, 1).await;
        assert_eq!(r["status"], 404, "{path} as {claimed}: {r}");
    }

    // The phone on the tailnet still gets the full app on :443, knowing who it is.
    let r = h.fetch(&format!("https://{host}/recipes/1"), &[]).await;
    assert_eq!(r["status"], 200);
    assert!(body(&r).contains("Campari"));
    let me = h.fetch(&format!("https://{host}/api/whoami"), &[]).await;
    assert_eq!(me["status"], 200, "{me}");
    assert!(body(&me).contains(&login), "{me}");
    // On :8443 the phone is a guest like any other.
    let r = h
        .fetch(&format!("https://{host}:8443/api/whoami"), &[])
        .await;
    assert_eq!(r["status"], 404, "{r}");

    // The host switches the menu off: guests get the plain page at once; and back on.
    let off = write(&h, &host, None, "/api/menus/off", &json!({})).await;
    assert_eq!(off["status"], 200, "{off}");
    let r = guest_get(&h, &host, "/menu").await;
    assert_eq!(r["status"], 200, "{r}");
    assert!(
        body(&r).contains("No menu tonight") && !body(&r).contains("Negroni"),
        "{r}"
    );
    let on = write(&h, &host, None, &format!("/api/menus/{id}/on"), &json!({})).await;
    assert_eq!(on["status"], 200, "{on}");

    // One source that asks too often is held back (429), another is not.
    let r = funnel(&h, &host, &target, GUEST, "/menu", 260).await;
    let statuses = &r["statuses"];
    assert!(statuses["429"].as_u64().unwrap_or(0) >= 1, "{statuses}");
    assert!(statuses["200"].as_u64().unwrap_or(0) >= 150, "{statuses}");
    let r = funnel(&h, &host, &target, "198.51.100.9:50000", "/menu", 1).await;
    assert_eq!(r["status"], 200, "{r}");
    assert_eq!(app.stop(), 0);

    // Off (the same node, restarted without the flag): the Funnel entry left by the run
    // above is removed, :8443 is refused to Funnel, and nothing listens there.
    let app = App::start(&h, &common_args, &[]);
    app.wait_serving();
    app.log.wait_for(
        "removing a Funnel entry left in the node's serve config by an earlier run",
        Duration::from_secs(5),
    );
    assert!(!app.log.text().contains("through Funnel at"));
    let r = funnel(&h, &host, &target, GUEST, "/menu", 1).await;
    assert!(
        refused_by_the_serve_config(&r),
        "Funnel to :8443 with the flag off: {r}"
    );
    let r = phone_try(&h, &format!("https://{host}:8443/menu")).await;
    assert_ne!(
        r["ok"], true,
        "something answers on :8443 with the flag off: {r}"
    );
    // The app itself is unchanged for the phone.
    let r = h.fetch(&format!("https://{host}/menu"), &[]).await;
    assert_eq!(r["status"], 200);
    assert!(body(&r).contains("Friday"));
    assert_eq!(app.stop(), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_the_funnel_attribute_start_up_warns() {
    let h = Harness::start(&["-no-funnel"]);
    let host = format!("libations.{}", h.domain());
    let state = tempfile::tempdir().unwrap();
    let key = h.dir.path().join("authkey");
    let args = [
        "--state-dir",
        state.path().to_str().unwrap(),
        "--auth-key-file",
        key.to_str().unwrap(),
        "--guest-menu-funnel",
    ];
    let app = App::start(&h, &args, &[]);
    app.wait_serving();
    let warning = app.log.wait_for(
        "Funnel is on for the guests' menu, but",
        Duration::from_secs(30),
    );
    assert!(warning.contains("WARN"), "{warning}");
    assert!(warning.contains("\"funnel\" node attribute"), "{warning}");
    assert!(
        warning.contains(&format!("https://{host}:8443/menu")),
        "{warning}"
    );
    assert_eq!(app.stop(), 0);
}

/// Funnel needs the node's serve config: with `--local` or libtailscale's own listeners the
/// flag is refused at start, before anything listens or joins.
#[test]
fn the_flag_is_refused_where_funnel_cannot_work() {
    for (args, needle) in [
        (
            vec!["--local", "--addr", "127.0.0.1:0", "--guest-menu-funnel"],
            "does not go with --local",
        ),
        (
            vec![
                "--guest-menu-funnel",
                "--tailnet-listener",
                "socketpair",
                "--control-url",
                "http://127.0.0.1:9",
            ],
            "does not go with --tailnet-listener socketpair",
        ),
    ] {
        let state = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(common::BIN)
            .args(&args)
            .arg("--state-dir")
            .arg(state.path())
            .env("TS_NO_LOGS_NO_SUPPORT", "true")
            .env_remove("TS_AUTHKEY")
            .env_remove("LIBATIONS_GUEST_MENU_FUNNEL")
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?} started");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}
