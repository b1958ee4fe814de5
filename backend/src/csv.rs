//! CSV for the exports (invoices, the audit log): fields quoted when they
//! need it, and text that a spreadsheet would run as a formula defused.

/// Quotes a field when needed, and defuses spreadsheet formulas (a number,
/// negative or not, is no formula and stays a number).
pub fn field(raw: &str) -> String {
    let number = raw
        .strip_prefix('-')
        .is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit() || c == '.'));
    let safe = if !number && raw.starts_with(['=', '+', '-', '@']) {
        format!("'{raw}")
    } else {
        raw.to_owned()
    };
    if safe.contains([',', '"', '\n']) {
        format!("\"{}\"", safe.replace('"', "\"\""))
    } else {
        safe
    }
}

/// One line: the fields, each quoted as needed, and the line end.
pub fn row(fields: &[String]) -> String {
    let mut line = fields
        .iter()
        .map(|f| field(f))
        .collect::<Vec<_>>()
        .join(",");
    line.push('\n');
    line
}
