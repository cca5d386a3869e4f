//! The crate's modules depend on each other in one direction (issue 24): this test reads the
//! sources and fails on a cycle, naming it. A module is a file under src/ or a directory (its
//! files are one module: providers/ is one); `crate::m` anywhere in module a is an edge a -> m,
//! `crate::item` of an item defined in main.rs an edge to the root, and the root's `m::` paths
//! edges from it. `mod` declarations are not edges.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const ROOT: &str = "main";

/// The text of a source file without its comments (so prose naming a path is no edge).
fn code_of(text: &str) -> String {
    text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

fn ident_at(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// The names a path starting at `s` (just after `crate::`) names first: one, or each of a group
/// `{a::x, b}`.
fn first_names(s: &str) -> Vec<String> {
    let Some(group) = s.strip_prefix('{') else { return vec![ident_at(s).to_string()] };
    let (mut depth, mut names, mut at_start) = (1, Vec::new(), true);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 1 => break,
            '}' => depth -= 1,
            ',' if depth == 1 => at_start = true,
            c if c.is_whitespace() => {}
            _ if at_start && depth == 1 => {
                names.push(ident_at(&group[i..]).to_string());
                at_start = false;
            }
            _ => {}
        }
    }
    names
}

/// Module name -> the code of its files.
fn modules(src: &Path) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap();
            let first = rel.components().next().unwrap().as_os_str().to_string_lossy().to_string();
            let name = first.trim_end_matches(".rs").to_string();
            out.entry(name).or_default().push_str(&code_of(&std::fs::read_to_string(&path).unwrap()));
        }
    }
    out
}

/// Whether main.rs defines `item` (a static, function, type or constant of the root).
fn defined_in_root(mods: &BTreeMap<String, String>, item: &str) -> bool {
    let root = mods.get(ROOT).map(String::as_str).unwrap_or("");
    !item.is_empty()
        && ["static", "fn", "struct", "enum", "type", "const", "trait"].iter().any(|k| {
            root.match_indices(&format!("{k} {item}"))
                .any(|(i, m)| !root[i + m.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
        })
}

fn edges(mods: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, code) in mods {
        let deps = graph.entry(name.clone()).or_default();
        for (at, _) in code.match_indices("crate::") {
            for target in first_names(&code[at + "crate::".len()..]) {
                if mods.contains_key(&target) {
                    deps.insert(target);
                } else if defined_in_root(mods, &target) {
                    deps.insert(ROOT.to_string());
                }
            }
        }
        if name == ROOT {
            for other in mods.keys().filter(|m| *m != ROOT) {
                let path = format!("{other}::");
                let named = code.match_indices(&path).any(|(i, _)| {
                    let before = code[..i].chars().next_back();
                    !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
                });
                if named {
                    deps.insert(other.clone());
                }
            }
        }
        deps.remove(name);
    }
    graph
}

/// The first cycle found, as a path a -> b -> ... -> a.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_modules_have_no_cycle() {
    let mods = modules(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(mods.contains_key("engine") && mods.contains_key("providers"), "{:?}", mods.keys());
    if let Some(cycle) = find_cycle(&edges(&mods)) {
        panic!("module cycle: {}", cycle.join(" -> "));
    }
}

#[test]
fn the_cycle_check_finds_a_cycle() {
    // The check itself can fail: two modules naming each other, one through a group import.
    let mut mods = BTreeMap::new();
    mods.insert(ROOT.to_string(), code_of("mod a;\nmod b;\nmod c;\nuse a::x;\nstatic FLAG: u8 = 0;"));
    mods.insert("a".to_string(), code_of("use crate::{\n    b::y,\n    a::z,\n};\n// crate::c in prose"));
    mods.insert("b".to_string(), code_of("fn f() { crate::a::x(); }"));
    mods.insert("c".to_string(), code_of("fn g() -> u8 { crate::FLAG + crate::NOT_AN_ITEM }"));
    let graph = edges(&mods);
    assert_eq!(graph["a"], BTreeSet::from(["b".to_string()]));
    assert_eq!(graph[ROOT], BTreeSet::from(["a".to_string()]));
    assert_eq!(graph["c"], BTreeSet::from([ROOT.to_string()]));
    assert_eq!(find_cycle(&graph).map(|c| c.join(" -> ")).as_deref(), Some("a -> b -> a"));
}
