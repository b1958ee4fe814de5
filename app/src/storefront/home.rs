//! The home page: every section of the seed page, in its order, with live
//! plans, stock and latency.

use domain::Lang;
use leptos::prelude::*;

use super::latency::LatencySection;
use super::layout::Page;
use super::not_found::ErrorPage;
use super::plans::PlansTable;
use super::sections::*;
use super::seo::{products_json, ProductsJsonLd};
use super::sites::SitesSection;
use crate::context::{use_facts, use_site_info};
use crate::i18n::ui;

#[component]
pub fn HomePage(lang: Lang) -> impl IntoView {
    let Some(facts) = use_facts() else {
        return view! { <ErrorPage lang /> }.into_any();
    };
    let t = ui(lang);
    let city = crate::portal::query("city");
    let json = products_json(
        &facts.catalog,
        &facts.stock,
        lang,
        &use_site_info().base_url,
    );
    view! {
        <Page
            lang
            title=t.home_title.to_owned()
            description=t.home_description.to_owned()
            rest=String::new()
            noindex=city.is_some()
        >
            <Hero lang />
            <section id="plans" class="section" aria-label=t.nav_plans>
                <PlansTable lang catalog=facts.catalog.clone() stock=facts.stock.clone() />
            </section>
            <LatencySection lang catalog=facts.catalog.clone() rows=facts.latency.clone() city />
            <PassthroughSection lang />
            <WorkloadsSection lang />
            <NotForSection lang />
            <HostSection lang />
            <SitesSection lang catalog=facts.catalog.clone() stock=facts.stock.clone() />
            <LongJobsSection lang />
            <FailureSection lang />
            <FaqSection lang />
            <ProductsJsonLd json />
        </Page>
    }
    .into_any()
}
