//! What the simulated host's operating system shows on a console: its boot
//! messages and the getty/login prompt. Both consoles (serial bytes and the
//! VNC screen) drive the same [`Login`] state machine, so typing, erasing
//! and the refused login behave identically on each; only how keys arrive
//! (bytes vs. keysyms) and where the output goes differs.

use std::time::Duration;

/// How long `login` "checks" a password before refusing it, like the real
/// PAM delay (shortened so tests stay quick).
pub(crate) const LOGIN_DELAY: Duration = Duration::from_millis(200);

/// A typed line longer than this is cut: getty's buffer is finite too, and
/// a client pasting megabytes must not grow our memory.
const MAX_LINE: usize = 256;

/// The kernel and systemd messages a freshly booted Ubuntu server prints,
/// ending with the issue line naming the host and `tty` (`ttyS0` on the
/// serial console, `tty1` on the screen). Each fits in 80 columns for a
/// host name of up to about 40 characters.
pub(crate) fn boot_lines(host: &str, tty: &str) -> Vec<String> {
    vec![
        "[    0.000000] Linux version 6.8.0-51-generic (buildd@lcy02-amd64-091) #52 SMP"
            .to_string(),
        "[    0.000000] Command line: root=/dev/md0 ro console=tty1 console=ttyS0,115200"
            .to_string(),
        format!("[    2.104517] systemd[1]: Hostname set to <{host}>."),
        "[  OK  ] Started systemd-journald.service - Journal Service.".to_string(),
        "[  OK  ] Finished systemd-fsck-root.service - File System Check on Root.".to_string(),
        "[  OK  ] Reached target Network is Online.".to_string(),
        "[  OK  ] Started ssh.service - OpenBSD Secure Shell server.".to_string(),
        "[  OK  ] Started nvidia-persistenced.service - NVIDIA Persistence Daemon.".to_string(),
        "[  OK  ] Reached target Multi-User System.".to_string(),
        String::new(),
        format!("Ubuntu 24.04.1 LTS {host} {tty}"),
    ]
}

/// The login prompt, without the line break that precedes it.
pub(crate) fn prompt(host: &str) -> String {
    format!("{host} login: ")
}

/// Everything a console shows after booting: the boot lines, a blank line
/// and the login prompt, as terminal output ("\r\n" line breaks).
pub(crate) fn boot_text(host: &str, tty: &str) -> String {
    let mut text = boot_lines(host, tty).join("\r\n");
    text.push_str("\r\n\r\n");
    text.push_str(&prompt(host));
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// getty: typing a user name, echoed.
    User,
    /// login: typing a password, not echoed.
    Password,
}

/// getty and login on one terminal. We never know the customer's password,
/// so every attempt ends in "Login incorrect".
#[derive(Debug)]
pub(crate) struct Login {
    host: String,
    phase: Phase,
    line: String,
}

impl Login {
    pub(crate) fn new(host: &str) -> Login {
        Login {
            host: host.to_string(),
            phase: Phase::User,
            line: String::new(),
        }
    }

    pub(crate) fn key(&mut self, key: Key) -> Reply {
        match key {
            Key::Char(c) => {
                if c.is_control() || self.line.chars().count() >= MAX_LINE {
                    return Reply::default();
                }
                self.line.push(c);
                match self.phase {
                    Phase::User => Reply {
                        now: c.to_string(),
                        delayed: None,
                    },
                    Phase::Password => Reply::default(),
                }
            }
            Key::Backspace => {
                // The password is erased silently: even its length is hidden.
                if self.line.pop().is_some() && self.phase == Phase::User {
                    Reply {
                        now: "\x08 \x08".to_string(),
                        delayed: None,
                    }
                } else {
                    Reply::default()
                }
            }
            Key::Enter => {
                let typed = std::mem::take(&mut self.line);
                match self.phase {
                    // getty asks again for an empty user name.
                    Phase::User if typed.is_empty() => Reply {
                        now: format!("\r\n{}", prompt(&self.host)),
                        delayed: None,
                    },
                    Phase::User => {
                        self.phase = Phase::Password;
                        Reply {
                            now: "\r\nPassword: ".to_string(),
                            delayed: None,
                        }
                    }
                    Phase::Password => {
                        self.phase = Phase::User;
                        Reply {
                            now: String::new(),
                            delayed: Some(format!("\r\nLogin incorrect\r\n{}", prompt(&self.host))),
                        }
                    }
                }
            }
            Key::Interrupt => {
                self.line.clear();
                self.phase = Phase::User;
                Reply {
                    now: format!("^C\r\n{}", prompt(&self.host)),
                    delayed: None,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(login: &mut Login, text: &str) -> String {
        text.chars().map(|c| login.key(Key::Char(c)).now).collect()
    }

    #[test]
    fn user_name_is_echoed_and_password_is_not() {
        let mut login = Login::new("gpu-7");
        assert_eq!(typed(&mut login, "root"), "root");
        assert_eq!(login.key(Key::Enter).now, "\r\nPassword: ");
        assert_eq!(typed(&mut login, "secret"), "");
        assert_eq!(login.key(Key::Backspace), Reply::default());
        let reply = login.key(Key::Enter);
        assert_eq!(reply.now, "");
        assert_eq!(
            reply.delayed.as_deref(),
            Some("\r\nLogin incorrect\r\ngpu-7 login: ")
        );
        // Back to the user name, echoed again.
        assert_eq!(typed(&mut login, "a"), "a");
    }

    #[test]
    fn backspace_erases_only_what_was_typed() {
        let mut login = Login::new("h");
        assert_eq!(login.key(Key::Backspace).now, "");
        typed(&mut login, "ab");
        assert_eq!(login.key(Key::Backspace).now, "\x08 \x08");
        assert_eq!(login.key(Key::Backspace).now, "\x08 \x08");
        assert_eq!(login.key(Key::Backspace).now, "");
        assert_eq!(login.key(Key::Enter).now, "\r\nh login: ");
    }

    #[test]
    fn interrupt_resets_to_the_user_prompt() {
        let mut login = Login::new("h");
        typed(&mut login, "root");
        login.key(Key::Enter);
        typed(&mut login, "pw");
        assert_eq!(login.key(Key::Interrupt).now, "^C\r\nh login: ");
        assert_eq!(typed(&mut login, "x"), "x");
    }

    #[test]
    fn control_characters_and_overlong_lines_are_ignored() {
        let mut login = Login::new("h");
        assert_eq!(login.key(Key::Char('\x07')).now, "");
        let long: String = std::iter::repeat_n('x', MAX_LINE + 10).collect();
        assert_eq!(typed(&mut login, &long).len(), MAX_LINE);
    }

    #[test]
    fn boot_text_ends_with_the_prompt_and_names_the_host() {
        let text = boot_text("gpu-7", "ttyS0");
        assert!(text.ends_with("\r\n\r\ngpu-7 login: "));
        assert!(text.contains("Ubuntu 24.04.1 LTS gpu-7 ttyS0"));
        assert!(text.contains("[  OK  ] Reached target Multi-User System."));
        assert!(boot_lines("gpu-7", "tty1").iter().all(|l| l.len() <= 80));
    }
}
