//! The glossary (`docs/GLOSSARY.md`) is the rule list: every word in
//! backticks in its "Not" columns is forbidden in the string literals of the
//! sources users read (the i18n tables, API messages, mails, invoice PDFs,
//! page code). Only literals are read, never comments or identifiers, so a
//! rule is about what a customer sees.
//!
//! Plain std on purpose: this runs without building the server.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Source folders whose string literals users may read.
const SOURCES: [&str; 4] = ["app/src", "backend/src", "server/src", "domain/src"];

/// Literals that hold a forbidden word but are not text anyone reads:
/// (file, word, why). Keep it short.
const KNOWN: [(&str, &str, &str); 1] = [(
    "backend/src/billing/pdf/layout.rs",
    "」",
    "the line breaker's table of closing punctuation, not a quotation",
)];

#[derive(Clone, Debug, PartialEq)]
struct Rule {
    word: String,
    instead: String,
    /// Only files whose name starts with this (e.g. `api_docs_`), or all.
    only_files_starting: Option<&'static str>,
}

#[derive(Debug, Default)]
struct Glossary {
    rules: Vec<Rule>,
    /// (forbidden word, longer word it may appear inside).
    allowed_inside: Vec<(String, String)>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The code spans of a Markdown table cell: `a`, ``b`c``.
fn code_spans(cell: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = cell;
    while let Some(start) = rest.find('`') {
        let ticks = rest[start..].chars().take_while(|&c| c == '`').count();
        let fence = "`".repeat(ticks);
        let body = &rest[start + ticks..];
        let Some(end) = body.find(&fence) else { break };
        let mut span = &body[..end];
        if ticks > 1 && span.starts_with(' ') && span.ends_with(' ') && span.len() > 1 {
            span = &span[1..span.len() - 1];
        }
        out.push(span.to_owned());
        rest = &body[end + ticks..];
    }
    out
}

/// `organis{e,ed}` → `organise`, `organised`; `erase{,s}` → `erase`, `erases`.
fn expand(word: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (word.find('{'), word.rfind('}')) else {
        return vec![word.to_owned()];
    };
    let (stem, tail) = (&word[..open], &word[close + 1..]);
    word[open + 1..close]
        .split(',')
        .map(|ending| format!("{stem}{ending}{tail}"))
        .collect()
}

fn cells(line: &str) -> Vec<&str> {
    let line = line.trim().trim_start_matches('|').trim_end_matches('|');
    line.split('|').map(str::trim).collect()
}

fn parse_glossary(markdown: &str) -> Glossary {
    let mut glossary = Glossary::default();
    let mut scope = None;
    let mut header: Vec<String> = Vec::new();
    for line in markdown.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            scope = heading.contains("API docs").then_some("api_docs_");
            header.clear();
            continue;
        }
        if !line.trim_start().starts_with('|') {
            header.clear();
            continue;
        }
        let row = cells(line);
        if header.is_empty() {
            header = row.iter().map(|c| c.to_string()).collect();
            continue;
        }
        if row
            .iter()
            .all(|c| c.chars().all(|ch| ch == '-' || ch == ':'))
        {
            continue;
        }
        let column = |name: &str| header.iter().position(|h| h.starts_with(name));
        let cell = |i: Option<usize>| i.and_then(|i| row.get(i)).copied().unwrap_or("");
        for (not, instead) in [("Not (zh)", "中文"), ("Not (en)", "English")] {
            let instead = cell(column(instead)).to_owned();
            for span in code_spans(cell(column(not))) {
                for word in expand(&span) {
                    glossary.rules.push(Rule {
                        word,
                        instead: instead.clone(),
                        only_files_starting: scope,
                    });
                }
            }
        }
        if let (Some(f), Some(a)) = (column("Forbidden"), column("Allowed inside")) {
            for word in code_spans(cell(Some(f))) {
                for longer in code_spans(cell(Some(a))) {
                    glossary.allowed_inside.push((word.clone(), longer));
                }
            }
        }
    }
    glossary
}

/// A string literal: the line it starts on and its text as written in the
/// source, with escapes blanked to spaces so offsets and newlines still
/// count lines and `\n` does not glue onto the next word.
#[derive(Debug, PartialEq)]
struct Literal {
    line: usize,
    text: String,
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The string literals of Rust source: "…", r"…", r#"…"#, b"…"; comments,
/// identifiers and char literals are skipped.
fn literals(source: &str) -> Vec<Literal> {
    let chars: Vec<char> = source.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        let prev = if i == 0 { ' ' } else { chars[i - 1] };
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(chars[i] == '\n');
                    i += 1;
                }
            }
        } else if c == 'r'
            && (!is_ident(prev) || (prev == 'b' && i >= 2 && !is_ident(chars[i - 2])))
            && matches!(at(i + 1), '"' | '#')
        {
            let hashes = chars[i + 1..].iter().take_while(|&&c| c == '#').count();
            if at(i + 1 + hashes) != '"' {
                i += 1;
                continue;
            }
            let start = i + 2 + hashes;
            let close: String = std::iter::once('"')
                .chain("#".repeat(hashes).chars())
                .collect();
            let mut j = start;
            let mut text = String::new();
            while j < chars.len() {
                let ahead: String = chars[j..(j + close.chars().count()).min(chars.len())]
                    .iter()
                    .collect();
                if ahead == close {
                    break;
                }
                text.push(chars[j]);
                j += 1;
            }
            out.push(Literal {
                line,
                text: text.clone(),
            });
            line += text.matches('\n').count();
            i = j + close.chars().count();
        } else if c == '"' {
            let mut j = i + 1;
            let mut text = String::new();
            while j < chars.len() && chars[j] != '"' {
                if chars[j] == '\\' {
                    text.push(' ');
                    match at(j + 1) {
                        '\n' => text.push('\n'),
                        '\0' => {}
                        _ => text.push(' '),
                    }
                    j += 2;
                } else {
                    text.push(chars[j]);
                    j += 1;
                }
            }
            out.push(Literal {
                line,
                text: text.clone(),
            });
            line += text.matches('\n').count();
            i = j + 1;
        } else if c == '\'' {
            // A char literal ('a', '\n', '"') or a lifetime ('a).
            if at(i + 1) == '\\' {
                let mut j = i + 3;
                while j < chars.len() && chars[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Where `word` occurs in `text` (byte offsets): anywhere for a word with
/// non-ASCII letters, as a whole word ignoring ASCII case otherwise.
fn occurrences(text: &str, word: &str) -> Vec<usize> {
    let ascii = word.is_ascii();
    let (hay, needle) = if ascii {
        (text.to_ascii_lowercase(), word.to_ascii_lowercase())
    } else {
        (text.to_owned(), word.to_owned())
    };
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(pos) = hay[from..].find(&needle) {
        let start = from + pos;
        let end = start + needle.len();
        let before = hay[..start].chars().next_back();
        let after = hay[end..].chars().next();
        let whole = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
        if !ascii || (whole(before) && whole(after)) {
            found.push(start);
        }
        from = start + needle.len().max(1);
    }
    found
}

/// Whether the match of `word` at `start` is part of an allowed longer word.
fn inside_allowed(text: &str, start: usize, word: &str, allowed: &[(String, String)]) -> bool {
    let hay = text.to_ascii_lowercase();
    allowed
        .iter()
        .filter(|(w, _)| w.eq_ignore_ascii_case(word))
        .any(|(_, longer)| {
            let longer = longer.to_ascii_lowercase();
            let word = word.to_ascii_lowercase();
            longer.match_indices(&word).any(|(k, _)| {
                start >= k && hay.get(start - k..start - k + longer.len()) == Some(longer.as_str())
            })
        })
}

/// The glossary's violations in one file's source: "file:line: …".
fn check(path: &str, source: &str, glossary: &Glossary) -> Vec<String> {
    let file_name = path.rsplit('/').next().unwrap_or(path);
    let mut out = Vec::new();
    for literal in literals(source) {
        for rule in &glossary.rules {
            if rule
                .only_files_starting
                .is_some_and(|p| !file_name.starts_with(p))
            {
                continue;
            }
            if KNOWN.iter().any(|(f, w, _)| *f == path && *w == rule.word) {
                continue;
            }
            for start in occurrences(&literal.text, &rule.word) {
                if inside_allowed(&literal.text, start, &rule.word, &glossary.allowed_inside) {
                    continue;
                }
                let line = literal.line + literal.text[..start].matches('\n').count();
                out.push(format!(
                    "{path}:{line}: `{}` is not our word; the glossary says: {}",
                    rule.word, rule.instead
                ));
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {dir:?}: {e}"));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn the_glossary() -> Glossary {
    let path = root().join("docs/GLOSSARY.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("reading {path:?}: {e}"));
    parse_glossary(&text)
}

#[test]
fn every_user_visible_string_uses_the_glossarys_words() {
    let glossary = the_glossary();
    let root = root();
    let mut files = Vec::new();
    for dir in SOURCES {
        rust_files(&root.join(dir), &mut files);
    }
    files.sort();
    let mut problems = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap_or(file);
        let relative = relative.to_string_lossy().replace('\\', "/");
        let source = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        problems.extend(check(&relative, &source, &glossary));
    }
    let mut report = String::new();
    for p in &problems {
        let _ = writeln!(report, "{p}");
    }
    assert!(
        problems.is_empty(),
        "docs/GLOSSARY.md forbids these words ({} found):\n{report}",
        problems.len()
    );
}

#[test]
fn the_glossary_covers_the_terms_it_promises() {
    let glossary = the_glossary();
    let forbidden: Vec<&str> = glossary.rules.iter().map(|r| r.word.as_str()).collect();
    for word in [
        "套餐",
        "串行",
        "吊销",
        "维护时段",
        "维护时间",
        "双重验证",
        "账单信息",
        "发票抬头",
        "付款方",
        "支持请求",
        "抹掉",
        "附加包",
        "附加项",
        "计费周期",
        "退订",
        "台湾",
        "「",
        "在控制台",
        "organisation",
        "authorise",
        "recognised",
        "answer",
        "measured",
    ] {
        assert!(
            forbidden.contains(&word),
            "the glossary no longer forbids {word}"
        );
    }
    let answer = glossary
        .rules
        .iter()
        .find(|r| r.word == "answers")
        .expect("answers");
    assert_eq!(answer.only_files_starting, Some("api_docs_"));
    assert_eq!(answer.instead, "response");
    let plan = glossary
        .rules
        .iter()
        .find(|r| r.word == "套餐")
        .expect("套餐");
    assert_eq!(
        (plan.instead.as_str(), plan.only_files_starting),
        ("方案", None)
    );
    assert!(glossary
        .allowed_inside
        .contains(&("付款方".into(), "付款方式".into())));
}

#[test]
fn the_scanner_reads_literals_only() {
    let source = r####"
// 套餐 in a comment is not read
/* nor 套餐 /* nested */ here */
fn organise_套餐(x: &'static str) -> char {
    let quote = '"';
    let a = "选择套餐\n然后付款";
    let b = r#"raw "套餐" here"#;
    let c = "line one \
             并非 organisation";
    '\''
}
"####;
    let found = literals(source);
    let texts: Vec<&str> = found.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(texts.len(), 3, "{texts:?}");
    assert_eq!((found[0].line, texts[0]), (6, "选择套餐  然后付款"));
    assert_eq!((found[1].line, texts[1]), (7, "raw \"套餐\" here"));
    assert_eq!(found[2].line, 8);

    let glossary = parse_glossary(
        "## Everywhere\n\n| Concept | 中文 | English | Not (zh) | Not (en) | Why |\n|---|---|---|---|---|---|\n\
         | plan | 方案 | plan | `套餐`, `付款方` | `organis{e,ation}` | one word |\n\n\
         ## Allowed inside\n\n| Forbidden | Allowed inside | Why |\n|---|---|---|\n| `付款方` | `付款方式` | payment method |\n",
    );
    assert_eq!(glossary.rules.len(), 4);
    let problems = check("x/orders_zh.rs", source, &glossary);
    assert_eq!(
        problems,
        [
            "x/orders_zh.rs:6: `套餐` is not our word; the glossary says: 方案",
            "x/orders_zh.rs:7: `套餐` is not our word; the glossary says: 方案",
            "x/orders_zh.rs:9: `organisation` is not our word; the glossary says: plan",
        ]
    );
    // A word inside an allowed longer word, and a whole-word miss.
    assert!(check("f.rs", r#"let s = "付款方式 disorganised";"#, &glossary).is_empty());
    assert_eq!(
        check("f.rs", r#"let s = "付款方：Organise";"#, &glossary).len(),
        2
    );
}

#[test]
fn braces_expand_to_each_ending() {
    assert_eq!(expand("erase{,s,d}"), ["erase", "erases", "erased"]);
    assert_eq!(expand("套餐"), ["套餐"]);
    assert_eq!(code_spans("`a`, ``b` c``"), ["a", "b` c"]);
}
