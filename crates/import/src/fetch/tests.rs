//! The address rules applied to what a (stub) resolver answers: no test here connects
//! anywhere, whatever the code does.

use super::*;
use std::io;

/// Answers every name with the given addresses.
struct Stub(Vec<IpAddr>);

impl Resolve for Stub {
    fn lookup<'a>(
        &'a self,
        _host: &'a str,
        port: u16,
    ) -> Pin<Box<dyn Future<Output = io::Result<Vec<SocketAddr>>> + Send + 'a>> {
        let addrs = self.0.iter().map(|ip| SocketAddr::new(*ip, port)).collect();
        Box::pin(async move { Ok(addrs) })
    }
}

fn fetcher(answers: &[&str], allowed: &[&str]) -> Fetcher {
    let ips = answers.iter().map(|a| a.parse().unwrap()).collect();
    Fetcher::with_resolver(
        allowed.iter().map(|s| (*s).to_owned()).collect(),
        Arc::new(Stub(ips)),
    )
}

async fn target(f: &Fetcher, address: &str) -> Result<Target, FetchError> {
    f.target(&parse(address)?).await
}

#[tokio::test]
async fn a_name_that_resolves_to_a_refused_address_is_refused_naming_the_rule() {
    for (answer, rule) in [
        ("127.0.0.1", "loopback"),
        ("10.1.2.3", "private"),
        ("100.101.102.103", "CGNAT"),
        ("169.254.169.254", "metadata"),
        ("fd00:ec2::254", "metadata"),
        ("fd7a:115c:a1e0::5", "unique local"),
        ("::ffff:192.168.0.1", "IPv4-mapped"),
        ("64:ff9b::a00:1", "NAT64"),
        ("ff02::1", "multicast"),
    ] {
        let f = fetcher(&[answer], &[]);
        let err = target(&f, "https://recipes.example.com/x")
            .await
            .unwrap_err();
        let text = err.to_string();
        assert!(text.contains(rule), "{answer}: {text}");
        assert!(text.contains("recipes.example.com"), "{text}");
    }
}

#[tokio::test]
async fn a_name_with_one_refused_address_among_public_ones_is_refused_whole() {
    let f = fetcher(&["93.184.215.14", "10.0.0.1"], &[]);
    let err = target(&f, "http://rebind.example/").await.unwrap_err();
    assert!(matches!(err, FetchError::Refused { .. }), "{err}");
}

#[tokio::test]
async fn public_addresses_are_the_ones_connected_to() {
    let f = fetcher(&["93.184.215.14", "2606:4700::1"], &[]);
    let t = target(&f, "https://www.example.com:8443/r?x=1")
        .await
        .unwrap();
    assert_eq!(t.host, "www.example.com");
    assert_eq!(
        t.addrs,
        [
            "93.184.215.14:8443".parse().unwrap(),
            "[2606:4700::1]:8443".parse().unwrap()
        ]
    );
}

#[tokio::test]
async fn literal_addresses_in_every_spelling_are_judged_without_a_lookup() {
    // The stub would answer a public address: a literal must never be looked up.
    let f = fetcher(&["93.184.215.14"], &[]);
    for address in [
        "http://127.0.0.1/",
        "http://127.1/",
        "http://0x7f000001/",
        "http://2130706433/",
        "http://0177.0.0.1/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:7f00:1]:8080/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
        "http://0.0.0.0/",
    ] {
        let err = target(&f, address).await.unwrap_err();
        assert!(
            matches!(err, FetchError::Refused { .. }),
            "{address}: {err}"
        );
    }
}

#[tokio::test]
async fn only_http_and_https_are_fetched() {
    let f = fetcher(&["127.0.0.1"], &[]);
    for address in [
        "file:///etc/passwd",
        "ftp://example.com/",
        "gopher://x/",
        "data:text/html,hi",
    ] {
        let err = f.fetch(address).await.unwrap_err();
        assert!(matches!(err, FetchError::Scheme(_)), "{address}: {err}");
    }
    assert!(matches!(
        f.fetch("not an address").await.unwrap_err(),
        FetchError::NotAnAddress(_)
    ));
}

#[tokio::test]
async fn an_allowed_host_passes_the_rules_and_no_other_does() {
    let f = fetcher(&["127.0.0.1"], &["127.0.0.1", "Pages.Lan"]);
    assert!(target(&f, "http://127.0.0.1:9/").await.is_ok());
    assert!(
        target(&f, "http://127.1:9/").await.is_ok(),
        "the same host, spelled short"
    );
    assert!(target(&f, "http://pages.lan/").await.is_ok());
    assert!(target(&f, "http://[::1]/").await.is_err());
    assert!(target(&f, "http://other.lan/").await.is_err());
}
