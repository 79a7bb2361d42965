//! The reader's own tests: paths, tests and comments, re-exports, and a back-arrow added
//! on purpose, each on a small tree written here.

use super::cycles::{find_cycle, without_root};
use super::paths::named;
use super::source::{Source, module_path, outside_tests, production, sources};
use super::tree::Tree;
use std::collections::BTreeSet;
use std::path::Path;

fn source(file: &str, code: &str) -> Source {
    Source {
        file: file.to_owned(),
        module: module_path(Path::new(file)),
        code: code.to_owned(),
    }
}

fn paths(file: &str, code: &str) -> Vec<String> {
    let s = source(file, code);
    let lines = production(&s.code, s.file.ends_with("mod.rs"));
    let children = BTreeSet::from(["caps".to_owned()]);
    named(&lines, &s.module, &children)
        .iter()
        .map(|p| p.join("::"))
        .collect()
}

#[test]
fn paths_are_resolved_from_where_they_are_written() {
    let code = "use crate::{text::fold, recipes};\n// crate::web in a comment\n\
                use super::{http::{Body, etag}, view};\nlet x = crate::units::amount;\n\
                use super::super::store::Store;\nuse self::inner::Thing;";
    assert_eq!(
        paths("web/site.rs", code),
        [
            "text::fold",
            "recipes",
            "web::http::Body",
            "web::http::etag",
            "web::view",
            "units::amount",
            "store::Store",
            "web::site::inner::Thing",
        ]
    );
    assert_eq!(paths("web/mod.rs", "fn f() { super::x::y(); }"), ["x::y"]);
    assert_eq!(
        paths("web/router.rs", "use super::http::Body;"),
        ["web::http::Body"]
    );
    assert_eq!(
        paths("store/mod.rs", "fn f() { caps::check(); other::x(); }"),
        ["store::caps::check"],
        "a root names its rooms bare; other bare paths are crates"
    );
}

#[test]
fn tests_comments_and_a_roots_map_are_not_arrows() {
    let code = "mod http;\npub use site::{Site,\n    SiteError};\n\
                #[cfg(test)]\nfn only_in_tests() {\n    crate::search::x();\n}\n\
                #[cfg(test)]\nuse crate::units;\nfn real() { crate::text::fold(); }\n\
                #[cfg(test)]\nmod tests {\n    use crate::store;\n    let s = \"}\";\n}\n\
                fn after() { crate::ingredients::x(); }";
    assert_eq!(paths("web/mod.rs", code), ["text::fold", "ingredients::x"]);
    assert_eq!(
        outside_tests(code).len(),
        5,
        "the map and comments count as lines of the file"
    );
}

fn tree_of(files: &[(&str, &str)]) -> Tree {
    Tree::new(files.iter().map(|(f, c)| source(f, c)).collect())
}

fn folder(path: &str) -> Vec<String> {
    path.split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_back_arrow_between_rooms_is_a_circle() {
    let files = [
        ("web/mod.rs", "mod http;\nmod site;\npub use site::Site;"),
        ("web/http/mod.rs", "pub struct Body;"),
        ("web/site.rs", "use super::http::Body;"),
    ];
    let folders = tree_of(&files).arrows();
    assert_eq!(
        folders[&folder("web")]["site"],
        BTreeSet::from(["http".to_owned()])
    );
    assert_eq!(find_cycle(&folders[&folder("web")]), None);

    // The same tree with one arrow added the wrong way.
    let mut with_back_arrow = files.to_vec();
    with_back_arrow[1] = (
        "web/http/mod.rs",
        "use crate::web::site::Page;\npub struct Body;",
    );
    let folders = tree_of(&with_back_arrow).arrows();
    assert_eq!(
        find_cycle(&folders[&folder("web")]).map(|c| c.join(" → ")),
        Some("http → site → http".to_owned())
    );
}

#[test]
fn a_circle_is_found_in_every_folder_at_any_depth() {
    let deep = [
        (
            "lib.rs",
            "mod web;\npub struct Root;\nfn f() { web::page(); }",
        ),
        ("web/mod.rs", "mod http;"),
        ("web/http/mod.rs", "mod a;\nmod b;"),
        ("web/http/a.rs", "use super::b::B;\npub struct A;"),
        (
            "web/http/b.rs",
            "use crate::web::http::a::A;\npub struct B;",
        ),
    ];
    let folders = tree_of(&deep).arrows();
    assert_eq!(
        find_cycle(&without_root(&folders[&folder("web::http")])).map(|c| c.join(" → ")),
        Some("a → b → a".to_owned()),
        "two levels down, with no list naming the folder"
    );
    let top = [
        ("lib.rs", "mod one;\nmod two;"),
        ("one.rs", "use crate::two::Two;\npub struct One;"),
        ("two.rs", "use crate::one::One;\npub struct Two;"),
    ];
    let folders = tree_of(&top).arrows();
    assert_eq!(
        find_cycle(&without_root(&folders[&folder("")])).map(|c| c.join(" → ")),
        Some("one → two → one".to_owned()),
        "between a crate's top-level modules"
    );
    assert_eq!(
        folders[&folder("")].get("mod"),
        None,
        "a crate root that is only a map has no room of its own"
    );
}

#[test]
fn a_re_export_is_named_by_its_room_and_the_root_is_no_circle() {
    let files = [
        (
            "store/mod.rs",
            "mod caps;\nmod plan;\npub use plan::{Plan, make as plan_for};\n\
                          pub struct StoreError;\nfn apply() { caps::check(); }",
        ),
        (
            "store/caps.rs",
            "use super::StoreError;\nuse super::{Plan, plan_for};\npub fn check() {}",
        ),
        ("store/plan.rs", "use super::caps::check;"),
    ];
    let folders = tree_of(&files).arrows();
    let store = &folders[&folder("store")];
    assert_eq!(store["mod"], BTreeSet::from(["caps".to_owned()]));
    assert_eq!(
        store["caps"],
        BTreeSet::from(["mod".to_owned(), "plan".to_owned()])
    );
    assert_eq!(
        find_cycle(&without_root(store)).map(|c| c.join(" → ")),
        Some("caps → plan → caps".to_owned()),
        "naming plan's items through the root is an arrow to plan; the root's own items are not a circle"
    );
}

#[test]
fn a_test_only_module_is_left_out_with_everything_inside_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let write = |file: &str, code: &str| {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, code).expect("write");
    };
    write("lib.rs", "mod web;\n#[cfg(test)]\nmod checks;");
    write("main.rs", "fn main() {}");
    write("web.rs", "pub fn page() {}");
    write("checks/mod.rs", "mod inner;");
    write("checks/inner.rs", "use crate::web::page;");
    let mut found: Vec<String> = sources(dir.path()).into_iter().map(|s| s.file).collect();
    found.sort();
    assert_eq!(
        found,
        ["lib.rs", "web.rs"],
        "the crate root counts, the binary's main does not"
    );
}
