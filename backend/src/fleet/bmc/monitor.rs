//! One host's monitor output, shared by every VNC connection to it (a BMC
//! captures the one video output; all viewers see the same picture and type
//! on the same keyboard). A task per host owns the login state and applies
//! keys in order, so delays (the refused password, a Ctrl-Alt-Del reboot)
//! hold back later keys without blocking the connections that sent them.

use std::time::Duration;

use tokio::sync::{mpsc, watch};

use super::login::{boot_text, Key, Login, LOGIN_DELAY};
use super::screen::TextScreen;
use crate::fleet::disks::Installed;

/// How long the simulated machine takes from "reboot" to the login prompt.
const REBOOT_TIME: Duration = Duration::from_secs(1);

/// Keys waiting for the host task; a client sending faster waits (TCP
/// back-pressure) rather than growing a queue.
const INPUT_QUEUE: usize = 256;

/// What a VNC connection asks of the host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Input {
    Key(Key),
    /// Ctrl-Alt-Del: the host reboots.
    CtrlAltDel,
    /// What the disks hold as a viewer connects: if it is not what the
    /// screen shows (installed, reinstalled or wiped since), the machine
    /// has rebooted into it, as it did for real when that happened.
    Booted(Option<Installed>),
}

/// The screen contents (watched: connections wake when it changes) and the
/// way into the host task.
#[derive(Debug)]
pub(crate) struct Monitor {
    screen: watch::Sender<TextScreen>,
    input: mpsc::Sender<Input>,
}

impl Monitor {
    /// A host booted into `os` (its login prompt, or the firmware's
    /// complaint with empty disks); spawns the host task, which lives as
    /// long as the monitor.
    pub(crate) fn start(os: Option<Installed>) -> Monitor {
        let mut booted = TextScreen::default();
        booted.write(&boot_text(os.as_ref(), "tty1"));
        let (screen, _) = watch::channel(booted);
        let (input, inputs) = mpsc::channel(INPUT_QUEUE);
        tokio::spawn(run(os, screen.clone(), inputs));
        Monitor { screen, input }
    }

    /// A view of the screen. Its first `changed()` is the next change.
    pub(crate) fn subscribe(&self) -> watch::Receiver<TextScreen> {
        self.screen.subscribe()
    }

    pub(crate) async fn send(&self, input: Input) {
        if self.input.send(input).await.is_err() {
            tracing::debug!("BMC host task gone; input dropped");
        }
    }
}

fn show(screen: &watch::Sender<TextScreen>, text: &str) {
    if !text.is_empty() {
        screen.send_modify(|s| s.write(text));
    }
}

async fn run(
    mut os: Option<Installed>,
    screen: watch::Sender<TextScreen>,
    mut inputs: mpsc::Receiver<Input>,
) {
    let mut login = Login::new(os.as_ref());
    while let Some(input) = inputs.recv().await {
        match input {
            Input::Booted(now) => {
                if now != os {
                    os = now;
                    login = Login::new(os.as_ref());
                    screen.send_modify(|s| {
                        s.clear();
                        s.write(&boot_text(os.as_ref(), "tty1"));
                    });
                }
            }
            Input::Key(key) => {
                let reply = login.key(key);
                show(&screen, &reply.now);
                if let Some(later) = reply.delayed {
                    tokio::time::sleep(LOGIN_DELAY).await;
                    show(&screen, &later);
                }
            }
            Input::CtrlAltDel => {
                screen.send_modify(|s| {
                    s.clear();
                    s.write("reboot: Restarting system");
                });
                tokio::time::sleep(REBOOT_TIME).await;
                // Keys typed while the machine was down are lost.
                while inputs.try_recv().is_ok() {}
                login = Login::new(os.as_ref());
                screen.send_modify(|s| {
                    s.clear();
                    s.write(&boot_text(os.as_ref(), "tty1"));
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::bmc::login::boot_lines;
    use tokio::time::timeout;

    fn ubuntu(host: &str) -> Option<Installed> {
        Some(Installed::new(domain::OsImage::Ubuntu2404, host, None))
    }

    async fn wait_for(
        screen: &mut watch::Receiver<TextScreen>,
        what: &str,
        ok: impl Fn(&TextScreen) -> bool,
    ) {
        let waited = timeout(Duration::from_secs(5), async {
            while !ok(&screen.borrow_and_update()) {
                if screen.changed().await.is_err() {
                    return;
                }
            }
        })
        .await;
        assert!(waited.is_ok(), "timed out waiting for {what}");
    }

    #[tokio::test]
    async fn keys_type_on_the_shared_screen_and_login_fails() {
        let monitor = Monitor::start(ubuntu("gpu-7"));
        let prompt_row = boot_lines(ubuntu("gpu-7").as_ref(), "tty1").len() + 1;
        let mut screen = monitor.subscribe();
        assert_eq!(screen.borrow().row_text(prompt_row), "gpu-7 login:");
        assert_eq!(
            screen.borrow().row_text(prompt_row - 2),
            "Ubuntu 24.04.1 LTS gpu-7 tty1"
        );

        for c in "roox".chars() {
            monitor.send(Input::Key(Key::Char(c))).await;
        }
        monitor.send(Input::Key(Key::Backspace)).await;
        monitor.send(Input::Key(Key::Char('t'))).await;
        monitor.send(Input::Key(Key::Enter)).await;
        for c in "hunter2".chars() {
            monitor.send(Input::Key(Key::Char(c))).await;
        }
        monitor.send(Input::Key(Key::Enter)).await;
        wait_for(&mut screen, "Login incorrect", |s| {
            s.row_text(prompt_row + 2) == "Login incorrect"
        })
        .await;
        let s = screen.borrow().clone();
        assert_eq!(s.row_text(prompt_row), "gpu-7 login: root");
        assert_eq!(s.row_text(prompt_row + 1), "Password:");
        assert_eq!(s.row_text(prompt_row + 3), "gpu-7 login:");
        assert_eq!(s.cursor(), (prompt_row + 3, "gpu-7 login: ".len()));
    }

    #[tokio::test]
    async fn ctrl_alt_del_reboots_to_the_prompt() {
        let monitor = Monitor::start(ubuntu("h"));
        let mut screen = monitor.subscribe();
        monitor.send(Input::Key(Key::Char('x'))).await;
        monitor.send(Input::CtrlAltDel).await;
        wait_for(&mut screen, "the reboot message", |s| {
            s.row_text(0) == "reboot: Restarting system"
        })
        .await;
        wait_for(&mut screen, "the boot lines", |s| {
            s.row_text(0).contains("Linux version")
        })
        .await;
        let prompt_row = boot_lines(ubuntu("h").as_ref(), "tty1").len() + 1;
        assert_eq!(screen.borrow().row_text(prompt_row), "h login:");
    }

    #[tokio::test]
    async fn an_install_seen_by_a_new_viewer_reboots_the_screen() {
        let monitor = Monitor::start(None);
        let mut screen = monitor.subscribe();
        assert!(screen.borrow().row_text(4).contains("No bootable device"));
        let debian = Installed::new(domain::OsImage::Debian13, "train-fra-01", None);
        monitor.send(Input::Booted(Some(debian.clone()))).await;
        let prompt_row = boot_lines(Some(&debian), "tty1").len() + 1;
        wait_for(&mut screen, "the installed system", |s| {
            s.row_text(prompt_row) == "train-fra-01 login:"
        })
        .await;
        assert_eq!(
            screen.borrow().row_text(prompt_row - 2),
            "Debian GNU/Linux 13 train-fra-01 tty1"
        );
    }

    #[tokio::test]
    async fn the_screen_scrolls_when_full() {
        let monitor = Monitor::start(ubuntu("h"));
        let mut screen = monitor.subscribe();
        // Each empty Enter repeats the prompt on the next line.
        for _ in 0..30 {
            monitor.send(Input::Key(Key::Enter)).await;
        }
        wait_for(&mut screen, "scrolling", |s| {
            (0..crate::fleet::bmc::screen::ROWS).all(|r| s.row_text(r).starts_with("h login:"))
        })
        .await;
    }
}
