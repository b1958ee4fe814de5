//! Configure: the start of ordering. Pick a plan and a site (a plain GET
//! form), see the price ex VAT and live stock. A sold-out combination cannot
//! be configured and points to the sites that have stock. With JavaScript
//! the form is a live quote (`super::quote`): the summary follows the
//! selects without a reload.

use crate::portal::query;
use domain::{Catalog, Lang, Plan, Site, StockSnapshot};
use leptos::prelude::*;
use leptos::tachys::view::RenderHtml;

use super::layout::Page;
use super::not_found::ErrorPage;
use super::plans::gpu_text;
use super::quote::{ConfigureQuote, LiveQuote, ServerHtml};
use super::stock::{stock_text, StockBadge, StockReadAt};
use super::{configure_rest, href};
use crate::context::{set_status, use_facts, StorefrontFacts};
use crate::i18n::ui;

#[component]
pub fn ConfigurePage(lang: Lang) -> impl IntoView {
    let Some(facts) = use_facts() else {
        return view! { <ErrorPage lang /> }.into_any();
    };
    let t = ui(lang);
    // No plan asked for (the menu's link): the first plan, as the plans
    // table lists them, rather than an error.
    let plan_q = query("plan")
        .or_else(|| facts.catalog.plans.first().map(|p| p.id.to_string()))
        .unwrap_or_default();
    let site_q = query("site").unwrap_or_default();
    let alert_set = query("alert").is_some();
    let catalog = facts.catalog.clone();
    let plan = catalog.plan(&plan_q).cloned();
    let site = catalog.site(&site_q).cloned();
    // Unknown values are a bad request, answered with the form and a message.
    let bad = plan.is_none() || (!site_q.is_empty() && site.is_none());
    if bad {
        set_status(400);
    }
    let rest = match (&plan, &site) {
        (Some(p), s) => configure_rest(p.id.as_str(), s.as_ref().map(|s| s.code.as_str())),
        (None, _) => "/configure".to_owned(),
    };
    let title = plan.as_ref().map_or_else(
        || t.configure_heading.to_owned(),
        |p| (t.configure_title)(&p.name),
    );
    let first = live_quote(lang, &facts, &plan_q, &site_q, alert_set);
    let form = view! {
        <ChoiceForm lang catalog=catalog.clone() plan=plan.clone() quote=first.clone() />
    }
    .to_html();
    view! {
        <Page lang title description=t.configure_description.to_owned() rest noindex=site.is_some() || bad>
            <section class="section configure" aria-labelledby="configure-title">
                <h1 id="configure-title">{t.configure_heading}</h1>
                <p class="lead">{t.configure_intro}</p>
                {bad.then(|| view! { <p class="notice notice-error" role="alert">{t.configure_bad_choice}</p> })}
                <ConfigureQuote lang plan=first.plan site=first.site first=ServerHtml(form) />
                {plan.is_some().then(|| view! { <StockReadAt lang /> })}
                <p>
                    <a href=format!("{}#plans", href(lang, ""))>{t.back_to_plans}</a>
                </p>
            </section>
            <script type="module" src="/islands.js"></script>
        </Page>
    }
    .into_any()
}

/// The site options and summary for a choice, as HTML: the page's first
/// render and every live update come from here. `alert_set` says a stock
/// alert was just subscribed (the form's redirect back to this page).
pub fn live_quote(
    lang: Lang,
    facts: &StorefrontFacts,
    plan_q: &str,
    site_q: &str,
    alert_set: bool,
) -> LiveQuote {
    let catalog = facts.catalog.clone();
    let plan = catalog.plan(plan_q).cloned();
    let site = catalog.site(site_q).cloned();
    let stock = facts.stock.clone();
    let site_options = view! {
        <SiteOptions lang catalog=catalog.clone() stock=stock.clone() plan=plan.clone() site=site.clone() />
    }
    .to_html();
    let summary = plan
        .map(|plan| view! { <Summary lang catalog stock plan site alert_set /> }.to_html())
        .unwrap_or_default();
    // Leptos' text markers are only for hydrating, which these blocks never
    // are (the page cache removes them from pages for the same reason).
    LiveQuote {
        plan: plan_q.to_owned(),
        site: site_q.to_owned(),
        site_options: site_options.replace("<!>", ""),
        summary: summary.replace("<!>", ""),
    }
}

/// The GET form and the summary under it: the live quote's first render.
#[component]
fn ChoiceForm(
    lang: Lang,
    catalog: std::sync::Arc<Catalog>,
    plan: Option<Plan>,
    quote: LiveQuote,
) -> impl IntoView {
    let t = ui(lang);
    view! {
        <form class="choice" method="get" action=href(lang, "/configure")>
            <div class="field">
                <label for="plan">{t.configure_plan}</label>
                <select id="plan" name="plan">
                    <PlanOptions lang catalog plan />
                </select>
            </div>
            <div class="field">
                <label for="site">{t.configure_site}</label>
                <select id="site" name="site" inner_html=quote.site_options></select>
            </div>
            <button type="submit">{t.configure_update}</button>
        </form>
        <div class="summary-slot" inner_html=quote.summary></div>
    }
}

#[component]
fn PlanOptions(lang: Lang, catalog: std::sync::Arc<Catalog>, plan: Option<Plan>) -> impl IntoView {
    let plan_id = plan.as_ref().map(|p| p.id.clone());
    catalog
        .plans
        .iter()
        .map(|p| {
            let selected = plan_id.as_ref() == Some(&p.id);
            view! {
                <option value=p.id.to_string() selected=selected>
                    {format!("{} · {}", p.name, p.monthly_price.format(lang))}
                </option>
            }
        })
        .collect_view()
}

#[component]
fn SiteOptions(
    lang: Lang,
    catalog: std::sync::Arc<Catalog>,
    stock: StockSnapshot,
    plan: Option<Plan>,
    site: Option<Site>,
) -> impl IntoView {
    let t = ui(lang);
    let plan_id = plan.as_ref().map(|p| p.id.clone());
    let site_code = site.as_ref().map(|s| s.code.clone());
    // Sites that have the chosen plan come first (in their usual order),
    // then the sold-out ones, which stay listed and say so.
    let mut sites: Vec<&Site> = catalog.sites.iter().collect();
    if let Some(p) = &plan_id {
        sites.sort_by_key(|s| !stock.level(&s.code, p).available());
    }
    let site_options = sites
        .into_iter()
        .map(|s| {
            let selected = site_code.as_ref() == Some(&s.code);
            let label = match &plan_id {
                Some(p) => format!(
                    "{} · {}",
                    s.city.get(lang),
                    stock_text(stock.level(&s.code, p), lang)
                ),
                None => s.city.get(lang).to_owned(),
            };
            view! { <option value=s.code.to_string() selected=selected>{label}</option> }
        })
        .collect_view();
    view! {
        <option value="" selected=site_code.is_none()>{t.configure_choose_site}</option>
        {site_options}
    }
}

#[component]
fn Summary(
    lang: Lang,
    catalog: std::sync::Arc<Catalog>,
    stock: StockSnapshot,
    plan: Plan,
    site: Option<Site>,
    alert_set: bool,
) -> impl IntoView {
    let t = ui(lang);
    let with_stock: Vec<&Site> = catalog
        .sites
        .iter()
        .filter(|s| stock.level(&s.code, &plan.id).available())
        .collect();
    let level = site.as_ref().map(|s| stock.level(&s.code, &plan.id));
    let sold_out_here = level.is_some_and(|l| !l.available());
    let alternatives = (site.is_none() || sold_out_here).then(|| {
        if with_stock.is_empty() {
            view! { <p class="notice">{t.configure_no_stock_anywhere}</p> }.into_any()
        } else {
            let links = with_stock
                .iter()
                .map(|s| {
                    let l = stock.level(&s.code, &plan.id);
                    view! {
                        <li data-site=s.code.to_string()>
                            <a href=href(lang, &configure_rest(plan.id.as_str(), Some(s.code.as_str())))>
                                {s.city.get(lang).to_owned()}
                            </a>
                            " "
                            <StockBadge level=l lang />
                        </li>
                    }
                })
                .collect_view();
            view! {
                <div class="alternatives">
                    <p>{t.configure_try_sites}</p>
                    <ul class="site-list">{links}</ul>
                </div>
            }
            .into_any()
        }
    });
    view! {
        <div id="configure-summary" class="summary" class:sold-out=sold_out_here>
            <h2>{t.configure_summary}</h2>
            {sold_out_here
                .then(|| {
                    let site_name = site.as_ref().map(|s| s.city.get(lang).to_owned()).unwrap_or_default();
                    view! { <p class="notice notice-error" role="alert">{(t.configure_sold_out)(&plan.name, &site_name)}</p> }
                })}
            <dl>
                <dt>{t.configure_plan}</dt>
                <dd>
                    <strong>{plan.name.clone()}</strong>
                    {format!(
                        " · {} · {} · {} GB · {} TB NVMe",
                        gpu_text(&plan),
                        (t.cores)(plan.dedicated_cores),
                        plan.memory_gb,
                        plan.nvme_tb,
                    )}
                </dd>
                {site
                    .as_ref()
                    .map(|s| {
                        view! {
                            <dt>{t.configure_site}</dt>
                            <dd>{(t.city_in_country)(s.city.get(lang), s.country.get(lang))}</dd>
                        }
                    })}
                <dt>{t.configure_price}</dt>
                <dd class="price">{plan.monthly_price.format(lang)}" "{t.per_month}</dd>
                {level
                    .map(|level| {
                        view! {
                            <dt>{t.configure_stock}</dt>
                            <dd data-stock=level.token()>
                                <StockBadge level lang />
                            </dd>
                        }
                    })}
            </dl>
            <p class="notes">{t.vat_note}" "{t.configure_term}</p>
            {(!sold_out_here && site.is_some())
                .then(|| {
                    let order = href(
                        lang,
                        &format!("/order?plan={}&site={}", plan.id, site.as_ref().map(|s| s.code.to_string()).unwrap_or_default()),
                    );
                    view! {
                        <p>{t.configure_next_step}</p>
                        <p><a class="button" href=order data-testid="order-link">{t.configure_order}</a></p>
                    }
                })}
            {alternatives}
            {sold_out_here
                .then(|| {
                    let o = crate::i18n::orders(lang);
                    let site_code = site.as_ref().map(|s| s.code.to_string()).unwrap_or_default();
                    let done = alert_set.then_some(o.alert_set);
                    view! {
                        <div class="alert-offer">
                            <h3>{o.alert_title}</h3>
                            <crate::portal::forms::FormErrorNotice lang />
                            <crate::portal::forms::Notice text=done />
                            <crate::portal::alerts::AlertForm lang plan=plan.id.to_string() site=site_code />
                        </div>
                    }
                })}
        </div>
    }
}
