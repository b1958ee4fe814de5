//! Bytes between the viewer's connection and the console program.

use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, ChildStderr};

/// Relays bytes between the viewer and the program until either ends;
/// `dropped`, a byte the viewer may never send to the program (its escape
/// character), is taken out. Answers why the program failed when it ended
/// on its own unsuccessfully, for the host's history (written before the
/// viewer's connection closes); a viewer closing its console is no
/// failure.
pub(super) async fn relay(
    host: &str,
    program: &str,
    mut child: Child,
    stream: &mut TcpStream,
    dropped: Option<u8>,
) -> Option<String> {
    let (Some(mut stdin), Some(mut stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return None;
    };
    let stderr = child
        .stderr
        .take()
        .map(|stderr| tokio::spawn(log_stderr(host.to_owned(), program.to_owned(), stderr)));
    let (mut from_viewer, mut to_viewer) = stream.split();
    let program_ended = tokio::select! {
        _ = typed(&mut from_viewer, &mut stdin, dropped) => false,
        _ = tokio::io::copy(&mut stdout, &mut to_viewer) => true,
    };
    drop((stdin, stdout, from_viewer, to_viewer));
    let status = if program_ended {
        tokio::time::timeout(Duration::from_secs(2), child.wait())
            .await
            .ok()
    } else {
        None
    };
    // Already gone, or killed here: either way it is reaped.
    let _ = child.kill().await;
    let last_words = match stderr {
        Some(task) => tokio::time::timeout(Duration::from_secs(1), task)
            .await
            .ok()
            .and_then(Result::ok)
            .flatten(),
        None => None,
    };
    match (status, last_words) {
        (Some(Ok(status)), Some(said)) if !status.success() => {
            Some(format!("{program} ended ({status}): {said}"))
        }
        (Some(Ok(status)), None) if !status.success() => {
            Some(format!("{program} ended ({status})"))
        }
        _ => None,
    }
}

/// Copies the viewer's bytes to the program without `dropped`, until
/// either side closes.
async fn typed(
    from: &mut (impl AsyncRead + Unpin),
    to: &mut (impl AsyncWrite + Unpin),
    dropped: Option<u8>,
) {
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let n = match from.read(&mut buffer).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        let mut bytes = buffer[..n].to_vec();
        if let Some(byte) = dropped {
            bytes.retain(|b| *b != byte);
        }
        if to.write_all(&bytes).await.is_err() || to.flush().await.is_err() {
            return;
        }
    }
}

/// Logs the program's diagnostics (neither program prints the password)
/// and answers its last line.
async fn log_stderr(host: String, program: String, stderr: ChildStderr) -> Option<String> {
    let mut lines = BufReader::new(stderr).lines();
    let mut last = None;
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::debug!(host, program, line, "serial console program");
        let line = line.trim();
        if !line.is_empty() {
            last = Some(line.chars().take(200).collect());
        }
    }
    last
}
