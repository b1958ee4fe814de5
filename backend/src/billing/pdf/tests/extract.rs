//! A small PDF text decoder for the tests: enough of the format to read back
//! what `render` writes.

use std::collections::BTreeMap;

/// The page texts of a PDF written by `render`: streams are inflated,
/// the ToUnicode CMap is read and the strings of every `Tj` decoded
/// through it, one line per text object.
pub(super) fn extract(pdf: &[u8]) -> Vec<String> {
    let mut streams = Vec::new();
    let mut rest = pdf;
    while let Some(start) = find(rest, b"stream\n") {
        let body = &rest[start + 7..];
        let end = find(body, b"\nendstream").expect("endstream");
        let raw = &body[..end];
        streams.push(
            miniz_oxide::inflate::decompress_to_vec_zlib(raw).unwrap_or_else(|_| raw.to_vec()),
        );
        rest = &body[end + b"\nendstream".len()..];
    }
    let cmap_stream = streams
        .iter()
        .find(|s| find(s, b"begincmap").is_some())
        .expect("a ToUnicode CMap stream");
    let cmap = parse_cmap(&String::from_utf8_lossy(cmap_stream));
    streams
        .iter()
        // Content streams: plain ASCII, unlike the font file.
        .filter(|s| s.is_ascii() && find(s, b"Tj").is_some())
        .map(|s| {
            shown_strings(s)
                .iter()
                .map(|bytes| {
                    bytes
                        .chunks(2)
                        .map(|pair| {
                            let cid = u16::from_be_bytes([pair[0], pair[1]]);
                            cmap.get(&cid).cloned().unwrap_or_else(|| "\u{FFFD}".into())
                        })
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect()
}

pub(super) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn parse_cmap(text: &str) -> BTreeMap<u16, String> {
    let mut map = BTreeMap::new();
    for line in text.lines() {
        let Some((cid, uni)) = line.split_once("> <") else {
            continue;
        };
        let cid = u16::from_str_radix(cid.trim_start_matches('<'), 16).expect("cid hex");
        let units: Vec<u16> = uni
            .trim_end_matches('>')
            .as_bytes()
            .chunks(4)
            .map(|h| u16::from_str_radix(std::str::from_utf8(h).unwrap(), 16).unwrap())
            .collect();
        map.insert(cid, String::from_utf16(&units).expect("utf-16"));
    }
    map
}

/// The operands of `Tj` in a content stream, as bytes: literal strings
/// (with escapes) and hex strings.
fn shown_strings(content: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < content.len() {
        let (string, next) = match content[i] {
            b'(' => {
                let mut bytes = Vec::new();
                let mut depth = 1;
                let mut j = i + 1;
                loop {
                    let b = content[j];
                    match b {
                        b'\\' => {
                            let e = content[j + 1];
                            match e {
                                b'n' => bytes.push(b'\n'),
                                b'r' => bytes.push(b'\r'),
                                b't' => bytes.push(b'\t'),
                                b'b' => bytes.push(8),
                                b'f' => bytes.push(12),
                                b'0'..=b'7' => {
                                    let oct = std::str::from_utf8(&content[j + 1..j + 4]).unwrap();
                                    bytes.push(u8::from_str_radix(oct, 8).unwrap());
                                    j += 2;
                                }
                                other => bytes.push(other),
                            }
                            j += 2;
                            continue;
                        }
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    bytes.push(b);
                    j += 1;
                }
                (bytes, j + 1)
            }
            b'<' if content.get(i + 1) != Some(&b'<') => {
                let end = i + find(&content[i..], b">").unwrap();
                let hex = std::str::from_utf8(&content[i + 1..end]).unwrap();
                let bytes = (0..hex.len())
                    .step_by(2)
                    .map(|k| u8::from_str_radix(&hex[k..k + 2], 16).unwrap())
                    .collect();
                (bytes, end + 1)
            }
            _ => {
                i += 1;
                continue;
            }
        };
        if content[next..].trim_ascii_start().starts_with(b"Tj") {
            out.push(string);
        }
        i = next;
    }
    out
}
