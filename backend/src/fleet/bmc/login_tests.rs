use super::*;

fn ubuntu(host: &str) -> Installed {
    Installed::new(OsImage::Ubuntu2404, host, Some("right"))
}

fn typed(login: &mut Login, text: &str) -> String {
    text.chars().map(|c| login.key(Key::Char(c)).now).collect()
}

#[test]
fn user_name_is_echoed_and_password_is_not() {
    let mut login = Login::new(Some(&ubuntu("gpu-7")));
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
fn the_installed_root_password_opens_a_shell() {
    let mut login = Login::new(Some(&ubuntu("train-fra-01")));
    typed(&mut login, "root");
    login.key(Key::Enter);
    typed(&mut login, "right");
    assert_eq!(login.key(Key::Enter).now, "\r\nroot@train-fra-01:~# ");
    typed(&mut login, "hostname");
    assert_eq!(
        login.key(Key::Enter).now,
        "\r\ntrain-fra-01\r\nroot@train-fra-01:~# "
    );
    typed(&mut login, "nvidia-smi -L");
    assert!(login
        .key(Key::Enter)
        .now
        .contains("-bash: nvidia-smi: command not found"));
    typed(&mut login, "exit");
    assert_eq!(
        login.key(Key::Enter).now,
        "\r\nlogout\r\n\r\ntrain-fra-01 login: "
    );
    // Another user with root's password is refused.
    typed(&mut login, "admin");
    login.key(Key::Enter);
    typed(&mut login, "right");
    assert!(login.key(Key::Enter).delayed.is_some());
}

#[test]
fn backspace_erases_only_what_was_typed() {
    let mut login = Login::new(Some(&ubuntu("h")));
    assert_eq!(login.key(Key::Backspace).now, "");
    typed(&mut login, "ab");
    assert_eq!(login.key(Key::Backspace).now, "\x08 \x08");
    assert_eq!(login.key(Key::Backspace).now, "\x08 \x08");
    assert_eq!(login.key(Key::Backspace).now, "");
    assert_eq!(login.key(Key::Enter).now, "\r\nh login: ");
}

#[test]
fn interrupt_resets_to_the_user_prompt() {
    let mut login = Login::new(Some(&ubuntu("h")));
    typed(&mut login, "root");
    login.key(Key::Enter);
    typed(&mut login, "pw");
    assert_eq!(login.key(Key::Interrupt).now, "^C\r\nh login: ");
    assert_eq!(typed(&mut login, "x"), "x");
}

#[test]
fn control_characters_and_overlong_lines_are_ignored() {
    let mut login = Login::new(Some(&ubuntu("h")));
    assert_eq!(login.key(Key::Char('\x07')).now, "");
    let long: String = std::iter::repeat_n('x', MAX_LINE + 10).collect();
    assert_eq!(typed(&mut login, &long).len(), MAX_LINE);
}

#[test]
fn boot_text_shows_the_installed_system_and_hostname() {
    let text = boot_text(Some(&ubuntu("gpu-7")), "ttyS0");
    assert!(text.ends_with("\r\n\r\ngpu-7 login: "));
    assert!(text.contains("Ubuntu 24.04.1 LTS gpu-7 ttyS0"));
    assert!(text.contains("[  OK  ] Reached target Multi-User System."));
    let debian = Installed::new(OsImage::Debian13, "train-fra-01", None);
    let text = boot_text(Some(&debian), "ttyS0");
    assert!(text.contains("Debian GNU/Linux 13 train-fra-01 ttyS0"));
    assert!(text.contains("Hostname set to <train-fra-01>"));
    assert!(!text.contains("Ubuntu"));
    for image in OsImage::ALL {
        let os = Installed::new(image, "a-thirty-character-host-name-x", None);
        assert!(boot_lines(Some(&os), "tty1").iter().all(|l| l.len() <= 80));
    }
}

#[test]
fn an_empty_disk_boots_nothing_and_ignores_keys() {
    let text = boot_text(None, "ttyS0");
    assert!(text.contains("No bootable device"));
    assert!(!text.contains("login:"));
    let mut login = Login::new(None);
    assert_eq!(typed(&mut login, "root"), "");
    assert_eq!(login.key(Key::Enter), Reply::default());
}
