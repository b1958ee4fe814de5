//! Hosts' BMCs on the staff hosts page: where each host's Redfish service
//! answers and as whom, whether its certificate is checked, how its serial
//! console is reached, what the last check read (model, serial, BIOS,
//! power, GPUs) or why it refused the host; a button to check it again and
//! the form that sets a BMC. The password is never on the page.

use domain::host::SerialConsole;
use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::forms::CsrfField;
use super::{query, use_feedback};
use crate::i18n::{orders, staff};
use crate::storefront::href;

/// A host's BMC as staff see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BmcRow {
    pub host: String,
    pub url: String,
    pub username: String,
    pub tls_verify: bool,
    /// `ipmi` or `ssh`.
    pub serial_console: SerialConsole,
    pub model: Option<String>,
    pub serial_number: Option<String>,
    pub bios_version: Option<String>,
    pub power_state: Option<String>,
    /// "NVIDIA L40S, NVIDIA L40S"
    pub gpus: Option<String>,
    pub checked_at: Option<i64>,
    /// Why the last check refused the host, or could not read its BMC.
    pub check_error: Option<String>,
}

impl BmcRow {
    /// The short word for the hosts list: passed, not passed, not checked.
    fn status(&self, lang: Lang) -> &'static str {
        let s = staff(lang);
        match (&self.checked_at, &self.check_error) {
            (None, _) => s.bmc_unchecked,
            (Some(_), Some(_)) => s.bmc_refused,
            (Some(_), None) => s.bmc_passed,
        }
    }
}

/// Why a BMC form was refused, in words the page translates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BmcRefusal {
    Url,
    Username,
    Password,
    SerialCommand,
    VncPort,
    /// A check of a host that has no BMC.
    NoBmc,
    /// Setting free a host whose BMC has not passed its check.
    NotChecked,
}

impl BmcRefusal {
    pub fn message(self, lang: Lang) -> String {
        let s = staff(lang);
        match self {
            BmcRefusal::Url => s.err_bmc_url,
            BmcRefusal::Username => s.err_bmc_username,
            BmcRefusal::Password => s.err_bmc_password,
            BmcRefusal::SerialCommand => s.err_bmc_serial_command,
            BmcRefusal::VncPort => s.err_bmc_vnc_port,
            BmcRefusal::NoBmc => s.err_no_bmc,
            BmcRefusal::NotChecked => s.err_not_checked,
        }
        .to_owned()
    }

    pub fn status(self) -> u16 {
        match self {
            BmcRefusal::NoBmc | BmcRefusal::NotChecked => 409,
            _ => 422,
        }
    }
}

/// The hosts list's BMC cell: the check's status, linked to the host's
/// BMC row, or that the simulated Fleet drives the host.
pub fn bmc_cell(lang: Lang, host: &str, bmcs: &[BmcRow]) -> AnyView {
    match bmcs.iter().find(|b| b.host == host) {
        Some(bmc) => view! { <a href=format!("#bmc-{host}")>{bmc.status(lang)}</a> }.into_any(),
        None => view! { <span class="empty">{staff(lang).bmc_simulated}</span> }.into_any(),
    }
}

/// What a check found, after its redirect (`?check=passed|refused|failed
/// &host=…`): the translated framing around the BMC's own words, which
/// the page reads from the host's row, never from the address.
#[component]
pub fn CheckNotice(lang: Lang, bmcs: Vec<BmcRow>) -> impl IntoView {
    check_notice(lang, &bmcs)
}

fn check_notice(lang: Lang, bmcs: &[BmcRow]) -> Option<AnyView> {
    let s = staff(lang);
    let (outcome, host) = (query("check")?, query("host")?);
    let bmc = bmcs.iter().find(|b| b.host == host)?;
    let said = bmc.check_error.clone().unwrap_or_default();
    let (class, role, text) = match outcome.as_str() {
        "passed" => ("notice notice-ok", "status", (s.check_passed)(&host)),
        "refused" => (
            "notice notice-error",
            "alert",
            (s.check_refused)(&host, &said),
        ),
        _ => (
            "notice notice-error",
            "alert",
            (s.check_failed)(&host, &said),
        ),
    };
    Some(
        view! { <p class=class role=role data-testid="check-outcome" data-outcome=outcome>{text}</p> }
            .into_any(),
    )
}

/// Every host's BMC with its last check and a button to check it again,
/// then the form that sets a host's BMC.
#[component]
pub fn HostBmcs(lang: Lang, bmcs: Vec<BmcRow>) -> impl IntoView {
    let s = staff(lang);
    let list = if bmcs.is_empty() {
        view! { <p class="empty">{s.bmc_none_yet}</p> }.into_any()
    } else {
        bmc_table(lang, bmcs).into_any()
    };
    view! {
        <h2 id="bmc">{s.bmc_title}</h2>
        <p class="hint">{s.bmc_intro}</p>
        {list}
        <BmcForm lang />
    }
}

fn bmc_table(lang: Lang, bmcs: Vec<BmcRow>) -> impl IntoView {
    let (s, o) = (staff(lang), orders(lang));
    let rows = bmcs.into_iter().map(|b| bmc_row(lang, b)).collect_view();
    view! {
        <div class="table-scroll" role="region" tabindex="0" aria-label=s.bmc_title>
            <table class="bmcs phone-cards">
                <thead>
                    <tr>
                        <th scope="col">{o.col_host}</th>
                        <th scope="col">{s.col_bmc}</th>
                        <th scope="col">{s.col_serial_console}</th>
                        <th scope="col">{s.col_model}</th>
                        <th scope="col">{s.col_serial_number}</th>
                        <th scope="col">{s.col_bios}</th>
                        <th scope="col">{s.col_power}</th>
                        <th scope="col">{s.col_gpus}</th>
                        <th scope="col">{s.col_checked}</th>
                        <th scope="col"><span class="sr-only">{s.check_submit}</span></th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// The pieces of a BMC both staff pages show: the self-signed badge, the
/// power state and GPUs in words, and the last check with its error.
pub(super) struct BmcFacts {
    pub self_signed: Option<AnyView>,
    pub power: Option<String>,
    pub gpus: Option<String>,
    pub checked: AnyView,
}

impl BmcRow {
    pub(super) fn facts(&self, lang: Lang) -> BmcFacts {
        let s = staff(lang);
        BmcFacts {
            self_signed: (!self.tls_verify).then(|| {
                view! { " "<span class="badge badge-warn" data-testid="self-signed">{s.bmc_self_signed}</span> }
                    .into_any()
            }),
            power: self.power_state.as_deref().map(|p| (s.power_state)(p)),
            gpus: self.gpus.clone().map(|g| match g.trim() {
                "" => s.gpus_none.to_owned(),
                _ => g,
            }),
            checked: match (self.checked_at, self.check_error.clone()) {
                (None, _) => view! { <span class="empty">{s.never_checked}</span> }.into_any(),
                (Some(at), error) => view! {
                    {domain::time::format_datetime(at)}
                    {error.map(|e| view! { <p class="notice notice-error" data-testid="bmc-check-error">{e}</p> })}
                }
                .into_any(),
            },
        }
    }
}

fn bmc_row(lang: Lang, b: BmcRow) -> impl IntoView {
    let s = staff(lang);
    let BmcFacts {
        self_signed,
        power,
        gpus,
        checked,
    } = b.facts(lang);
    let host = b.host.clone();
    view! {
        <tr id=format!("bmc-{}", b.host) data-bmc=b.host.clone()>
            <th scope="row"><code>{b.host.clone()}</code></th>
            <td data-label=s.col_bmc>
                <code>{b.url.clone()}</code>
                <br />
                {s.bmc_user}<code>{b.username.clone()}</code>
                {self_signed}
            </td>
            <td data-label=s.col_serial_console>{(s.serial_console)(b.serial_console)}</td>
            <td data-label=s.col_model>{b.model.clone()}</td>
            <td data-label=s.col_serial_number>{b.serial_number.clone()}</td>
            <td data-label=s.col_bios>{b.bios_version.clone()}</td>
            <td data-label=s.col_power>{power}</td>
            <td data-label=s.col_gpus>{gpus}</td>
            <td data-label=s.col_checked>{checked}</td>
            <td>
                <form method="post" action=href(lang, "/staff/hosts/check") class="inline">
                    <CsrfField />
                    <input type="hidden" name="host" value=host />
                    <button type="submit" class="button-muted">{s.check_submit}</button>
                </form>
            </td>
        </tr>
    }
}

/// Sets a host's BMC. A refused form comes back with what was typed,
/// except the password.
#[component]
fn BmcForm(lang: Lang) -> impl IntoView {
    let (s, o) = (staff(lang), orders(lang));
    let feedback = use_feedback();
    let serial = feedback.value("serial");
    let vnc_port = match feedback.value("vnc_port") {
        port if port.is_empty() => "5900".to_owned(),
        port => port,
    };
    view! {
        <form method="post" action=href(lang, "/staff/hosts/bmc") class="bmc-form" autocomplete="off">
            <h3>{s.bmc_set_title}</h3>
            <p class="hint">{s.bmc_set_hint}</p>
            <CsrfField />
            <div class="field">
                <label for="bmc-host">{o.hosts_name}</label>
                <input id="bmc-host" name="host" value=feedback.value("host") required />
            </div>
            <div class="field">
                <label for="bmc-url">{s.bmc_url}</label>
                <input id="bmc-url" name="url" type="url" value=feedback.value("url") required aria-describedby="bmc-url-hint" />
                <p class="hint" id="bmc-url-hint">{s.bmc_url_hint}</p>
            </div>
            <div class="field">
                <label for="bmc-user">{s.bmc_username}</label>
                <input id="bmc-user" name="user" value=feedback.value("user") required maxlength="64" autocomplete="off" />
            </div>
            <div class="field">
                <label for="bmc-password">{s.bmc_password}</label>
                <input id="bmc-password" name="password" type="password" required maxlength="256" autocomplete="off" aria-describedby="bmc-password-hint" />
                <p class="hint" id="bmc-password-hint">{s.bmc_password_hint}</p>
            </div>
            <label class="option" for="bmc-self-signed">
                <input type="checkbox" id="bmc-self-signed" name="self_signed" value="1" checked=feedback.value("self_signed") == "1" />
                " "{s.bmc_accept_self_signed}
            </label>
            <div class="field">
                <label for="bmc-serial">{s.col_serial_console}</label>
                <select id="bmc-serial" name="serial">
                    {SerialConsole::ALL.iter().map(|c| view! {
                        <option value=c.as_str() selected=serial == c.as_str() || (serial.is_empty() && *c == SerialConsole::Ipmi)>{(s.serial_console)(*c)}</option>
                    }).collect_view()}
                </select>
            </div>
            <div class="field">
                <label for="bmc-serial-command">{s.bmc_serial_command}</label>
                <input id="bmc-serial-command" name="serial_command" value=feedback.value("serial_command") maxlength="200" aria-describedby="bmc-serial-command-hint" />
                <p class="hint" id="bmc-serial-command-hint">{s.bmc_serial_command_hint}</p>
            </div>
            <div class="field">
                <label for="bmc-vnc-port">{s.bmc_vnc_port}</label>
                <input id="bmc-vnc-port" name="vnc_port" type="number" min="1" max="65535" value=vnc_port required />
            </div>
            <button type="submit">{s.bmc_set_submit}</button>
        </form>
    }
}
