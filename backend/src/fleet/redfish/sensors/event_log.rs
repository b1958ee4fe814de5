//! Memory errors in a host's event log. BMCs keep no error counter in
//! Redfish that every vendor fills, but they all log memory errors (DIMMs,
//! GPU memory) in the system's log services, so the counts are entries of
//! the log, totals since it was last cleared.
//!
//! The rule, on an entry's `MessageId` and `Message` together (any case):
//! 1. An NVIDIA Xid (`NVRM: Xid (PCI:0000:3b:00): 48, …`, `GPU Xid 94`)
//!    decides alone: 48 (double-bit ECC), 64 (a failed row remap or page
//!    retirement), 94 (contained ECC) and 95 (uncontained ECC) are
//!    uncorrected; 63 (row remap or page retirement recorded) and 92 (high
//!    single-bit ECC rate) are corrected; every other Xid is not a memory
//!    error.
//! 2. Otherwise the entry must be about memory (`ecc`, `memory`, `dimm`,
//!    `dram`, `hbm`): uncorrected when it says uncorrectable, uncorrected,
//!    non-correctable, multi-bit or double-bit; corrected when it says
//!    correctable, corrected or single-bit; not counted otherwise (`Memory
//!    device added`).
//!
//! An entry counts once, whatever it says about how many errors it stands
//! for: a BMC logs "correctable error rate exceeded" rather than each
//! error, so the counts are a lower bound.
//!
//! An entry whose `Links.OriginOfCondition` is one of the GPUs counts for
//! that card; any other (a DIMM, the host's memory) for every card, since
//! the host's memory serves all of them.

use serde_json::Value;

use super::super::client::{link, members, Bmc, BmcError};

/// Log pages read per log service; a BMC's log holds a few thousand
/// entries at most, in pages of some hundred.
const MAX_PAGES: usize = 100;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryError {
    Corrected,
    Uncorrected,
}

/// What the host's log says, per card in GPU order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ErrorCounts {
    pub corrected: Vec<i64>,
    pub uncorrected: Vec<i64>,
    /// The newest uncorrected entry, as "message (MessageId)".
    pub newest_uncorrected: Option<String>,
    /// Its `Created` time as the BMC wrote it.
    newest_created: String,
}

impl ErrorCounts {
    fn new(cards: usize) -> ErrorCounts {
        ErrorCounts {
            corrected: vec![0; cards],
            uncorrected: vec![0; cards],
            ..ErrorCounts::default()
        }
    }

    fn add(&mut self, entry: &Value, gpu_paths: &[String]) {
        let id = entry["MessageId"].as_str().unwrap_or_default();
        let message = entry["Message"].as_str().unwrap_or_default();
        let Some(kind) = classify(id, message) else {
            return;
        };
        let origin = link(&entry["Links"]["OriginOfCondition"]).unwrap_or_default();
        let card = gpu_paths
            .iter()
            .position(|gpu| origin == gpu || origin.starts_with(&format!("{gpu}/")));
        let counts = match kind {
            MemoryError::Corrected => &mut self.corrected,
            MemoryError::Uncorrected => &mut self.uncorrected,
        };
        match card {
            Some(card) => counts[card] += 1,
            None => counts.iter_mut().for_each(|n| *n += 1),
        }
        if kind == MemoryError::Uncorrected {
            // Logs are listed oldest or newest first depending on the
            // vendor; `Created` says which entry is newer (one BMC writes
            // all its times alike, so they compare as text).
            let created = entry["Created"].as_str().unwrap_or_default();
            if self.newest_uncorrected.is_none() || created >= self.newest_created.as_str() {
                let message: String = message.trim().chars().take(200).collect();
                self.newest_uncorrected = Some(format!("{message} ({id})"));
                self.newest_created = created.to_owned();
            }
        }
    }
}

/// Counts the memory errors in every log service of the system.
pub async fn count(
    bmc: &Bmc<'_>,
    system: &Value,
    gpu_paths: &[String],
) -> Result<ErrorCounts, BmcError> {
    let mut counts = ErrorCounts::new(gpu_paths.len());
    let Some(services) = link(&system["LogServices"]) else {
        return Ok(counts);
    };
    for service in members(&bmc.get(services).await?) {
        let service = bmc.get(&service).await?;
        let mut page = link(&service["Entries"]).map(str::to_owned);
        let mut pages = 0;
        while let Some(path) = page.take() {
            let entries = bmc.get(&path).await?;
            for member in entries["Members"].as_array().into_iter().flatten() {
                // Every BMC we know lists entries in full; one that lists
                // links only is asked for each entry.
                if member.get("MessageId").is_some() || member.get("Message").is_some() {
                    counts.add(member, gpu_paths);
                } else if let Some(entry) = link(member) {
                    counts.add(&bmc.get(entry).await?, gpu_paths);
                }
            }
            pages += 1;
            if pages < MAX_PAGES {
                page = entries["Members@odata.nextLink"]
                    .as_str()
                    .map(str::to_owned);
            }
        }
    }
    Ok(counts)
}

/// Whether a log entry is a memory error, and which kind (the rule above).
pub fn classify(message_id: &str, message: &str) -> Option<MemoryError> {
    let text = format!("{message_id} {message}").to_lowercase();
    let says = |words: &[&str]| words.iter().any(|w| text.contains(w));
    if let Some(xid) = xid(&text) {
        return match xid {
            48 | 64 | 94 | 95 => Some(MemoryError::Uncorrected),
            63 | 92 => Some(MemoryError::Corrected),
            _ => None,
        };
    }
    if !says(&["ecc", "memory", "dimm", "dram", "hbm"]) {
        return None;
    }
    // "uncorrectable" contains "correctable": the uncorrected words first.
    if says(&[
        "uncorrectable",
        "uncorrected",
        "non-correctable",
        "multi-bit",
        "multibit",
        "double-bit",
        "double bit",
    ]) {
        Some(MemoryError::Uncorrected)
    } else if says(&["correctable", "corrected", "single-bit", "single bit"]) {
        Some(MemoryError::Corrected)
    } else {
        None
    }
}

/// The number of an NVIDIA Xid in lower-case text: `xid (pci:…): 48`,
/// `xid 94`, `xid=79`.
fn xid(text: &str) -> Option<u32> {
    let at = text.find("xid")?;
    let mut rest = text[at + 3..].trim_start();
    if let Some(inside) = rest.strip_prefix('(') {
        rest = inside.split_once(')')?.1;
    }
    let rest = rest.trim_start_matches(|c: char| matches!(c, ':' | '=' | '#') || c.is_whitespace());
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::{classify, ErrorCounts, MemoryError::*};
    use serde_json::json;

    #[test]
    fn memory_errors_are_told_apart_by_what_the_log_says() {
        let cases = [
            (
                "Memory.1.0.CorrectableMemoryError",
                "Correctable ECC error on DIMM A1",
                Some(Corrected),
            ),
            (
                "MEM0701",
                "Correctable memory error rate exceeded for DIMM_A1.",
                Some(Corrected),
            ),
            (
                "MEM0001",
                "Multi-bit memory errors detected on DIMM A1.",
                Some(Uncorrected),
            ),
            (
                "",
                "Uncorrectable ECC @ DIMMA1 - Asserted",
                Some(Uncorrected),
            ),
            (
                "",
                "NVRM: Xid (PCI:0000:3b:00): 48, pid=1234, DBE (double bit error)",
                Some(Uncorrected),
            ),
            ("", "GPU Xid 94: contained ECC error", Some(Uncorrected)),
            (
                "",
                "NVRM: Xid (PCI:0000:3b:00): 92, High single-bit ECC error rate",
                Some(Corrected),
            ),
            (
                "",
                "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus",
                None,
            ),
            ("", "Memory device added in slot A1", None),
            ("PCIE0005", "A correctable PCIe error was detected", None),
            ("Base.1.0.Success", "Power supply redundancy regained", None),
        ];
        for (id, message, kind) in cases {
            assert_eq!(classify(id, message), kind, "{id} {message}");
        }
    }

    #[test]
    fn an_entry_about_a_gpu_counts_for_that_card_only() {
        let gpus = vec![
            "/redfish/v1/Systems/1/Processors/GPU1".to_owned(),
            "/redfish/v1/Systems/1/Processors/GPU2".to_owned(),
        ];
        let mut counts = ErrorCounts::new(2);
        let origin = json!({"@odata.id": "/redfish/v1/Systems/1/Processors/GPU2"});
        counts.add(&json!({"Message": "Uncorrectable ECC error", "MessageId": "A", "Created": "2026-12-01T10:00:00Z", "Links": {"OriginOfCondition": origin}}), &gpus);
        counts.add(
            &json!({"Message": "Correctable ECC error on DIMM A1", "MessageId": "B"}),
            &gpus,
        );
        counts.add(&json!({"Message": "Double-bit memory error", "MessageId": "C", "Created": "2026-11-30T10:00:00Z"}), &gpus);
        assert_eq!(counts.corrected, vec![1, 1]);
        assert_eq!(counts.uncorrected, vec![1, 2]);
        assert_eq!(
            counts.newest_uncorrected.as_deref(),
            Some("Uncorrectable ECC error (A)")
        );
    }
}
