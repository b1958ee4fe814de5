//! Boot media from the operator's image store, made per boot. The store is
//! a folder of ISO images, one per OS image (`debian-13.iso`, …) and
//! `wipe.iso`, each built with a *seed area*: 4 KiB starting with the
//! bytes `GPUSEED1` (a file of that content on the ISO). Serving an image
//! for a boot writes the boot's seed and report URLs and its seed secret
//! into that area, the way `coreos-installer iso ignition embed` does: the
//! installer reads it from its boot medium, fetches its seed over HTTPS
//! with the secret, and signs its reports with the key the seed holds. So
//! one image serves every host, and the media token in the URL the BMC
//! logs opens nothing but the media.
//!
//! BMCs read virtual media with HTTP range requests, so reads take any
//! offset and length.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use anyhow::Context;
use tokio::io::{AsyncReadExt, AsyncSeekExt};
use tokio::sync::Mutex;

/// The seed area's first bytes.
pub const SEED_MAGIC: &[u8; 8] = b"GPUSEED1";
/// The seed area's size: the magic, then JSON, then zero bytes.
pub const SEED_AREA: usize = 4096;

/// An image of the store, and where its seed area is.
#[derive(Clone, Debug)]
pub struct Media {
    pub path: PathBuf,
    pub len: u64,
    pub seed_at: u64,
}

/// The operator's image store, with each image's seed area found once
/// (a scan reads the whole file) and remembered until the file changes.
#[derive(Clone, Debug)]
pub struct ImageStore {
    dir: PathBuf,
    found: Arc<Mutex<Vec<Found>>>,
}

/// Where a seed area was found, in which version of a file.
#[derive(Debug)]
struct Found {
    path: PathBuf,
    len: u64,
    modified: SystemTime,
    seed_at: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum MediaError {
    #[error("the image store has no {0}")]
    Missing(String),
    #[error("{0} has no seed area (4 KiB starting with GPUSEED1); rebuild it as docs/OPERATIONS.md says")]
    NoSeedArea(String),
    #[error(transparent)]
    Io(#[from] anyhow::Error),
}

impl ImageStore {
    pub fn new(dir: impl Into<PathBuf>) -> ImageStore {
        ImageStore {
            dir: dir.into(),
            found: Arc::default(),
        }
    }

    /// The file for an image name (`debian-13`, `wipe`); names come from
    /// our own enum, never from a request.
    pub async fn media(&self, image: &str) -> Result<Media, MediaError> {
        let file = format!("{image}.iso");
        if !image
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
            || image.starts_with('.')
        {
            return Err(MediaError::Missing(file));
        }
        let path = self.dir.join(&file);
        let meta = match tokio::fs::metadata(&path).await {
            Ok(meta) if meta.is_file() => meta,
            _ => return Err(MediaError::Missing(file)),
        };
        let (len, modified) = (meta.len(), meta.modified().context("image mtime")?);
        let mut found = self.found.lock().await;
        if let Some(known) = found
            .iter()
            .find(|f| f.path == path && f.len == len && f.modified == modified)
        {
            return Ok(Media {
                path,
                len,
                seed_at: known.seed_at,
            });
        }
        let seed_at = find_seed_area(&path)
            .await?
            .ok_or_else(|| MediaError::NoSeedArea(file))?;
        found.retain(|f| f.path != path);
        found.push(Found {
            path: path.clone(),
            len,
            modified,
            seed_at,
        });
        Ok(Media { path, len, seed_at })
    }
}

/// Scans for the seed area, 1 MiB at a time. ISO 9660 places files on
/// 2 KiB sectors, so the area starts on one; only those offsets count.
async fn find_seed_area(path: &Path) -> anyhow::Result<Option<u64>> {
    const SECTOR: usize = 2048;
    const CHUNK: usize = 1 << 20;
    let mut file = tokio::fs::File::open(path)
        .await
        .with_context(|| format!("opening {}", path.display()))?;
    let mut buffer = vec![0u8; CHUNK];
    let mut offset = 0u64;
    loop {
        let mut filled = 0;
        while filled < CHUNK {
            let n = file
                .read(&mut buffer[filled..])
                .await
                .context("reading the image")?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        if let Some(i) = (0..filled)
            .step_by(SECTOR)
            .find(|&i| buffer[i..].starts_with(SEED_MAGIC))
        {
            return Ok(Some(offset + i as u64));
        }
        if filled < CHUNK {
            return Ok(None);
        }
        offset += CHUNK as u64;
    }
}

/// The seed area for one boot: the magic, the JSON naming the boot, its
/// seed and report URLs and the seed secret, then zeros. `base` is our
/// callback URL.
pub fn seed_area(base: &str, boot_id: &str, seed_secret: &str) -> anyhow::Result<Vec<u8>> {
    let json = serde_json::json!({
        "boot": boot_id,
        "seed": format!("{base}/fleet/boots/{boot_id}/seed"),
        "seed_secret": seed_secret,
        "report": format!("{base}/fleet/boots/{boot_id}/report"),
    })
    .to_string();
    let mut area = Vec::with_capacity(SEED_AREA);
    area.extend_from_slice(SEED_MAGIC);
    area.extend_from_slice(json.as_bytes());
    anyhow::ensure!(
        area.len() <= SEED_AREA,
        "the seed URLs do not fit the seed area"
    );
    area.resize(SEED_AREA, 0);
    Ok(area)
}

impl Media {
    /// The image, open and positioned at `offset`.
    pub async fn open_at(&self, offset: u64) -> anyhow::Result<tokio::fs::File> {
        let mut file = tokio::fs::File::open(&self.path)
            .await
            .with_context(|| format!("opening {}", self.path.display()))?;
        file.seek(std::io::SeekFrom::Start(offset)).await?;
        Ok(file)
    }

    /// The next `len` bytes of `file` (at `offset`, where [`Media::open_at`]
    /// or the last read left it), with the seed area replaced by `area`.
    pub async fn read(
        &self,
        file: &mut tokio::fs::File,
        offset: u64,
        len: usize,
        area: &[u8],
    ) -> anyhow::Result<Vec<u8>> {
        let mut bytes = vec![0u8; len];
        file.read_exact(&mut bytes)
            .await
            .context("reading the image")?;
        // Where the area and the read overlap, the area's bytes win.
        let (start, end) = (offset, offset + len as u64);
        let (area_start, area_end) = (self.seed_at, self.seed_at + area.len() as u64);
        if start < area_end && area_start < end {
            for at in start.max(area_start)..end.min(area_end) {
                bytes[(at - start) as usize] = area[(at - area_start) as usize];
            }
        }
        Ok(bytes)
    }
}
