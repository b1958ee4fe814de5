//! Servers (owners and technical members): the organization's list
//! (`list`) and one server's page with its state, installation progress
//! (updated in place by the `progress` island, and correct after a reload),
//! addresses, term, add-ons, keys, recent events; its progress as JSON for
//! that island, renaming, and showing the root password once. The other
//! actions on a server have files of their own here: `power`,
//! `cancellation`, `snapshots`, `maintenance`, `console`, `root_password`.
//! What an action did is said right under the state line at the top, where
//! its redirect lands.

pub mod console;
pub mod maintenance;
pub mod power;
pub mod reinstall;
pub mod root_password;
pub mod server_action;
pub mod snapshots;
pub mod tabs;
pub mod telemetry;

mod availability;
pub mod cancellation;
mod list;
pub mod overdue;

use crate::http::once;
use crate::http::page::{lang_of, page, redirect, Member, PageError, PageResult, SameOrigin};
use crate::http::routes::{Route, TECHNICAL};
use crate::pages::servers::maintenance::WindowRow;
use crate::pages::servers::overdue::OverdueView;
use crate::pages::servers::server_action::{Confirm, OnServer};
use crate::pages::servers::tabs::Tab;
use crate::pages::servers::telemetry::TelemetryView;
use crate::startup::AppState;
use app::context::use_facts;
use app::i18n::{orders, ui};
use app::portal::forms::{CopyButton, CsrfField, FieldState, FormErrorNotice};
use app::portal::nav::PortalNav;
use app::portal::order::SERVER_NAME_PATTERN;
use app::portal::FormError;
use app::portal::{query, use_feedback};
use app::storefront::href;
use app::storefront::layout::Page;
use app::storefront::plans::gpu_text;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Json;
use backend::organizations::Membership;
use backend::servers::billing_state;
use backend::servers::{self, Server, ServerError, ServerState};
use domain::server::{EventKind, ShownState, Step};
use domain::ServerId;
use domain::{Lang, OrderId};
use http::request::Parts;
use http::StatusCode;
use leptos::prelude::*;
pub use list::ServersPage;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use tower_sessions::Session;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ServerRow {
    pub id: domain::ServerId,
    pub name: String,
    pub plan_id: String,
    pub site_code: String,
    pub state: domain::server::ShownState,
    pub progress: i64,
    pub step: Step,
    pub os_image: String,
    pub addons: Vec<String>,
    /// (fingerprint, comment or name)
    pub ssh_keys: Vec<(String, String)>,
    /// The server's own SSH host keys as (type, `SHA256:` fingerprint),
    /// to check on the first login.
    pub host_keys: Vec<(String, String)>,
    pub ipv4: Option<String>,
    pub ipv6: Option<String>,
    pub has_secret: bool,
    pub term_start: Option<i64>,
    pub renews_at: Option<i64>,
    pub order_id: OrderId,
    pub cancel_at: Option<i64>,
    pub cancelled_at: Option<i64>,
    /// Term ends the server can be cancelled at, earliest first.
    pub cancel_dates: Vec<i64>,
    /// The hostname the installed system was given (`None` until then).
    pub hostname: Option<String>,
    /// An overdue invoice that will suspend it (or did).
    pub overdue: Option<overdue::OverdueView>,
}

impl ServerRow {
    /// A server as the list and its page show it, with the overdue invoice
    /// that will suspend it (if any).
    pub fn new(s: backend::servers::Server, overdue: Option<overdue::OverdueView>) -> ServerRow {
        let ssh_keys = s
            .ssh_keys
            .iter()
            .filter_map(|k| backend::ssh_keys::parse(k).ok())
            .map(|k| (k.fingerprint, k.comment))
            .collect();
        ServerRow {
            cancel_dates: s.cancellable_term_ends(),
            state: s.shown_state(),
            host_keys: backend::ssh_keys::host_key_fingerprints(&s.host_keys),
            id: s.id,
            name: s.name,
            plan_id: s.plan_id.to_string(),
            site_code: s.site_code.to_string(),
            progress: s.progress,
            step: s.step,
            os_image: s.os_image,
            addons: s.addons,
            ssh_keys,
            ipv4: s.ipv4,
            ipv6: s.ipv6,
            has_secret: s.has_secret,
            term_start: s.term_start,
            renews_at: s.renews_at,
            order_id: s.order_id,
            cancel_at: s.cancel_at,
            cancelled_at: s.cancelled_at,
            hostname: s.hostname,
            overdue,
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ServersView {
    pub servers: Vec<ServerRow>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ServerDetailView {
    /// The tab shown (each has its own address).
    pub tab: Tab,
    pub server: ServerRow,
    pub snapshots: Vec<crate::pages::servers::snapshots::SnapshotRow>,
    pub degraded: Option<String>,
    pub windows: Vec<crate::pages::servers::maintenance::WindowRow>,
    pub snapshot_quota: usize,
    /// Whether the Fleet here takes snapshots and sets root passwords
    /// (real hosts need the operator's host agent for both).
    pub snapshots_offered: bool,
    pub root_reset_offered: bool,
    /// (time, kind, detail), newest first.
    pub events: Vec<(i64, EventKind, String)>,
    /// Present once, right after the customer asked to see it.
    pub root_password: Option<String>,
    /// Readings of a running server; `None` while it installs, or when the
    /// fleet can't be read (`telemetry_error`).
    pub telemetry: Option<crate::pages::servers::telemetry::TelemetryView>,
    pub telemetry_error: bool,
    /// This month so far: (availability in millionths, seconds down).
    pub availability: (i64, i64),
    /// Closed months with downtime: (month, availability ppm, credit, credit note).
    pub sla: Vec<(String, i64, domain::Money, Option<String>)>,
    /// The member's saved SSH keys, for a reinstall (power tab only).
    pub saved_keys: Vec<reinstall::SavedKey>,
}

impl ServerDetailView {
    /// Running and not cancelled: what consoles, power and snapshots need.
    fn running(&self) -> bool {
        self.server.state == ShownState::Running && self.server.cancelled_at.is_none()
    }

    /// Powered off by the customer (and not ended): it can be powered on.
    fn off(&self) -> bool {
        self.server.state == ShownState::Off && self.server.cancelled_at.is_none()
    }
}

/// Events whose detail means something to the customer (a name, a
/// reason, a time); the rest carry ids or staff addresses, or nothing. A
/// host fault's detail quotes the BMC, whose answers are untrusted input
/// and internal: it is in the host's history for staff, and the customer
/// sees the translated event alone.
fn shows_detail(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::Renamed
            | EventKind::ProvisioningMoved
            | EventKind::HostDegraded
            | EventKind::MaintenanceProposed
            | EventKind::MaintenanceCounter
            | EventKind::MaintenanceAccepted
            | EventKind::SnapshotRequested
            | EventKind::SnapshotReady
            | EventKind::SnapshotFailed
            | EventKind::SnapshotRestoreStarted
            | EventKind::SnapshotRestoreDone
            | EventKind::SnapshotRestoreFailed
            | EventKind::SnapshotDeleted
    )
}

fn site_city(lang: Lang, code: &str) -> String {
    use_facts()
        .and_then(|f| f.catalog.site(code).map(|s| s.city.get(lang).to_owned()))
        .unwrap_or_else(|| code.to_owned())
}

#[component]
pub fn ServerDetailPage(lang: Lang, view: ServerDetailView) -> impl IntoView {
    let o = orders(lang);
    let s = view.server.clone();
    let tab = view.tab;
    let base = format!("/servers/{}", s.id);
    // What an action did, said under the state line of the tab its
    // redirect opens (read from the server as it is now where it matters).
    let done_query = query("done").unwrap_or_default();
    let ops = app::i18n::operations(lang);
    let done = match done_query.as_str() {
        "rename" => Some(o.server_done_rename.to_owned()),
        "power" => Some(o.server_done_power.to_owned()),
        "reinstall" if s.state == ShownState::Provisioning => {
            Some(o.server_done_reinstall.to_owned())
        }
        "restore" if s.state == ShownState::Restoring => Some(o.server_done_restore.to_owned()),
        "snapshot" => Some(ops.snapshots_taken.to_owned()),
        "delete-snapshot" => Some(ops.snapshots_deleted.to_owned()),
        "maintenance-accept" => Some(ops.maint_done_accept.to_owned()),
        "maintenance-propose" => Some(ops.maint_done_counter.to_owned()),
        other => cancellation::outcome(lang, other, &s),
    };
    let live = s.state.in_progress() && s.cancelled_at.is_none();
    let failed = s.state == ShownState::Failed;
    let password = view
        .root_password
        .clone()
        .map(|password| view! { <crate::pages::servers::root_password::RevealedPassword lang password /> });
    let title = match tab {
        Tab::Overview => s.name.clone(),
        other => format!("{} · {}", s.name, other.label(lang)),
    };
    let panel = match tab {
        Tab::Overview => view! { <Overview lang view=view.clone() /> }.into_any(),
        Tab::Graphs => view! { <Graphs lang view=view.clone() /> }.into_any(),
        Tab::Snapshots if failed => view! { <p>{o.tab_needs_running}</p> }.into_any(),
        Tab::Snapshots => view! {
            <crate::pages::servers::snapshots::Snapshots lang base=base.clone() snapshots=view.snapshots.clone() quota=view.snapshot_quota running=view.running() && view.snapshots_offered offered=view.snapshots_offered />
        }
        .into_any(),
        Tab::Console => view! { <ConsoleLinks lang base=base.clone() running=view.running() /> }.into_any(),
        Tab::Power => view! { <Power lang base=base.clone() view=view.clone() /> }.into_any(),
        Tab::Cancellation => view! { <cancellation::Cancellation lang server=s.clone() /> }.into_any(),
    };
    view! {
        <Page lang title description=o.servers_title.to_owned() rest=format!("{base}{}", tab.path()) noindex=true>
            <section class="section portal-form wide server" aria-labelledby="server-title">
                <PortalNav lang />
                <p><a href=href(lang, "/servers")>{o.server_back}</a></p>
                <h1 id="server-title">{s.name.clone()}</h1>
                <FormErrorNotice lang />
                {password}
                {failed.then(|| view! { <p class="notice notice-error">{o.server_failed_note}</p> })}
                {s.cancelled_at.map(|at| view! { <p class="notice" data-testid="cancelled">{(o.cancelled_notice)(&domain::time::format_date(at))}</p> })}
                {if live {
                    let url = href(lang, &format!("{base}/progress"));
                    let first = app::portal::progress::ServerHtml(view! { <LiveState lang server=s.clone() /> }.to_html());
                    view! {
                        <app::portal::progress::ServerProgress url state=s.state.as_str().to_owned() first />
                        <script type="module" src="/islands.js"></script>
                    }
                    .into_any()
                } else {
                    view! {
                        <div class="live" id="server-live" aria-live="polite">
                            <LiveState lang server=s.clone() />
                        </div>
                    }
                    .into_any()
                }}
                {done.map(|text| view! { <p class="notice notice-ok" role="status" data-testid="notice">{text}</p> })}
                {s.overdue.clone().map(|overdue| view! { <overdue::OverdueNotice lang overdue /> })}
                <tabs::TabNav lang base=base.clone() open=tab />
                <div class="tab-panel" data-testid="tab-panel">{panel}</div>
            </section>
            <script src="/copy.js" defer></script>
        </Page>
    }
    .into_any()
}

/// What a server is and how to reach it: specs, place, addresses and
/// hostname (each with a copy button), term, keys and host keys, the root
/// password, maintenance, renaming and what happened to it lately.
#[component]
fn Overview(lang: Lang, view: ServerDetailView) -> impl IntoView {
    let o = orders(lang);
    let t = ui(lang);
    let s = view.server.clone();
    let facts = use_facts();
    let plan = facts
        .as_ref()
        .and_then(|f| f.catalog.plan(&s.plan_id).cloned());
    let specs = plan.as_ref().map(|p| {
        format!(
            "{} · {} · {} · {} GB ECC · {} TB NVMe · {} Gbit/s",
            p.name,
            gpu_text(p),
            (t.cores)(p.dedicated_cores),
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
    let host_keys = (!s.host_keys.is_empty()).then(|| {
        let items = s
            .host_keys
            .iter()
            .enumerate()
            .map(|(n, (kind, fp))| {
                let id = format!("host-key-{n}");
                view! {
                    <li class="copyable">
                        {kind.clone()}" "<code class="fingerprint" id=id.clone() data-testid="host-key">{fp.clone()}</code>
                        " "<CopyButton lang target=id what=format!("{}: {kind}", o.server_host_keys) />
                    </li>
                }
            })
            .collect_view();
        view! {
            <h2>{o.server_host_keys}</h2>
            <p class="hint">{o.server_host_keys_hint}</p>
            <ul class="plain">{items}</ul>
        }
    });
    let events = view
        .events
        .iter()
        .map(|(at, kind, detail)| {
            let detail = if shows_detail(*kind) {
                detail.clone()
            } else {
                String::new()
            };
            view! {
                <li data-event=kind.as_str()>
                    <time datetime=domain::time::format_iso(*at)>{domain::time::format_datetime(*at)}</time>
                    " "{(o.event_label)(*kind)}{(!detail.is_empty()).then(|| format!(": {detail}"))}
                </li>
            }
        })
        .collect_view();
    let failed = s.state == ShownState::Failed;
    let base = format!("/servers/{}", s.id);
    let reveal = view! {
        <crate::pages::servers::root_password::RootPasswordSection lang server=s.clone() events=view.events.clone() revealed=view.root_password.is_some() reset_offered=view.root_reset_offered />
    };
    let feedback_name = use_feedback().value("name");
    let name_value = if feedback_name.is_empty() {
        s.name.clone()
    } else {
        feedback_name
    };
    // An address, copyable once it is known (the island fills it in while
    // the server installs; the page reloads when it is done).
    let address = |live: &'static str, label: &'static str, value: Option<String>| {
        let known = value.is_some();
        view! {
            <dt>{label}</dt>
            <dd class="copyable">
                <code id=live data-live=live>{value.unwrap_or_else(|| o.server_pending_address.to_owned())}</code>
                {known.then(|| view! { " "<CopyButton lang target=live what=label /> })}
            </dd>
        }
    };
    view! {
        <dl class="facts">
            <dt>{o.server_specs}</dt><dd>{specs}</dd>
            <dt>{t.configure_site}</dt><dd>{site_city(lang, &s.site_code)}</dd>
            <dt>{o.server_image}</dt><dd>{image}</dd>
            {s.hostname.clone().map(|hostname| view! {
                <dt>{o.server_hostname}</dt>
                <dd class="copyable">
                    <code id="hostname" data-testid="hostname">{hostname}</code>
                    " "<CopyButton lang target="hostname" what=o.server_hostname />
                    <span class="hint">{o.server_hostname_hint}</span>
                </dd>
            })}
            {address("ipv4", o.server_ipv4, s.ipv4.clone())}
            {address("ipv6", o.server_ipv6, s.ipv6.clone())}
            <dt>{o.server_term_start}</dt>
            <dd>{s.term_start.map_or_else(|| o.server_term_note.to_owned(), domain::time::format_date)}</dd>
            {match (s.cancel_at, s.cancelled_at) {
                (Some(at), None) => view! {
                    <dt>{o.server_ends}</dt>
                    <dd data-testid="term-end">{domain::time::format_date(at)}</dd>
                }.into_any(),
                _ => view! {
                    <dt>{o.server_renews}</dt>
                    <dd data-testid="term-end">{s.renews_at.map_or_else(|| "–".to_owned(), domain::time::format_date)}</dd>
                }.into_any(),
            }}
            <dt>{o.server_addons}</dt><dd>{addons}</dd>
            <dt>{o.order_detail_title}</dt><dd><a href=href(lang, &format!("/orders/{}", s.order_id))>{s.order_id.to_string()}</a></dd>
        </dl>
        <crate::pages::servers::maintenance::ServerMaintenance lang base=base.clone() degraded=view.degraded.clone() windows=view.windows.clone() />
        <h2>{o.server_keys}</h2>
        {keys}
        {host_keys}
        {reveal}
        {(!failed).then(|| {
            let name_field = FieldState::of("name", "name", true);
            view! {
            <h2>{o.server_rename}</h2>
            <form method="post" action=href(lang, &format!("{base}/rename")) class="choice">
                <CsrfField />
                <div class="field">
                    <label for="name">{o.order_name}</label>
                    <input id="name" name="name" value=name_value required maxlength="63" pattern=SERVER_NAME_PATTERN autocomplete="off" aria-describedby=name_field.described_by.clone() aria-invalid=name_field.invalid autofocus=name_field.autofocus />
                    {name_field.message(lang)}
                    <p class="hint" id="name-hint">{o.server_rename_hint}</p>
                </div>
                <button type="submit">{o.server_rename_submit}</button>
            </form>
            }
        })}
        <h2>{o.server_events}</h2>
        <ul class="events">{events}</ul>
    }
}

/// The last 24 hours' readings and this month's availability.
#[component]
fn Graphs(lang: Lang, view: ServerDetailView) -> impl IntoView {
    let o = orders(lang);
    let nothing_yet = view.telemetry.is_none() && !view.telemetry_error;
    view! {
        {view.telemetry.clone().map(|t| view! { <crate::pages::servers::telemetry::Telemetry lang view=t /> })}
        {view.telemetry_error.then(|| view! { <p class="notice">{o.telemetry_unavailable}</p> })}
        {nothing_yet.then(|| view! { <p>{o.tab_needs_running}</p> })}
        <availability::Availability lang availability=view.availability sla=view.sla.clone() />
    }
}

/// The serial and graphical consoles, opened on pages of their own.
#[component]
fn ConsoleLinks(lang: Lang, base: String, running: bool) -> impl IntoView {
    let o = orders(lang);
    let ops = app::i18n::operations(lang);
    if !running {
        return view! { <p>{o.tab_needs_running}</p> }.into_any();
    }
    view! {
        <h2>{ops.console_section}</h2>
        <p class="console-links">
            <a class="button button-secondary" href=href(lang, &format!("{base}/console/serial"))>{ops.console_open_serial}</a>
            " "
            <a class="button button-secondary" href=href(lang, &format!("{base}/console/vnc"))>{ops.console_open_vnc}</a>
        </p>
    }
    .into_any()
}

/// Reboot and power cycle, each confirmed.
#[component]
fn Power(lang: Lang, base: String, view: ServerDetailView) -> impl IntoView {
    let o = orders(lang);
    let name = view.server.name.clone();
    let reinstall = view! {
        <reinstall::ReinstallForm lang base=base.clone() name=name.clone() image=view.server.os_image.clone() keys=view.saved_keys.clone() />
    };
    if view.off() {
        return view! {
            <h2>{o.server_power}</h2>
            <p>{o.server_off_note}</p>
            <PowerForm lang base=base.clone() name=name.clone() action="power_on" title=o.server_power_on body=o.server_power_on_body />
            {reinstall}
        }
        .into_any();
    }
    if !view.running() {
        return view! { <p>{o.tab_needs_running}</p> }.into_any();
    }
    view! {
        <h2>{o.server_power}</h2>
        <PowerForm lang base=base.clone() name=name.clone() action="reboot" title=o.server_reboot body=o.server_reboot_body />
        <PowerForm lang base=base.clone() name=name.clone() action="power_cycle" title=o.server_cycle body=o.server_cycle_body />
        <PowerForm lang base=base.clone() name=name.clone() action="power_off" title=o.server_power_off body=o.server_power_off_body />
        {reinstall}
    }
    .into_any()
}

/// The state line and, while it installs or restores, the progress bar:
/// the `server-live` block's content, which the progress island updates.
#[component]
fn LiveState(lang: Lang, server: ServerRow) -> impl IntoView {
    let o = orders(lang);
    let s = server;
    view! {
        <p class="state">
            <span class=format!("state-badge state-{}", s.state) data-live="state" data-testid="server-state">{(o.server_state)(s.state)}</span>
            {s.cancel_at.filter(|_| s.cancelled_at.is_none()).map(|at| view! {
                " "<span class="state-term" data-testid="server-ends">{(o.server_stops_on)(&domain::time::format_date(at))}</span>
            })}
        </p>
        {matches!(s.state, ShownState::Pending | ShownState::Provisioning | ShownState::Restoring).then(|| view! {
            <div class="progress-line">
                <label for="progress">{o.server_progress}</label>
                <progress id="progress" max="100" value=s.progress.to_string() data-live="progress">{format!("{}%", s.progress)}</progress>
                <span data-live="percent">{format!("{}%", s.progress)}</span>
                " · "
                <span data-live="step">{(o.step_label)(s.step)}</span>
            </div>
            <p class="hint">{o.server_live_note}</p>
        })}
    }
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
        <form method="post" action=href(lang, &format!("{base}/power/{action}")) class="power-form">
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

app::page_view!(ServerDetailView => ServerDetailPage(view));

pub fn routes() -> Vec<Route> {
    vec![
        Route::get("/{lang}/servers", TECHNICAL, list),
        Route::get("/{lang}/servers/{id}", TECHNICAL, show),
        tab_route("/{lang}/servers/{id}/graphs", Tab::Graphs),
        tab_route("/{lang}/servers/{id}/snapshots", Tab::Snapshots),
        tab_route("/{lang}/servers/{id}/console", Tab::Console),
        tab_route("/{lang}/servers/{id}/power", Tab::Power),
        tab_route("/{lang}/servers/{id}/cancellation", Tab::Cancellation),
        Route::get("/{lang}/servers/{id}/progress", TECHNICAL, progress),
        Route::post("/{lang}/servers/{id}/rename", TECHNICAL, rename),
        Route::get("/{lang}/servers/{id}/reveal", TECHNICAL, reveal_page),
        Route::post("/{lang}/servers/{id}/reveal", TECHNICAL, reveal),
    ]
}

/// A tab of the server page other than the overview (which also shows a
/// root password just taken: `show`).
fn tab_route(path: &'static str, tab: Tab) -> Route {
    Route::get(
        path,
        TECHNICAL,
        move |State(state): State<Arc<AppState>>,
              m: Member,
              Path((_, id)): Path<(String, ServerId)>,
              parts: Parts| async move { detail(&state, parts, &m.0, &id, tab, None).await },
    )
}

impl From<ServerError> for PageError {
    fn from(error: ServerError) -> Self {
        match error {
            ServerError::NotFound => PageError::NotFound,
            ServerError::InvalidName => PageError::from(FormError::ServerName),
            ServerError::Busy(_) => PageError::from(FormError::Busy),
            ServerError::Db(error) => PageError::Unavailable(error),
        }
    }
}

async fn list(State(state): State<Arc<AppState>>, m: Member, parts: Parts) -> PageResult {
    let org = &m.0.organization_id;
    let list = servers::list(&state.db, org).await?;
    let (now, grace) = (state.clock.now(), state.seller.grace_days);
    let mut overdue = billing_state::overdue(&state.db, org, None, now, grace).await?;
    let view = ServersView {
        servers: list
            .into_iter()
            .map(|s| {
                let found = overdue.iter().position(|o| o.server_id == s.id);
                let o = found.map(|at| OverdueView::new(overdue.swap_remove(at), m.0.role.money()));
                ServerRow::new(s, o)
            })
            .collect(),
    };
    page(&state, parts, view).await
}

/// A tab of the server page, with the root password when it was just
/// taken.
async fn detail(
    state: &AppState,
    parts: Parts,
    member: &Membership,
    id: &ServerId,
    tab: Tab,
    root_password: Option<String>,
) -> PageResult {
    let (db, clock, grace) = (&state.db, &state.clock, state.seller.grace_days);
    let found = servers::overview::overview(db, clock, &member.organization_id, id, grace).await?;
    let o = found.ok_or(PageError::NotFound)?;
    let overdue = o.overdue.map(|o| OverdueView::new(o, member.role.money()));
    // Only the graphs tab asks the Fleet for readings.
    let (telemetry, telemetry_error) = match tab {
        Tab::Graphs => match telemetry(state, &o.server).await {
            Ok(t) => (t, false),
            Err(error) => {
                tracing::warn!(error = %error, server = %o.server.id, "reading telemetry failed");
                (None, true)
            }
        },
        _ => (None, false),
    };
    let saved_keys = match tab {
        Tab::Power => backend::ssh_keys::list(&state.db, &member.user_id)
            .await?
            .into_iter()
            .map(|k| reinstall::SavedKey {
                id: k.id,
                name: k.name,
                fingerprint: k.fingerprint,
            })
            .collect(),
        _ => Vec::new(),
    };
    let view = ServerDetailView {
        saved_keys,
        tab,
        degraded: o.degraded,
        windows: o.windows.into_iter().map(WindowRow::from).collect(),
        snapshots: o
            .snapshots
            .into_iter()
            .map(|s| crate::pages::servers::snapshots::SnapshotRow {
                id: s.id,
                name: s.name,
                state: s.state,
                size_bytes: s.size_bytes,
                created_at: s.created_at,
            })
            .collect(),
        snapshot_quota: backend::servers::snapshots::QUOTA,
        snapshots_offered: state.fleet.offers().snapshots,
        root_reset_offered: state.fleet.offers().root_password_reset,
        availability: (o.availability.ppm, o.availability.down_secs),
        sla: o.sla,
        server: ServerRow::new(o.server, overdue),
        events: o
            .events
            .into_iter()
            .map(|e| (e.at, e.kind, e.detail))
            .collect(),
        root_password,
        telemetry,
        telemetry_error,
    };
    page(state, parts, view).await
}

/// The last 24 hours of a running server, every 15 minutes.
async fn telemetry(state: &AppState, server: &Server) -> anyhow::Result<Option<TelemetryView>> {
    let (Some(host), true) = (&server.host_name, server.state == ServerState::Running) else {
        return Ok(None);
    };
    let cards = state
        .facts
        .current()
        .await
        .ok()
        .and_then(|v| v.facts.catalog.plan(&server.plan_id).map(|p| p.gpu_count))
        .unwrap_or(1);
    let to = state.clock.now();
    // Only since delivery: nothing from before the rental (issue 17).
    let t = backend::servers::telemetry::since_delivery(
        &state.db,
        state.fleet.as_ref(),
        server,
        host,
        cards,
        to,
        900,
    )
    .await?;
    let per_card = |pick: &dyn Fn(&backend::fleet::Sample, usize) -> i64| -> Vec<Vec<(i64, i64)>> {
        (0..cards as usize)
            .map(|card| t.samples.iter().map(|s| (s.at, pick(s, card))).collect())
            .collect()
    };
    Ok(Some(TelemetryView {
        from: to - backend::servers::telemetry::WINDOW_SECS,
        to,
        temps: per_card(&|s, c| s.gpu_temp_c.get(c).copied().unwrap_or(0)),
        clocks: per_card(&|s, c| s.sm_clock_mhz.get(c).copied().unwrap_or(0)),
        ecc: t.ecc,
        traffic_bytes: t.traffic_bytes,
        fair_use_bytes: backend::fleet::FAIR_USE_BYTES,
    }))
}

async fn show(
    State(state): State<Arc<AppState>>,
    m: Member,
    Path((_, id)): Path<(String, ServerId)>,
    session: Session,
    parts: Parts,
) -> PageResult {
    let password: Option<String> =
        once::take(&session, &state.sealer, &root_password_key(&id)).await;
    let shown = password.is_some();
    let response = detail(&state, parts, &m.0, &id, Tab::Overview, password).await?;
    Ok(once::answer(response, shown))
}

/// Where a revealed root password waits for the server's page (`once`).
fn root_password_key(id: &ServerId) -> String {
    format!("root-password.{id}")
}

/// What the page's progress island (`app/src/portal/progress.rs`) reads
/// every two seconds while a server installs or restarts: its state and
/// progress, already in the page's language. A script reads it, so
/// failures are bare statuses, not pages.
async fn progress(
    State(state): State<Arc<AppState>>,
    m: Member,
    Path((_, id)): Path<(String, ServerId)>,
    parts: Parts,
) -> Response {
    let o = app::i18n::orders(lang_of(&parts));
    let s = match servers::get(&state.db, &m.0.organization_id, &id).await {
        Ok(Some(s)) => s,
        Ok(None) => return StatusCode::NOT_FOUND.into_response(),
        Err(error) => {
            tracing::error!(error = %format!("{error:#}"), "reading progress failed");
            return StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
    };
    let shown = s.shown_state();
    Json(serde_json::json!({
        "state_label": (o.server_state)(shown),
        "state": shown,
        "progress": s.progress,
        "step_label": (o.step_label)(s.step),
        "ipv4": s.ipv4,
        "ipv6": s.ipv6,
        "done": !shown.in_progress(),
    }))
    .into_response()
}

#[derive(Deserialize)]
struct Rename {
    #[serde(default)]
    name: String,
}

async fn rename(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    SameOrigin(form): SameOrigin<Rename>,
) -> PageResult {
    servers::rename(&state.db, &state.clock, &on.actor(), &on.id, &form.name)
        .await
        .map_err(|error| PageError::from(error).keeping(&[("name", &form.name)]))?;
    on.done(Tab::Overview, "rename")
}

/// Shows the root password once: it is gone from the database afterwards
/// and waits, sealed in the session, for the one server page the redirect
/// opens; a reload of that page shows it no more.
async fn reveal(
    State(state): State<Arc<AppState>>,
    on: OnServer,
    session: Session,
    SameOrigin(_): SameOrigin<Confirm>,
) -> PageResult {
    exists(&state, &on).await?;
    let (db, clock, sealer) = (&state.db, &state.clock, &state.sealer);
    let password = servers::take_root_password(db, clock, sealer, &on.actor(), &on.id).await?;
    if let Some(password) = password {
        once::stash(&session, sealer, &root_password_key(&on.id), &password).await?;
    }
    Ok(to_root_password(&on))
}

/// The server's page at its root-password section.
fn to_root_password(on: &OnServer) -> Response {
    redirect(
        on.lang,
        &format!("/servers/{}#root-password-section", on.id),
    )
}

/// Another organization's server, or none, is not found, as everywhere.
async fn exists(state: &AppState, on: &OnServer) -> Result<(), PageError> {
    servers::get(&state.db, on.organization_id(), &on.id)
        .await?
        .ok_or(PageError::NotFound)?;
    Ok(())
}

/// The reveal's address opened as a page (a bookmark, a reload of an old
/// tab): the server's page, where the button is.
async fn reveal_page(State(state): State<Arc<AppState>>, on: OnServer) -> PageResult {
    exists(&state, &on).await?;
    Ok(to_root_password(&on))
}
