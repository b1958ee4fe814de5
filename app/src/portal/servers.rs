//! Servers: the organization's list and one server's page with its state,
//! installation progress (updated in place by /portal.js, and correct after
//! a reload), addresses, term, add-ons, keys, recent events, renaming and
//! power actions behind a confirmation.

use domain::Lang;
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::forms::{CsrfField, FormErrorNotice, Notice};
use super::nav::PortalNav;
use super::{from_parts, query, use_feedback};
use crate::context::use_facts;
use crate::i18n::{orders, ui};
use crate::shell::route_lang;
use crate::storefront::href;
use crate::storefront::layout::Page;
use crate::storefront::not_found::NotFound;
use crate::storefront::plans::gpu_text;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ServerRow {
    pub id: String,
    pub name: String,
    pub plan_id: String,
    pub site_code: String,
    pub state: String,
    pub progress: i64,
    pub step: String,
    pub os_image: String,
    pub addons: Vec<String>,
    /// (fingerprint, comment or name)
    pub ssh_keys: Vec<(String, String)>,
    pub ipv4: Option<String>,
    pub ipv6: Option<String>,
    pub has_secret: bool,
    pub term_start: Option<i64>,
    pub renews_at: Option<i64>,
    pub order_id: String,
    pub cancel_at: Option<i64>,
    pub cancelled_at: Option<i64>,
    /// Term ends the server can be cancelled at, earliest first.
    pub cancel_dates: Vec<i64>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ServersView {
    pub servers: Vec<ServerRow>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ServerDetailView {
    pub server: ServerRow,
    pub snapshots: Vec<super::snapshots::SnapshotRow>,
    pub degraded: Option<String>,
    pub windows: Vec<super::maintenance::WindowRow>,
    pub snapshot_quota: usize,
    /// (time, kind, detail), newest first.
    pub events: Vec<(i64, String, String)>,
    /// Present once, right after the customer asked to see it.
    pub root_password: Option<String>,
    /// Readings of a running server; `None` while it installs, or when the
    /// fleet can't be read (`telemetry_error`).
    pub telemetry: Option<super::telemetry::TelemetryView>,
    pub telemetry_error: bool,
    /// This month so far: (availability in millionths, seconds down).
    pub availability: (i64, i64),
    /// Closed months with downtime: (month, availability ppm, credit, credit note).
    pub sla: Vec<(String, i64, domain::Money, Option<String>)>,
}

/// Events whose detail means something to the customer (a name, a
/// reason, a time); the rest carry ids or staff addresses, or nothing.
fn shows_detail(kind: &str) -> bool {
    matches!(
        kind,
        "renamed"
            | "provisioning.moved"
            | "host.fault"
            | "host.degraded"
            | "maintenance.proposed"
            | "maintenance.counter"
            | "maintenance.accepted"
    ) || kind.starts_with("snapshot.")
}

/// Installing or restarting: the page follows the server by itself.
pub fn in_progress(state: &str) -> bool {
    matches!(
        state,
        "pending" | "provisioning" | "rebooting" | "restoring" | "maintenance"
    )
}

/// The state a customer sees: a snapshot restore runs as a restart (the
/// server is down and comes back) but is shown as what it is.
pub fn shown_state(state: &str, step: &str) -> String {
    match (state, step) {
        ("rebooting", "restore") => "restoring".to_owned(),
        ("rebooting", "maintenance") => "maintenance".to_owned(),
        _ => state.to_owned(),
    }
}

fn site_city(lang: Lang, code: &str) -> String {
    use_facts()
        .and_then(|f| f.catalog.site(code).map(|s| s.city.get(lang).to_owned()))
        .unwrap_or_else(|| code.to_owned())
}

#[component]
pub fn ServersPage() -> impl IntoView {
    let Some(lang) = route_lang() else {
        return view! { <NotFound /> }.into_any();
    };
    if from_parts::<super::Denied>().is_some() {
        return view! { <super::forms::DeniedPage lang rest="/servers" /> }.into_any();
    }
    let Some(view) = from_parts::<ServersView>() else {
        return view! { <NotFound /> }.into_any();
    };
    let o = orders(lang);
    let t = ui(lang);
    let facts = use_facts();
    let empty = view.servers.is_empty();
    let rows = view
        .servers
        .into_iter()
        .map(|s| {
            let plan = facts
                .as_ref()
                .and_then(|f| f.catalog.plan(&s.plan_id).map(|p| p.name.clone()))
                .unwrap_or_else(|| s.plan_id.clone());
            view! {
                <tr data-server=s.name.clone() data-state=s.state.clone()>
                    <th scope="row"><a href=href(lang, &format!("/servers/{}", s.id))>{s.name.clone()}</a></th>
                    <td>{plan}</td>
                    <td>{site_city(lang, &s.site_code)}</td>
                    <td>
                        {(o.server_state)(&s.state)}
                        {in_progress(&s.state).then(|| format!(" · {}%", s.progress))}
                        {s.cancel_at.map(|at| view! {
                            <br /><span class="hint" data-testid="cancels-on">{(o.servers_cancels_on)(&domain::time::format_date(at))}</span>
                        })}
                    </td>
                    <td><code>{s.ipv4.clone().unwrap_or_default()}</code></td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <Page lang title=o.servers_title.to_owned() description=o.servers_title.to_owned() rest="/servers".to_owned() noindex=true>
            <section class="section portal-form wide" aria-labelledby="servers-title">
                <PortalNav lang />
                <div class="title-row">
                    <h1 id="servers-title">{o.servers_title}</h1>
                    {(!empty).then(|| view! {
                        <a class="button" href=format!("{}#plans", href(lang, ""))>{o.servers_order_more}</a>
                    })}
                </div>
                {if empty {
                    view! { <p>{o.servers_empty}" "<a href=format!("{}#plans", href(lang, ""))>{o.servers_order_first}</a></p> }.into_any()
                } else {
                    view! {
                        <div class="table-scroll" role="region" tabindex="0" aria-label=o.servers_title>
                            <table class="servers">
                                <thead>
                                    <tr>
                                        <th scope="col">{o.col_name}</th>
                                        <th scope="col">{t.configure_plan}</th>
                                        <th scope="col">{t.configure_site}</th>
                                        <th scope="col">{o.col_state}</th>
                                        <th scope="col">{o.col_address}</th>
                                    </tr>
                                </thead>
                                <tbody>{rows}</tbody>
                            </table>
                        </div>
                    }
                    .into_any()
                }}
            </section>
        </Page>
    }
    .into_any()
}

#[component]
pub fn ServerDetailPage() -> impl IntoView {
    let Some(lang) = route_lang() else {
        return view! { <NotFound /> }.into_any();
    };
    let Some(view) = from_parts::<ServerDetailView>() else {
        return view! { <NotFound /> }.into_any();
    };
    let o = orders(lang);
    let t = ui(lang);
    let s = view.server;
    let facts = use_facts();
    let plan = facts
        .as_ref()
        .and_then(|f| f.catalog.plan(&s.plan_id).cloned());
    let specs = plan.as_ref().map(|p| {
        format!(
            "{} · {} · {} {} · {} GB ECC · {} TB NVMe · {} Gbit/s",
            p.name,
            gpu_text(p),
            p.dedicated_cores,
            t.col_cores,
            p.memory_gb,
            p.nvme_tb,
            p.port_gbit
        )
    });
    let image = domain::OsImage::parse(&s.os_image).map_or("", |i| match i {
        domain::OsImage::Rescue => o.image_rescue,
        other => other.product_name(),
    });
    let addons = if s.addons.is_empty() {
        o.server_none.to_owned()
    } else {
        s.addons
            .iter()
            .map(|id| {
                facts
                    .as_ref()
                    .and_then(|f| f.catalog.addon(id).map(|a| a.name.get(lang).to_owned()))
                    .unwrap_or_else(|| id.clone())
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let keys = if s.ssh_keys.is_empty() {
        view! { <p>{o.server_root_password_note}</p> }.into_any()
    } else {
        let items = s
            .ssh_keys
            .iter()
            .map(|(fp, comment)| view! { <li><code class="fingerprint">{fp.clone()}</code>" "{comment.clone()}</li> })
            .collect_view();
        view! { <ul class="plain">{items}</ul> }.into_any()
    };
    let events = view
        .events
        .iter()
        .map(|(at, kind, detail)| {
            let detail = if shows_detail(kind) {
                detail.clone()
            } else {
                String::new()
            };
            view! {
                <li data-event=kind.clone()>
                    <time datetime=domain::time::format_iso(*at)>{domain::time::format_datetime(*at)}</time>
                    " "{(o.event_label)(kind)}{(!detail.is_empty()).then(|| format!(": {detail}"))}
                </li>
            }
        })
        .collect_view();
    let done = match query("done").as_deref() {
        Some("rename") => Some(o.server_done_rename),
        Some("power") => Some(o.server_done_power),
        Some("snapshot") => Some(crate::i18n::operations(lang).snapshots_taken),
        Some("restore") => Some(crate::i18n::operations(lang).snapshots_restoring),
        Some("delete-snapshot") => Some(crate::i18n::operations(lang).snapshots_deleted),
        Some("maintenance-accept") => Some(crate::i18n::operations(lang).maint_done_accept),
        Some("maintenance-propose") => Some(crate::i18n::operations(lang).maint_done_counter),
        _ => None,
    };
    let live = in_progress(&s.state) && s.cancelled_at.is_none();
    let running = s.state == "running" && s.cancelled_at.is_none();
    let failed = s.state == "failed";
    let base = format!("/servers/{}", s.id);
    let password = view.root_password.clone().map(|pw| {
        view! {
            <div class="notice notice-ok secret" role="status">
                <h2>{o.server_password_title}</h2>
                <p><code data-testid="root-password">{pw}</code></p>
                <p>{o.server_password_once}</p>
            </div>
        }
    });
    let reveal = (running && s.has_secret && view.root_password.is_none()).then(|| {
        view! {
            <form method="post" action=href(lang, &format!("{base}/reveal")) class="inline">
                <CsrfField />
                <button type="submit" class="secondary">{o.server_reveal}</button>
            </form>
        }
    });
    let feedback_name = use_feedback().value("name");
    let name_value = if feedback_name.is_empty() {
        s.name.clone()
    } else {
        feedback_name
    };
    view! {
        <Page lang title=s.name.clone() description=o.servers_title.to_owned() rest=base.clone() noindex=true>
            <section class="section portal-form wide server" aria-labelledby="server-title">
                <PortalNav lang />
                <p><a href=href(lang, "/servers")>{o.server_back}</a></p>
                <h1 id="server-title">{s.name.clone()}</h1>
                <FormErrorNotice lang />
                <Notice text=done />
                {password}
                {failed.then(|| view! { <p class="notice notice-error">{o.server_failed_note}</p> })}
                <div
                    class="live"
                    id="server-live"
                    data-progress-url=live.then(|| href(lang, &format!("{base}/progress")))
                    aria-live="polite"
                >
                    <p class="state">
                        <span class=format!("state-badge state-{}", s.state) data-live="state" data-testid="server-state">{(o.server_state)(&s.state)}</span>
                    </p>
                    {matches!(s.state.as_str(), "pending" | "provisioning" | "restoring").then(|| view! {
                        <div class="progress-line">
                            <label for="progress">{o.server_progress}</label>
                            <progress id="progress" max="100" value=s.progress.to_string() data-live="progress">{format!("{}%", s.progress)}</progress>
                            <span data-live="percent">{format!("{}%", s.progress)}</span>
                            " · "
                            <span data-live="step">{(o.step_label)(&s.step)}</span>
                        </div>
                        <p class="hint">{o.server_live_note}</p>
                    })}
                </div>
                <dl class="facts">
                    <dt>{o.server_specs}</dt><dd>{specs}</dd>
                    <dt>{t.configure_site}</dt><dd>{site_city(lang, &s.site_code)}</dd>
                    <dt>{o.server_image}</dt><dd>{image}</dd>
                    <dt>{o.server_ipv4}</dt><dd><code data-live="ipv4">{s.ipv4.clone().unwrap_or_else(|| o.server_pending_address.to_owned())}</code></dd>
                    <dt>{o.server_ipv6}</dt><dd><code data-live="ipv6">{s.ipv6.clone().unwrap_or_else(|| o.server_pending_address.to_owned())}</code></dd>
                    <dt>{o.server_term_start}</dt>
                    <dd>{s.term_start.map_or_else(|| o.server_term_note.to_owned(), domain::time::format_date)}</dd>
                    <dt>{o.server_renews}</dt>
                    <dd>{s.renews_at.map_or_else(|| "–".to_owned(), domain::time::format_date)}</dd>
                    <dt>{o.server_addons}</dt><dd>{addons}</dd>
                    <dt>{o.order_detail_title}</dt><dd><a href=href(lang, &format!("/orders/{}", s.order_id))>{s.order_id.clone()}</a></dd>
                </dl>
                {view.telemetry.clone().map(|t| view! { <super::telemetry::Telemetry lang view=t /> })}
                {view.telemetry_error.then(|| view! { <p class="notice">{o.telemetry_unavailable}</p> })}
                <super::maintenance::ServerMaintenance lang base=base.clone() degraded=view.degraded.clone() windows=view.windows.clone() />
                <Availability lang availability=view.availability sla=view.sla.clone() />
                <h2>{o.server_keys}</h2>
                {keys}
                {reveal}
                {(!failed).then(|| view! {
                    <h2>{o.server_rename}</h2>
                    <form method="post" action=href(lang, &format!("{base}/rename")) class="choice">
                        <CsrfField />
                        <div class="field">
                            <label for="name">{o.order_name}</label>
                            <input id="name" name="name" value=name_value required maxlength="63" />
                        </div>
                        <button type="submit">{o.server_rename_submit}</button>
                    </form>
                })}
                {running.then(|| {
                    let ops = crate::i18n::operations(lang);
                    view! {
                        <h2>{ops.console_section}</h2>
                        <p class="console-links">
                            <a class="button button-secondary" href=href(lang, &format!("{base}/console/serial"))>{ops.console_open_serial}</a>
                            " "
                            <a class="button button-secondary" href=href(lang, &format!("{base}/console/vnc"))>{ops.console_open_vnc}</a>
                        </p>
                    }
                })}
                {running.then(|| view! {
                    <h2>{o.server_power}</h2>
                    <PowerForm lang base=base.clone() name=s.name.clone() action="reboot" title=o.server_reboot body=o.server_reboot_body />
                    <PowerForm lang base=base.clone() name=s.name.clone() action="power_cycle" title=o.server_cycle body=o.server_cycle_body />
                })}
                {(!failed).then(|| view! {
                    <super::snapshots::Snapshots lang base=base.clone() snapshots=view.snapshots.clone() quota=view.snapshot_quota running />
                })}
                <Cancellation lang server=s.clone() />
                <h2>{o.server_events}</h2>
                <ul class="events">{events}</ul>
            </section>
            <script src="/portal.js" defer></script>
        </Page>
    }
    .into_any()
}

/// A power action needs its box ticked: a confirmation that works without
/// JavaScript and can't be a stray click.
#[component]
fn PowerForm(
    lang: Lang,
    base: String,
    name: String,
    action: &'static str,
    title: &'static str,
    body: &'static str,
) -> impl IntoView {
    let o = orders(lang);
    let id = format!("confirm-{action}");
    let label_for = id.clone();
    view! {
        <form method="post" action=href(lang, &format!("{base}/{action}")) class="power-form">
            <CsrfField />
            <p><strong>{title}</strong>" "{body}</p>
            <label class="option" for=label_for>
                <input type="checkbox" id=id name="confirm" value="yes" required />
                " "{(o.server_confirm_label)(&name)}
            </label>
            <button type="submit" class="secondary">{title}</button>
        </form>
    }
}

/// The SLA as the customer sees it: this month so far, and the credits
/// already worked out, with their computation.
#[component]
fn Availability(
    lang: Lang,
    availability: (i64, i64),
    sla: Vec<(String, i64, domain::Money, Option<String>)>,
) -> impl IntoView {
    let o = orders(lang);
    let (ppm, down) = availability;
    let any = !sla.is_empty();
    let rows = sla
        .into_iter()
        .map(|(month, ppm, credit, note)| {
            let key = month.clone();
            view! {
                <tr data-sla=key>
                    <th scope="row">{month}</th>
                    <td class="num">{domain::sla::format_ppm(ppm)}</td>
                    <td class="num">{format!("{}%", domain::sla::credit_percent(ppm))}</td>
                    <td class="num">{credit.format(lang)}</td>
                    <td>{note.unwrap_or_default()}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section aria-labelledby="availability-title">
            <h2 id="availability-title">{o.sla_title}</h2>
            <p data-testid="availability">{(o.sla_this_month)(&domain::sla::format_ppm(ppm), down / 60)}</p>
            <p class="hint">{o.sla_rule}</p>
            {any.then(|| view! {
            <div class="table-scroll" role="region" tabindex="0" aria-label=o.sla_title>
                <table class="sla">
                    <thead>
                        <tr>
                            <th scope="col">{o.sla_month}</th>
                            <th scope="col" class="num">{o.sla_availability}</th>
                            <th scope="col" class="num">{o.sla_share}</th>
                            <th scope="col" class="num">{o.sla_credit}</th>
                            <th scope="col">{o.sla_note}</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            })}
        </section>
    }
}

/// Scheduling a cancellation (a date, a reason, the name typed, the risk
/// acknowledged), taking it back, or what happened.
#[component]
fn Cancellation(lang: Lang, server: ServerRow) -> impl IntoView {
    let o = orders(lang);
    let base = format!("/servers/{}", server.id);
    if let Some(at) = server.cancelled_at {
        return view! { <p class="notice" data-testid="cancelled">{(o.cancelled_notice)(&domain::time::format_date(at))}</p> }.into_any();
    }
    if let Some(at) = server.cancel_at {
        return view! {
            <section class="danger-zone" aria-labelledby="cancel-title">
                <h2 id="cancel-title">{o.cancel_title}</h2>
                <p class="notice" data-testid="cancel-scheduled">{(o.cancel_scheduled)(&domain::time::format_date(at))}</p>
                <form method="post" action=href(lang, &format!("{base}/revoke"))>
                    <CsrfField />
                    <button type="submit">{o.cancel_revoke}</button>
                </form>
            </section>
        }
        .into_any();
    }
    if server.cancel_dates.is_empty() {
        return ().into_any();
    }
    let dates = server
        .cancel_dates
        .iter()
        .enumerate()
        .map(|(n, at)| {
            let date = domain::time::format_date(*at);
            view! { <option value=at.to_string()>{(o.cancel_date_option)(n, &date)}</option> }
        })
        .collect_view();
    let reasons = domain::order::CANCEL_REASONS
        .iter()
        .map(|r| view! { <option value=*r>{(o.cancel_reason_label)(r)}</option> })
        .collect_view();
    view! {
        <section class="danger-zone" aria-labelledby="cancel-title">
            <h2 id="cancel-title">{o.cancel_title}</h2>
            <p>{o.cancel_warning}</p>
            <form method="post" action=href(lang, &format!("{base}/cancel"))>
                <CsrfField />
                <div class="field">
                    <label for="cancel-at">{o.cancel_date}</label>
                    <select id="cancel-at" name="at">{dates}</select>
                </div>
                <div class="field">
                    <label for="cancel-reason">{o.cancel_reason}</label>
                    <select id="cancel-reason" name="reason">{reasons}</select>
                </div>
                <div class="field">
                    <label for="confirm-name">{(o.cancel_type_name)(&server.name)}</label>
                    <input id="confirm-name" name="confirm_name" required autocomplete="off" />
                </div>
                <label class="option" for="understood">
                    <input type="checkbox" id="understood" name="confirm" value="yes" required />
                    " "{o.cancel_understand}
                </label>
                <button type="submit" class="button-danger">{o.cancel_submit}</button>
            </form>
        </section>
    }
    .into_any()
}
