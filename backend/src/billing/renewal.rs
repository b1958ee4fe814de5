//! Offline billing's monthly run: every server billed by invoice gets one
//! invoice per term, the first when it starts running, then one at each
//! renewal. A conditional update of the server's billing dates in the
//! invoice's transaction makes each period invoiced exactly once, whichever
//! replica runs it.

use anyhow::Context;
use domain::{Catalog, InvoiceId, Lang, Money, OrganizationId, Quote, ServerId};
use sqlx::{Any, Row, Transaction};

use super::{credit, numbering, Seller};
use crate::db::new_id;
use crate::orders::split_list;
use crate::{Clock, Db};

struct Due {
    server_id: ServerId,
    server_name: String,
    organization_id: OrganizationId,
    plan_id: String,
    site_code: String,
    addons: Vec<String>,
    period_start: i64,
    period_end: i64,
    first: bool,
    renews_at: i64,
    order_country: String,
    orderer_email: String,
}

/// Issues the invoices that are due now; answers how many.
pub async fn invoice_due(
    db: &Db,
    clock: &Clock,
    catalog: &Catalog,
    seller: &Seller,
) -> anyhow::Result<usize> {
    let now = clock.now();
    let rows = sqlx::query(
        "select s.id, s.name, s.organization_id, s.plan_id, s.site_code, s.addons, s.term_start, \
         s.renews_at, s.billed_until, o.billing_country, u.email \
         from servers s join orders o on o.id = s.order_id join users u on u.id = o.user_id \
         where o.billing_method = 'invoice' and s.term_start is not null and s.renews_at is not null \
         and s.state in ('running', 'rebooting') and s.cancelled_at is null \
         and (s.billed_until is null or (s.renews_at <= $1 and (s.cancel_at is null or s.renews_at < s.cancel_at))) \
         order by s.renews_at limit 200",
    )
    .bind(now)
    .fetch_all(&db.pool)
    .await
    .context("finding servers to invoice")?;
    let mut issued = 0;
    for r in &rows {
        let term_start: i64 = r.try_get("term_start")?;
        let renews_at: i64 = r.try_get("renews_at")?;
        let first = r.try_get::<Option<i64>, _>("billed_until")?.is_none();
        let (period_start, period_end) = if first {
            (term_start, renews_at)
        } else {
            (
                renews_at,
                domain::time::next_term_boundary(term_start, renews_at),
            )
        };
        let due = Due {
            server_id: r.try_get::<String, _>("id")?.into(),
            server_name: r.try_get("name")?,
            organization_id: r.try_get("organization_id")?,
            plan_id: r.try_get("plan_id")?,
            site_code: r.try_get("site_code")?,
            addons: split_list(&r.try_get::<String, _>("addons")?),
            period_start,
            period_end,
            first,
            renews_at,
            order_country: r.try_get("billing_country")?,
            orderer_email: r.try_get("email")?,
        };
        if issue_for(db, catalog, seller, &due, now).await? {
            issued += 1;
        }
    }
    Ok(issued)
}

async fn issue_for(
    db: &Db,
    catalog: &Catalog,
    seller: &Seller,
    due: &Due,
    now: i64,
) -> anyhow::Result<bool> {
    let Some(plan) = catalog.plan(&due.plan_id) else {
        anyhow::bail!("server {} has unknown plan {}", due.server_id, due.plan_id);
    };
    // Reverse charge needs a VAT ID VIES confirmed lately: ask again first.
    super::vat_ids::recheck_before_invoice(db, now, seller.vat_ids.as_ref(), &due.organization_id)
        .await?;
    let profile = super::profile::get(db, &due.organization_id).await?;
    let country = profile
        .as_ref()
        .map_or(due.order_country.clone(), |p| p.country.clone());
    let rate =
        match super::super::orders::pricing::vat_treatment(db, &country, due.period_start).await? {
            Some(t) => t.rate_bp(),
            None => 0,
        };
    let treatment = domain::vat::treatment(
        &seller.country,
        &country,
        profile
            .as_ref()
            .is_some_and(super::profile::BillingProfile::vat_id_confirmed),
        rate,
    );
    let addons: Vec<(String, Money)> = due
        .addons
        .iter()
        .filter_map(|id| Some((id.clone(), catalog.addon(id)?.price_for(&plan.id)?)))
        .collect();
    let quote = Quote::new(plan.monthly_price, addons, treatment);

    let mut tx = db.begin().await?;
    // Claims the period: only one run can move the dates from what we read.
    let claimed = if due.first {
        sqlx::query(
            "update servers set billed_until = renews_at where id = $1 and billed_until is null",
        )
        .bind(&due.server_id)
        .execute(&mut *tx)
        .await
    } else {
        sqlx::query(
            "update servers set renews_at = $1, billed_until = $1 where id = $2 and renews_at = $3",
        )
        .bind(due.period_end)
        .bind(&due.server_id)
        .bind(due.renews_at)
        .execute(&mut *tx)
        .await
    }
    .context("claiming the billing period")?;
    if claimed.rows_affected() == 0 {
        return Ok(false);
    }
    let number = numbering::next(&mut tx, "INV", now).await?;
    // Credit notes are ex VAT: they are used against the net, and take the
    // VAT charged on that share off with it.
    let credit_net = credit::apply(db, &mut tx, &due.organization_id, quote.net.cents).await?;
    let credit = credit::with_vat(credit_net, treatment.rate_bp()).min(quote.total.cents);
    let amount_due = quote.total.cents - credit;
    let (name, address, vat_id) = match &profile {
        Some(p) => (
            p.legal_name.clone(),
            format!("{}\n{} {}", p.address, p.postal_code, p.city),
            p.vat_id.clone(),
        ),
        None => (due.orderer_email.clone(), String::new(), None),
    };
    let invoice_id = InvoiceId::from(new_id());
    sqlx::query(
        "insert into invoices (id, organization_id, number, status, currency, period_start, period_end, \
         issued_at, due_at, paid_at, subtotal_cents, vat_treatment, vat_rate_bp, vat_cents, total_cents, \
         credit_cents, amount_due_cents, customer_name, customer_address, customer_country, \
         customer_vat_id, billing_method, payment_reference, created_at, updated_at) \
         values ($1, $2, $3, $4, 'EUR', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, \
         $19, $20, 'invoice', $3, $7, $7)",
    )
    .bind(&invoice_id)
    .bind(&due.organization_id)
    .bind(&number)
    .bind(if amount_due == 0 { "paid" } else { "open" })
    .bind(due.period_start)
    .bind(due.period_end)
    .bind(now)
    .bind(now + seller.payment_terms_days * 86_400)
    .bind((amount_due == 0).then_some(now))
    .bind(quote.net.cents)
    .bind(treatment.kind())
    .bind(treatment.rate_bp())
    .bind(quote.vat.cents)
    .bind(quote.total.cents)
    .bind(credit)
    .bind(amount_due)
    .bind(&name)
    .bind(&address)
    .bind(&country)
    .bind(&vat_id)
    .execute(&mut *tx)
    .await
    .context("recording the invoice")?;
    let site = catalog.site(&due.site_code);
    let city = |lang: Lang| site.map_or(due.site_code.clone(), |s| s.city.get(lang).to_owned());
    let mut position = 0;
    line(
        &mut tx,
        &invoice_id,
        &mut position,
        due,
        "plan",
        plan.id.as_str(),
        &format!("{} · {} · {}", plan.name, city(Lang::Zh), due.server_name),
        &format!("{} · {} · {}", plan.name, city(Lang::En), due.server_name),
        quote.plan.cents,
    )
    .await?;
    for (id, price) in &quote.addons {
        let addon = catalog.addon(id);
        let text = |lang: Lang| addon.map_or(id.clone(), |a| a.name.get(lang).to_owned());
        line(
            &mut tx,
            &invoice_id,
            &mut position,
            due,
            &format!("addon:{id}"),
            plan.id.as_str(),
            &format!("{} · {}", text(Lang::Zh), due.server_name),
            &format!("{} · {}", text(Lang::En), due.server_name),
            price.cents,
        )
        .await?;
    }
    // Owners, billing members and the profile's billing address, each in
    // their language (whoever placed the order may have left since).
    let due_at = now + seller.payment_terms_days * 86_400;
    super::dunning::notify(&mut tx, &due.organization_id, now, |lang| {
        issued_mail(lang, &number, Money::eur(amount_due), seller, due_at)
    })
    .await?;
    crate::events::invoice(&mut tx, invoice_id.as_str(), now).await?;
    tx.commit().await.context("committing the invoice")?;
    Ok(true)
}

#[allow(clippy::too_many_arguments)]
async fn line(
    tx: &mut Transaction<'_, Any>,
    invoice_id: &InvoiceId,
    position: &mut i64,
    due: &Due,
    kind: &str,
    plan_id: &str,
    description_zh: &str,
    description_en: &str,
    amount_cents: i64,
) -> anyhow::Result<()> {
    *position += 1;
    sqlx::query(
        "insert into invoice_lines (id, invoice_id, position, server_id, plan_id, site_code, kind, \
         description_zh, description_en, period_start, period_end, amount_cents) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind(new_id())
    .bind(invoice_id)
    .bind(*position)
    .bind(&due.server_id)
    .bind(plan_id)
    .bind(&due.site_code)
    .bind(kind)
    .bind(description_zh)
    .bind(description_en)
    .bind(due.period_start)
    .bind(due.period_end)
    .bind(amount_cents)
    .execute(&mut **tx)
    .await
    .context("recording an invoice line")?;
    Ok(())
}

fn issued_mail(
    lang: Lang,
    number: &str,
    due: Money,
    seller: &Seller,
    due_at: i64,
) -> (String, String) {
    let date = domain::time::format_date(due_at);
    match lang {
        Lang::Zh => (
            format!("发票 {number}"),
            format!(
                "您好：\n\n发票 {number} 已开出，应付金额 {}，请于 {date} 前付款。\n\n银行转账：\n收款人：{}\nIBAN：{}\nBIC：{}\n付款附言：{number}\n\n发票和 PDF 可在门户的“账务”页面查看。",
                due.format(lang), seller.name, seller.iban, seller.bic
            ),
        ),
        Lang::En => (
            format!("Invoice {number}"),
            format!(
                "Hello,\n\nInvoice {number} is issued: {} to pay by {date}.\n\nBank transfer:\nPayee: {}\nIBAN: {}\nBIC: {}\nReference: {number}\n\nThe invoice and its PDF are on the Billing page of the portal.",
                due.format(lang), seller.name, seller.iban, seller.bic
            ),
        ),
    }
}
