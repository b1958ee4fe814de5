//! The programs behind a serial console. The BMC password only ever
//! reaches a program's environment, never its command line (which every
//! local user can read in `ps`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::Command;

use super::super::{RedfishFleet, Target};

/// ipmitool's escape character for our consoles (see [`RedfishFleet::sol`]).
pub(super) const SOL_ESCAPE: u8 = 0xFF;
/// How long a stale SOL session's `sol deactivate` may take.
const DEACTIVATE_WAIT: Duration = Duration::from_secs(15);
/// The script ssh runs to ask for the BMC password (`SSH_ASKPASS`): it
/// answers from its environment, so the password is in no file.
const ASKPASS: &str = "#!/bin/sh\nprintf '%s\\n' \"$GPU_BMC_PASSWORD\"\n";

/// A folder only this user may enter, for one ssh console's askpass
/// script; removed when the console ends.
pub(super) struct PrivateDir(PathBuf);

impl Drop for PrivateDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl RedfishFleet {
    /// Ends a SOL session left open (a dropped tunnel, another viewer):
    /// a BMC allows one, and would refuse ours. Its failure is the usual
    /// "no session to end", so it is only logged.
    pub(super) async fn sol_deactivate(&self, target: &Target, bmc_host: &str) {
        let mut command = self.sol(target, bmc_host, "deactivate");
        command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let ended = tokio::time::timeout(DEACTIVATE_WAIT, command.status()).await;
        let host = &target.bmc.host_name;
        match ended {
            Ok(Ok(status)) => tracing::debug!(host, %status, "sol deactivate"),
            Ok(Err(error)) => tracing::debug!(host, %error, "sol deactivate did not run"),
            Err(_) => tracing::debug!(host, "sol deactivate timed out"),
        }
    }

    /// `ipmitool -I lanplus … -e <0xFF> -E sol <action>`: `-E` takes the
    /// password from `IPMI_PASSWORD`. The escape character is the byte
    /// 0xFF, which no keyboard sends (UTF-8 never contains it) and the
    /// relay drops from the viewer's bytes: with ipmitool's `~`, a line
    /// starting `~.` typed into the server would end the console, and
    /// `~^Z` would stop ipmitool itself.
    pub(super) fn sol(&self, target: &Target, bmc_host: &str, action: &str) -> Command {
        use std::os::unix::ffi::OsStrExt;
        let access = &target.bmc.access;
        let mut command = console_program(&self.settings.ipmitool);
        command
            .args(["-I", "lanplus", "-H", bmc_host])
            .args(["-U", &access.username, "-e"])
            .arg(std::ffi::OsStr::from_bytes(&[SOL_ESCAPE]))
            .args(["-E", "sol", action])
            .env("IPMI_PASSWORD", &access.password);
        command
    }

    /// `ssh -tt … -l <user> <bmc> <serial command>`, answering the one
    /// password prompt through the askpass script in the returned folder,
    /// which must outlive the program. `-e none`: the bytes are the
    /// viewer's, and `~C` must not open our ssh's command line (port
    /// forwards from this machine) to them. The BMCs' host keys are kept
    /// in the settings' known-hosts file, so a key that changes after a
    /// restart is refused, not trusted anew.
    pub(super) async fn ssh(
        &self,
        target: &Target,
        bmc_host: &str,
    ) -> std::io::Result<(Command, PrivateDir)> {
        let known = known_hosts_option(&self.settings.known_hosts).await?;
        let private = make_private_dir().await?;
        let access = &target.bmc.access;
        let mut command = console_program(&self.settings.ssh);
        command
            .args(["-tt", "-e", "none"])
            .args(["-o", "StrictHostKeyChecking=accept-new", "-o"])
            .arg(known)
            .args([
                "-o",
                "PreferredAuthentications=password,keyboard-interactive",
            ])
            .args(["-o", "NumberOfPasswordPrompts=1"])
            // `--`: ssh reads options after the host too; a serial command
            // starting with `-o` must stay a command.
            .args(["-l", &access.username, "--", bmc_host]);
        if !target.bmc.serial_command.is_empty() {
            command.arg(&target.bmc.serial_command);
        }
        command
            .env("SSH_ASKPASS", private.0.join("askpass"))
            .env("SSH_ASKPASS_REQUIRE", "force")
            .env("GPU_BMC_PASSWORD", &access.password);
        Ok((command, private))
    }
}

use super::super::clean_command as console_program;

/// `UserKnownHostsFile=<absolute path>`, its folder made if missing.
/// Absolute, because a relative file would follow the program's working
/// folder (and a leading `~` would be expanded). ssh splits the value at
/// blanks, reads quotes and backslashes, and expands `%`: a path with one
/// of those would name another file, so it is refused.
async fn known_hosts_option(path: &Path) -> std::io::Result<OsString> {
    let absolute = std::path::absolute(path)?;
    let unsafe_for_ssh = absolute
        .to_string_lossy()
        .chars()
        .any(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '\\' | '%'));
    if unsafe_for_ssh {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "the known-hosts file {} has a blank, quote, backslash or % in its path, which ssh would misread",
                absolute.display()
            ),
        ));
    }
    if let Some(folder) = absolute.parent() {
        // Only this user may change the BMCs' trusted keys.
        tokio::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(folder)
            .await?;
    }
    let mut option = OsString::from("UserKnownHostsFile=");
    option.push(&absolute);
    Ok(option)
}

async fn make_private_dir() -> std::io::Result<PrivateDir> {
    let name = format!("gpu-bmc-console-{}", uuid::Uuid::new_v4().simple());
    let path = std::env::temp_dir().join(name);
    // Fails if it exists: nobody else can have prepared it for us.
    tokio::fs::DirBuilder::new()
        .mode(0o700)
        .create(&path)
        .await?;
    let dir = PrivateDir(path);
    let mut script = tokio::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o700)
        .open(dir.0.join("askpass"))
        .await?;
    tokio::io::AsyncWriteExt::write_all(&mut script, ASKPASS.as_bytes()).await?;
    tokio::io::AsyncWriteExt::flush(&mut script).await?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::known_hosts_option;
    use std::path::PathBuf;

    #[tokio::test]
    async fn known_hosts_folder_is_made_and_the_path_made_absolute() {
        let base = std::env::temp_dir().join(format!("gpu-kh-{}", uuid::Uuid::new_v4().simple()));
        let file = base.join("keys/bmc_known_hosts");
        let option = known_hosts_option(&file).await.expect("a usable path");
        assert_eq!(
            option.to_string_lossy(),
            format!("UserKnownHostsFile={}", file.display())
        );
        assert!(base.join("keys").is_dir());
        std::fs::remove_dir_all(&base).expect("cleaning up");

        let relative = known_hosts_option(&PathBuf::from(".")).await;
        let relative = relative.expect("the working folder");
        assert!(relative
            .to_string_lossy()
            .starts_with("UserKnownHostsFile=/"));
    }

    #[tokio::test]
    async fn paths_ssh_would_misread_are_refused() {
        for path in ["/srv/my keys/known", "/srv/100%/known", "/srv/\"q\"/known"] {
            let refused = known_hosts_option(&PathBuf::from(path)).await;
            assert!(refused.is_err(), "{path}");
        }
    }
}
