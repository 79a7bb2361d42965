//! The scan against what a browser's parser makes of the same HTML, and its cost.

use super::*;
use std::time::{Duration, Instant};

fn ld(html: &str) -> Vec<&str> {
    scripts(html, &Stop::never()).unwrap()
}

#[test]
fn json_ld_scripts_are_found_by_their_type_however_it_is_written() {
    let page = r#"<!DOCTYPE html><html><head>
        <script type="application/ld+json">{"a":1}</script>
        <SCRIPT TYPE='Application/LD+JSON; charset=utf-8' defer>{"b":2}</Script >
        <script type=application/ld+json>{"c":3}</script/>
        <script type="application&#x2F;ld&plus;json">{"d":4}</script>
        <script type=" application/ld+json ">{"e":5}</script foo=">">
        <script type="text/javascript">var x = '<script type="application/ld+json">';</script>
        <script>{"js":0}</script>
        <script type="application/ld+json" type="text/plain">{"f":6}</script>
        <script type="text/plain" type="application/ld+json">{"no":0}</script>
        </head></html>"#;
    assert_eq!(
        ld(page),
        [
            r#"{"a":1}"#,
            r#"{"b":2}"#,
            r#"{"c":3}"#,
            r#"{"d":4}"#,
            r#"{"e":5}"#,
            r#"{"f":6}"#
        ]
    );
}

#[test]
fn a_script_in_a_comment_or_a_raw_text_element_is_text() {
    let s = r#"<script type="application/ld+json">{"ok":1}</script>"#;
    for hidden in [
        format!("<!-- {s} -->"),
        format!("<!-- a -- b {s} --!>"),
        format!("<textarea>{s}</textarea>"),
        format!("<title>{s}</title>"),
        format!("<noscript>{s}</noscript>"),
        format!("<style>{s}</style>"),
        format!("<xmp>{s}</xmp>"),
        format!("<iframe>{s}</iframe>"),
        format!("<plaintext>{s}"),
        format!("<![CDATA[ x ]]> <!doctype html> <? pi {s}"),
    ] {
        // (`<? pi <script …>` is a bogus comment up to the first `>`: the script's text
        // is then plain text, and its end tag nothing.)
        assert!(ld(&hidden).is_empty(), "{hidden}");
        // And after the element ends, a script counts again.
        if !hidden.starts_with("<plaintext") && !hidden.starts_with("<![CDATA[") {
            assert_eq!(ld(&format!("{hidden}{s}")), [r#"{"ok":1}"#], "{hidden}");
        }
    }
    // Comments that end at once.
    assert_eq!(ld(&format!("<!--><!---> <!----> {s}")), [r#"{"ok":1}"#]);
}

#[test]
fn a_script_ends_at_its_end_tag_through_the_escaped_states() {
    // Inside `<!--`, a `<script>` makes `</script>` part of the text until `-->`.
    let page = r#"<script type="application/ld+json">{"a":"<!-- <script> </script> -->"}</script>"#;
    assert_eq!(ld(page), [r#"{"a":"<!-- <script> </script> -->"}"#]);
    let page = r#"<script type="application/ld+json">{"a":"<!-- x"}</script>"#;
    assert_eq!(ld(page), [r#"{"a":"<!-- x"}"#]);
    let page = r#"<script type="application/ld+json">{"a":"</scriptx> <b>"}</script >"#;
    assert_eq!(ld(page), [r#"{"a":"</scriptx> <b>"}"#]);
    // No end tag: to the end of the page.
    assert_eq!(
        ld(r#"<script type="application/ld+json">{"a":1}"#),
        [r#"{"a":1}"#]
    );
}

#[test]
fn text_decodes_references_and_drops_tags() {
    assert_eq!(text("Caf&eacute; &amp; <b>Rum</b>"), "Café & Rum");
    assert_eq!(text("<p>Rich&nbsp;&amp; dark.</p>"), "Rich\u{a0}& dark.");
    assert_eq!(text("a < b &lt; c <!-- no --> d"), "a < b < c  d");
    assert_eq!(
        text("&frac12; oz &#8220;x&#x201d; &notareference;"),
        "½ oz \u{201c}x\u{201d} ¬areference;"
    );
    assert_eq!(text("<i title='&amp;>'>x</i>"), "x");
}

/// A page built to be slow for a tree builder (`<b id=N><i>x`, unclosed, 40,000 times)
/// and for html5ever's tokenizer (one tag with 100,000 attributes).
fn hostile() -> String {
    let mut page = String::from("<html><body>");
    for n in 0..40_000 {
        page.push_str(&format!("<b id={n}><i>x"));
    }
    page.push_str("<p");
    for n in 0..100_000 {
        page.push_str(&format!(" a{n}"));
    }
    page.push_str(r#"><script type="application/ld+json">{"z":1}</script>"#);
    page
}

/// The shortest of three runs of `scan`: a run that waited for a core on a busy machine
/// (CI runs the browser tests beside this) says nothing about the scanner. One slow run
/// of twice the page against a quick one failed a whole `.ci/run` (965 ms against 86).
fn fastest(scan: impl Fn()) -> Duration {
    (0..3)
        .map(|_| {
            let started = Instant::now();
            scan();
            started.elapsed()
        })
        .min()
        .unwrap_or_default()
}

#[test]
fn a_hostile_page_costs_time_linear_in_its_length() {
    let page = hostile();
    assert_eq!(ld(&page), [r#"{"z":1}"#]);
    let twice = page.repeat(2);
    assert_eq!(ld(&twice).len(), 2);
    let once = fastest(|| drop(ld(&page)));
    let double = fastest(|| drop(ld(&twice)));
    assert!(
        double < once * 6 + Duration::from_millis(200),
        "twice the page: {double:?} against {once:?}"
    );
    assert!(
        once < Duration::from_secs(3),
        "{once:?} for {} bytes",
        page.len()
    );
    let started = Instant::now();
    text(&page);
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn a_stopped_scan_says_why() {
    let page = hostile();
    let stop = Stop::never();
    stop.cancel();
    let err = scripts(&page, &stop).unwrap_err();
    assert!(err.to_string().contains("given up"), "{err}");
    let late = Stop::after(Duration::ZERO);
    let err = scripts(&page, &late).unwrap_err();
    assert!(err.to_string().contains("longer than 0 s"), "{err}");
    // A hang-up cancels when it is dropped, as the request's future is.
    let stop = Stop::never();
    drop(stop.hangup());
    assert!(stop.check().is_err());
}
