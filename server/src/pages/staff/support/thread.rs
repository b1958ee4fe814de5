//! One request's thread for staff: its facts and first-response time, the
//! scaling-out plan if any, the messages oldest first (internal notes and
//! system messages marked), the reply, note, assign and close forms, and
//! beside it the organization's servers, plans and open invoices.

use crate::pages::staff::support::{
    first_response_text, server_text, thread_rest, Lines, MessageRow, OpenInvoiceRow, OrgServerRow,
    ScalingRow, ThreadView,
};
use crate::pages::staff::StaffNav;
use app::i18n::{orders, staff_support};
use app::portal::forms::{CsrfField, FormErrorNotice, Notice};
use app::portal::{query, use_feedback};
use app::storefront::href;
use app::storefront::layout::Page;
use domain::support::{AuthorKind, State};
use domain::Lang;
use leptos::prelude::*;

#[component]
pub fn StaffSupportThreadPage(lang: Lang, view: ThreadView) -> impl IntoView {
    let s = staff_support(lang);
    let r = view.request.clone();
    let title = (s.thread_title)(&r.reference);
    let done = query("done").and_then(|d| match d.as_str() {
        "reply" => Some(s.done_reply),
        "note" => Some(s.done_note),
        "assign" => Some(s.done_assign),
        "close" => Some(s.done_close),
        _ => None,
    });
    let assignee = r
        .assignee
        .clone()
        .unwrap_or_else(|| s.unassigned.to_owned());
    let closed = view.closed.clone().map(|(by, at)| {
        view! {
            <dt>{s.closed_by}</dt>
            <dd data-testid="closed-by">{by}" · "{domain::time::format_datetime(at)}</dd>
        }
    });
    let messages = view
        .messages
        .iter()
        .cloned()
        .map(|m| message(lang, m))
        .collect_view();
    view! {
        <Page lang title=title.clone() description=s.queue_title.to_owned() rest=thread_rest(&r.id) noindex=true>
            <section class="section portal-form wide" aria-labelledby="support-thread-title" data-request=r.id.clone()>
                <StaffNav lang />
                <p><a href=href(lang, "/staff/support")>{s.back}</a></p>
                <h1 id="support-thread-title"><code>{r.reference.clone()}</code>" "<span dir="auto">{r.subject.clone()}</span></h1>
                <FormErrorNotice lang />
                <Notice text=done />
                <div class="support-thread">
                    <div class="support-main">
                        <dl class="facts">
                            <dt>{s.col_organization}</dt>
                            <dd data-testid="organization">{r.organization.clone()}</dd>
                            <dt>{s.opened_by}</dt>
                            <dd>{view.opened_by.clone()}</dd>
                            <dt>{s.col_category}</dt>
                            <dd data-testid="category">{(s.category)(r.category)}</dd>
                            <dt>{s.col_state}</dt>
                            <dd data-testid="state" data-state=r.state.as_str()>{(s.state)(r.state)}</dd>
                            <dt>{s.col_server}</dt>
                            <dd>{server_text(lang, &r)}</dd>
                            <dt>{s.col_opened}</dt>
                            <dd><time datetime=domain::time::format_iso(r.opened_at)>{domain::time::format_datetime(r.opened_at)}</time></dd>
                            <dt>{s.col_first_response}</dt>
                            <dd data-testid="first-response">{first_response_text(lang, &r)}</dd>
                            <dt>{s.col_assignee}</dt>
                            <dd data-testid="assignee">{assignee}</dd>
                            {closed}
                        </dl>
                        {view.scaling.clone().map(|plan| scaling(lang, plan))}
                        <h2 id="support-messages">{s.messages_title}</h2>
                        <div class="support-messages">{messages}</div>
                        <Forms lang view=view.clone() />
                    </div>
                    <Organization lang servers=view.servers.clone() invoices=view.invoices.clone() />
                </div>
            </section>
        </Page>
    }
    .into_any()
}

fn scaling(lang: Lang, plan: ScalingRow) -> impl IntoView {
    let s = staff_support(lang);
    view! {
        <h2>{s.scaling_title}</h2>
        <dl class="facts" data-testid="scaling-plan">
            <dt>{s.scaling_cards}</dt>
            <dd dir="auto">{plan.cards}</dd>
            <dt>{s.scaling_workload}</dt>
            <dd dir="auto">{plan.workload}</dd>
            <dt>{s.scaling_model_size}</dt>
            <dd dir="auto">{plan.model_size}</dd>
            <dt>{s.scaling_timeline}</dt>
            <dd dir="auto">{plan.timeline}</dd>
        </dl>
    }
}

/// One message: who and when, a mark on internal notes and system
/// messages, the text with its line breaks.
fn message(lang: Lang, m: MessageRow) -> impl IntoView {
    let s = staff_support(lang);
    let kind = match m.kind {
        AuthorKind::Customer => s.author_customer,
        AuthorKind::Staff => s.author_staff,
        AuthorKind::System => s.system_badge,
    };
    let class = if m.internal {
        "card support-message support-internal".to_owned()
    } else {
        format!("card support-message support-{}", m.kind)
    };
    let badge = if m.internal {
        Some(
            view! { <p class="badge badge-warn" data-testid="internal-badge">{s.internal_badge}</p> },
        )
    } else {
        None
    };
    view! {
        <article class=class data-kind=m.kind.as_str() data-internal=m.internal.then_some("true")>
            <header>
                <strong dir="auto">{m.author}</strong>
                " · "{kind}" · "
                <time datetime=domain::time::format_iso(m.at)>{domain::time::format_datetime(m.at)}</time>
            </header>
            {badge}
            <p class="support-body" dir="auto"><Lines text=m.body /></p>
        </article>
    }
}

/// Reply, internal note, assignment and closing. A refused form gets its
/// text back (and only that form).
#[component]
fn Forms(lang: Lang, view: ThreadView) -> impl IntoView {
    let s = staff_support(lang);
    let feedback = use_feedback();
    let kept = |form: &str| {
        if feedback.value("form") == form {
            feedback.value("body")
        } else {
            String::new()
        }
    };
    let (reply_text, note_text) = (kept("reply"), kept("note"));
    let rest = thread_rest(&view.request.id);
    let action = move |verb: &str| href(lang, &format!("{rest}/{verb}"));
    let open = view.request.state != State::Closed;
    let max = view.body_max.to_string();
    let hint = (s.body_hint)(view.body_max);
    let assigned = view.assigned_email.clone().unwrap_or_default();
    let staff = view
        .staff
        .iter()
        .map(|(email, name)| {
            let label = format!("{name} <{email}>");
            view! { <option value=email.clone() selected=assigned == *email>{label}</option> }
        })
        .collect_view();
    let reply = if open {
        view! {
            <form method="post" action=action("reply") class="support-reply">
                <h2>{s.reply_title}</h2>
                <CsrfField />
                <input type="hidden" name="form" value="reply" />
                <div class="field">
                    <label for="reply-body">{s.reply_title}</label>
                    <textarea id="reply-body" name="body" rows="6" maxlength=max.clone() required aria-describedby="reply-hint" dir="auto">{reply_text}</textarea>
                    <p class="hint" id="reply-hint">{s.reply_hint}" "{hint.clone()}</p>
                </div>
                <button type="submit">{s.reply_submit}</button>
            </form>
        }
        .into_any()
    } else {
        view! { <p class="notice" data-testid="closed-note">{s.closed_note}</p> }.into_any()
    };
    view! {
        {reply}
        <form method="post" action=action("note") class="support-note">
            <h2>{s.note_title}</h2>
            <CsrfField />
            <input type="hidden" name="form" value="note" />
            <div class="field">
                <label for="note-body">{s.note_title}</label>
                <textarea id="note-body" name="body" rows="4" maxlength=max required aria-describedby="note-hint" dir="auto">{note_text}</textarea>
                <p class="hint" id="note-hint">{s.note_hint}" "{hint}</p>
            </div>
            <button type="submit">{s.note_submit}</button>
        </form>
        <form method="post" action=action("assign") class="choice">
            <h2>{s.assign_title}</h2>
            <CsrfField />
            <div class="field">
                <label for="assign-to">{s.assign_label}</label>
                <select id="assign-to" name="to">
                    <option value="" selected=assigned.is_empty()>{s.unassigned}</option>
                    {staff}
                </select>
            </div>
            <button type="submit">{s.assign_submit}</button>
        </form>
        {open.then(|| view! {
            <form method="post" action=action("close")>
                <h2>{s.close_title}</h2>
                <CsrfField />
                <p class="hint">{s.close_hint}</p>
                <button type="submit">{s.close_submit}</button>
            </form>
        })}
    }
}

/// Beside the thread: the organization's servers (linked to their hosts),
/// its plans, and its open invoices.
#[component]
fn Organization(
    lang: Lang,
    servers: Vec<OrgServerRow>,
    invoices: Vec<OpenInvoiceRow>,
) -> impl IntoView {
    let s = staff_support(lang);
    let o = orders(lang);
    let mut plans: Vec<(String, usize)> = Vec::new();
    for server in &servers {
        match plans.iter_mut().find(|(p, _)| *p == server.plan) {
            Some((_, n)) => *n += 1,
            None => plans.push((server.plan.clone(), 1)),
        }
    }
    let plans = plans
        .into_iter()
        .map(|(plan, n)| view! { <li data-plan=plan.clone()>{(s.plan_count)(&plan, n)}</li> })
        .collect_view();
    let servers = if servers.is_empty() {
        view! { <p class="empty">{s.no_servers}</p> }.into_any()
    } else {
        let rows = servers
            .into_iter()
            .map(|server| {
                let name = match server.host.clone() {
                    Some(host) => {
                        let link = href(lang, &crate::pages::staff::host_page::host_rest(&host));
                        view! { <a href=link>{server.name.clone()}</a> }.into_any()
                    }
                    None => server.name.clone().into_any(),
                };
                view! {
                    <tr data-server=server.name.clone()>
                        <th scope="row">{name}</th>
                        <td data-label=s.col_plan>{server.plan.clone()}</td>
                        <td data-label=s.col_site>{server.site.clone()}</td>
                        <td data-label=s.col_server_state>{(o.server_state)(server.state)}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <table class="phone-cards" data-testid="org-servers">
                <thead><tr>
                    <th scope="col">{s.col_name}</th>
                    <th scope="col">{s.col_plan}</th>
                    <th scope="col">{s.col_site}</th>
                    <th scope="col">{s.col_server_state}</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        }
        .into_any()
    };
    let invoices = if invoices.is_empty() {
        view! { <p class="empty" data-testid="no-open-invoices">{s.no_invoices}</p> }.into_any()
    } else {
        let rows = invoices
            .into_iter()
            .map(|i| {
                let link = href(lang, &format!("/staff/finance/invoices/{}", i.id));
                let number = i.number.clone().unwrap_or_else(|| s.draft.to_owned());
                view! {
                    <tr data-invoice=i.id.to_string() data-overdue=i.overdue.then_some("true")>
                        <th scope="row"><a href=link>{number}</a></th>
                        <td data-label=s.col_amount class="num">{i.amount.format(lang)}</td>
                        <td data-label=s.col_due>
                            {domain::time::format_date(i.due_at)}
                            {i.overdue.then(|| view! { " "<span class="badge badge-warn">{s.overdue}</span> })}
                        </td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <table class="phone-cards" data-testid="open-invoices">
                <thead><tr>
                    <th scope="col">{s.col_number}</th>
                    <th scope="col">{s.col_amount}</th>
                    <th scope="col">{s.col_due}</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        }
        .into_any()
    };
    view! {
        <aside class="support-organization" aria-labelledby="support-org-title">
            <h2 id="support-org-title">{s.organization_title}</h2>
            <h3>{s.servers_title}</h3>
            {servers}
            <h3>{s.plans_title}</h3>
            <ul data-testid="org-plans">{plans}</ul>
            <h3>{s.invoices_title}</h3>
            {invoices}
        </aside>
    }
}

app::page_view!(ThreadView => StaffSupportThreadPage(view));
