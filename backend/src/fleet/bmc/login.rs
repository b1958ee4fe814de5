//! What the simulated host shows on a console: the boot messages of the
//! system installed on its disks (or the firmware's complaint when they are
//! empty), then getty and login. Both consoles (serial bytes and the VNC
//! screen) drive the same [`Login`] state machine, so typing, erasing and
//! logging in behave identically on each; only how keys arrive (bytes vs.
//! keysyms) and where the output goes differs.

use std::time::Duration;

use domain::OsImage;

use crate::fleet::disks::Installed;

/// How long `login` "checks" a password before refusing it, like the real
/// PAM delay (shortened so tests stay quick).
pub(crate) const LOGIN_DELAY: Duration = Duration::from_millis(200);

/// A typed line longer than this is cut: getty's buffer is finite too, and
/// a client pasting megabytes must not grow our memory.
const MAX_LINE: usize = 256;

/// The kernel each image boots, as its first boot line names it.
fn kernel(image: OsImage) -> &'static str {
    match image {
        OsImage::Ubuntu2404 => "6.8.0-51-generic (buildd@lcy02-amd64-091) #52 SMP",
        OsImage::Debian13 | OsImage::Rescue => "6.12.38+deb13-amd64 #1 SMP Debian 6.12.38-1",
        OsImage::Rocky9 => "5.14.0-570.17.1.el9_6.x86_64 #1 SMP PREEMPT_DYNAMIC",
    }
}

/// The lines of `/etc/issue` as getty prints them before the prompt.
fn issue(os: &Installed, tty: &str) -> Vec<String> {
    let host = &os.hostname;
    match os.image {
        OsImage::Ubuntu2404 => vec![format!("Ubuntu 24.04.1 LTS {host} {tty}")],
        OsImage::Debian13 => vec![format!("Debian GNU/Linux 13 {host} {tty}")],
        OsImage::Rocky9 => vec![
            "Rocky Linux 9.6 (Blue Onyx)".to_string(),
            format!("Kernel {} on an x86_64", "5.14.0-570.17.1.el9_6.x86_64"),
        ],
        OsImage::Rescue => vec![
            "Rescue system (Debian GNU/Linux 13): the disks are not mounted.".to_string(),
            format!("Debian GNU/Linux 13 {host} {tty}"),
        ],
    }
}

/// The boot messages, ending with the issue lines naming the host and
/// `tty` (`ttyS0` on the serial console, `tty1` on the screen). With
/// nothing installed, the firmware finds nothing to boot. Each line fits in
/// 80 columns for a host name of up to 30 characters.
pub(crate) fn boot_lines(os: Option<&Installed>, tty: &str) -> Vec<String> {
    let Some(os) = os else {
        return vec![
            "Booting from NVMe drive 0...".to_string(),
            "No operating system found.".to_string(),
            "Booting from network (PXE)...".to_string(),
            "PXE-E53: No boot filename received".to_string(),
            "No bootable device -- insert boot disk and press any key".to_string(),
        ];
    };
    let mut lines = vec![
        format!("[    0.000000] Linux version {}", kernel(os.image)),
        "[    0.000000] Command line: root=/dev/md0 ro console=tty1 console=ttyS0,115200"
            .to_string(),
        format!(
            "[    2.104517] systemd[1]: Hostname set to <{}>.",
            os.hostname
        ),
        "[  OK  ] Started systemd-journald.service - Journal Service.".to_string(),
        "[  OK  ] Finished systemd-fsck-root.service - File System Check on Root.".to_string(),
        "[  OK  ] Reached target Network is Online.".to_string(),
        "[  OK  ] Started ssh.service - OpenBSD Secure Shell server.".to_string(),
        "[  OK  ] Started nvidia-persistenced.service - NVIDIA Persistence Daemon.".to_string(),
        "[  OK  ] Reached target Multi-User System.".to_string(),
        String::new(),
    ];
    lines.extend(issue(os, tty));
    lines
}

/// The login prompt, without the line break that precedes it; `None`
/// when nothing is installed (no getty runs).
pub(crate) fn prompt(os: Option<&Installed>) -> Option<String> {
    os.map(|os| format!("{} login: ", os.hostname))
}

/// Everything a console shows after booting: the boot lines, a blank line
/// and the login prompt, as terminal output ("\r\n" line breaks).
pub(crate) fn boot_text(os: Option<&Installed>, tty: &str) -> String {
    let mut text = boot_lines(os, tty).join("\r\n");
    if let Some(prompt) = prompt(os) {
        text.push_str("\r\n\r\n");
        text.push_str(&prompt);
    }
    text
}

/// One key press, already decoded from the console's wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Key {
    /// A printable character.
    Char(char),
    Backspace,
    Enter,
    /// Ctrl-C.
    Interrupt,
}

/// What a key makes the console print: `now` at once, then `delayed` (if
/// any) after [`LOGIN_DELAY`]. Both are terminal output: "\r\n" breaks
/// lines and "\x08 \x08" erases the character left of the cursor.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Reply {
    pub now: String,
    pub delayed: Option<String>,
}

impl Reply {
    fn now(text: impl Into<String>) -> Reply {
        Reply {
            now: text.into(),
            delayed: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// Nothing installed: the firmware waits; keys do nothing.
    NoSystem,
    /// getty: typing a user name, echoed.
    User,
    /// login: typing the password of `user`, not echoed.
    Password { user: String },
    /// Logged in as root: a shell that knows a handful of commands.
    Shell,
}

/// getty, login and a root shell on one terminal. Only the root password
/// installed on the disks (at install, or set since through the Fleet)
/// logs in; anything else ends in "Login incorrect".
#[derive(Debug)]
pub(crate) struct Login {
    os: Option<Installed>,
    phase: Phase,
    line: String,
}

impl Login {
    pub(crate) fn new(os: Option<&Installed>) -> Login {
        Login {
            os: os.cloned(),
            phase: if os.is_some() {
                Phase::User
            } else {
                Phase::NoSystem
            },
            line: String::new(),
        }
    }

    fn prompt(&self) -> String {
        prompt(self.os.as_ref()).unwrap_or_default()
    }

    fn shell_prompt(&self) -> String {
        let host = self.os.as_ref().map_or("", |os| os.hostname.as_str());
        match self.os.as_ref().map(|os| os.image) {
            Some(OsImage::Rocky9) => format!("[root@{host} ~]# "),
            _ => format!("root@{host}:~# "),
        }
    }

    pub(crate) fn key(&mut self, key: Key) -> Reply {
        if self.phase == Phase::NoSystem {
            return Reply::default();
        }
        let echoes = !matches!(self.phase, Phase::Password { .. });
        match key {
            Key::Char(c) => {
                if c.is_control() || self.line.chars().count() >= MAX_LINE {
                    return Reply::default();
                }
                self.line.push(c);
                if echoes {
                    Reply::now(c.to_string())
                } else {
                    Reply::default()
                }
            }
            Key::Backspace => {
                // The password is erased silently: even its length is hidden.
                if self.line.pop().is_some() && echoes {
                    Reply::now("\x08 \x08")
                } else {
                    Reply::default()
                }
            }
            Key::Enter => self.enter(),
            Key::Interrupt => {
                self.line.clear();
                if self.phase == Phase::Shell {
                    return Reply::now(format!("^C\r\n{}", self.shell_prompt()));
                }
                self.phase = Phase::User;
                Reply::now(format!("^C\r\n{}", self.prompt()))
            }
        }
    }

    fn enter(&mut self) -> Reply {
        let typed = std::mem::take(&mut self.line);
        match std::mem::replace(&mut self.phase, Phase::User) {
            Phase::NoSystem => {
                self.phase = Phase::NoSystem;
                Reply::default()
            }
            // getty asks again for an empty user name.
            Phase::User if typed.is_empty() => Reply::now(format!("\r\n{}", self.prompt())),
            Phase::User => {
                self.phase = Phase::Password { user: typed };
                Reply::now("\r\nPassword: ")
            }
            Phase::Password { user } => {
                let accepted =
                    user == "root" && self.os.as_ref().is_some_and(|os| os.accepts(&typed));
                if accepted {
                    self.phase = Phase::Shell;
                    return Reply::now(format!("\r\n{}", self.shell_prompt()));
                }
                Reply {
                    now: String::new(),
                    delayed: Some(format!("\r\nLogin incorrect\r\n{}", self.prompt())),
                }
            }
            Phase::Shell => {
                self.phase = Phase::Shell;
                let host = self.os.as_ref().map_or("", |os| os.hostname.as_str());
                let output = match typed.trim() {
                    "" => String::new(),
                    "exit" | "logout" => {
                        self.phase = Phase::User;
                        return Reply::now(format!("\r\nlogout\r\n\r\n{}", self.prompt()));
                    }
                    "hostname" => format!("{host}\r\n"),
                    "whoami" => "root\r\n".to_string(),
                    command => {
                        let name = command.split_whitespace().next().unwrap_or(command);
                        format!("-bash: {name}: command not found\r\n")
                    }
                };
                Reply::now(format!("\r\n{output}{}", self.shell_prompt()))
            }
        }
    }
}

#[cfg(test)]
#[path = "login_tests.rs"]
mod tests;
