//! What an order is made of: the operating system image, the price quote
//! with VAT, and the countries we bill to.

use crate::{Lang, Money};
use serde::{Deserialize, Serialize};

/// The images a server can be delivered with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OsImage {
    Ubuntu2404,
    Debian13,
    Rocky9,
    /// No operating system: the server boots a rescue system.
    Rescue,
}

crate::text_column!(OsImage, |v| v.as_str(), OsImage::parse);

impl OsImage {
    pub const ALL: [OsImage; 4] = [
        OsImage::Ubuntu2404,
        OsImage::Debian13,
        OsImage::Rocky9,
        OsImage::Rescue,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            OsImage::Ubuntu2404 => "ubuntu-24.04",
            OsImage::Debian13 => "debian-13",
            OsImage::Rocky9 => "rocky-9",
            OsImage::Rescue => "rescue",
        }
    }

    pub fn parse(raw: &str) -> Option<OsImage> {
        OsImage::ALL.into_iter().find(|i| i.as_str() == raw)
    }

    /// The product's own name; the rescue image's name is translated by the UI.
    pub fn product_name(self) -> &'static str {
        match self {
            OsImage::Ubuntu2404 => "Ubuntu 24.04 LTS",
            OsImage::Debian13 => "Debian 13",
            OsImage::Rocky9 => "Rocky Linux 9",
            OsImage::Rescue => "Rescue",
        }
    }
}

/// How VAT applies to a customer in a country.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VatTreatment {
    /// The rate of the customer's EU country (basis points).
    Charged { rate_bp: i64 },
    /// A business with a VAT ID in another EU member state accounts for
    /// the VAT itself: 0% on our invoice, with the reverse-charge note.
    ReverseCharge,
    /// Outside the EU: no EU VAT is charged.
    OutsideEu,
}

impl VatTreatment {
    /// Stored on invoices: `charged`, `reverse_charge`, `outside_eu`.
    pub fn kind(self) -> &'static str {
        match self {
            VatTreatment::Charged { .. } => "charged",
            VatTreatment::ReverseCharge => "reverse_charge",
            VatTreatment::OutsideEu => "outside_eu",
        }
    }

    pub fn from_stored(kind: &str, rate_bp: i64) -> Option<VatTreatment> {
        match kind {
            "charged" => Some(VatTreatment::Charged { rate_bp }),
            "reverse_charge" => Some(VatTreatment::ReverseCharge),
            "outside_eu" => Some(VatTreatment::OutsideEu),
            _ => None,
        }
    }

    pub fn rate_bp(self) -> i64 {
        match self {
            VatTreatment::Charged { rate_bp } => rate_bp,
            VatTreatment::ReverseCharge | VatTreatment::OutsideEu => 0,
        }
    }

    /// The treatment an order had, from what it stores (the billing
    /// country and the rate charged): every EU country has a standard rate
    /// above zero, so 0% to an EU country can only be a reverse charge.
    pub fn of_order(country_code: &str, rate_bp: i64) -> VatTreatment {
        match country(country_code) {
            _ if rate_bp > 0 => VatTreatment::Charged { rate_bp },
            Some(c) if c.eu => VatTreatment::ReverseCharge,
            _ => VatTreatment::OutsideEu,
        }
    }
}

crate::named_enum! {
    /// Why an order failed, as stored on it; the portal says what happens
    /// to the money for each.
    pub enum OrderFailure {
        /// The last host went while the customer paid; payment refunded.
        SoldOutAtPayment = "sold_out_at_payment",
        PaymentFailed = "payment_failed",
        /// Every free host at the site failed its checks while installing.
        NoHealthyHost = "no_healthy_host",
        /// The Fleet did not answer within the provisioning deadline.
        FleetUnavailable = "fleet_unavailable",
        /// The server's host was taken from it (marked failed, say) before
        /// the installation finished.
        NoHost = "no_host",
    }
}

crate::named_enum! {
    /// Why a customer cancels, as stored and offered on the form; the
    /// portal translates each. (A cancellation made in Stripe's dashboard
    /// is stored as `stripe` and never offered.)
    pub enum CancelReason {
        NotNeeded = "not_needed",
        TooExpensive = "too_expensive",
        Moving = "moving",
        Performance = "performance",
        Other = "other",
    }
}

/// A monthly price broken down the way the order summary and the invoice
/// show it. Amounts are cents; VAT is rounded half up on the net total.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quote {
    pub plan: Money,
    /// (add-on id, monthly price)
    pub addons: Vec<(String, Money)>,
    pub net: Money,
    pub vat_treatment: VatTreatment,
    pub vat: Money,
    pub total: Money,
}

impl Quote {
    pub fn new(plan: Money, addons: Vec<(String, Money)>, vat_treatment: VatTreatment) -> Quote {
        let net_cents = plan.cents + addons.iter().map(|(_, m)| m.cents).sum::<i64>();
        let vat_cents = vat_on(net_cents, vat_treatment.rate_bp());
        Quote {
            plan,
            addons,
            net: Money {
                cents: net_cents,
                ..plan
            },
            vat_treatment,
            vat: Money {
                cents: vat_cents,
                ..plan
            },
            total: Money {
                cents: net_cents + vat_cents,
                ..plan
            },
        }
    }
}

/// VAT on a net amount at a rate in basis points, rounded half up to the cent.
pub fn vat_on(net_cents: i64, rate_bp: i64) -> i64 {
    (net_cents * rate_bp + 5_000).div_euclid(10_000)
}

/// A rate in basis points as people write it: 2100 → "21%", 2550 → "25.5%".
pub fn format_rate(bp: i64) -> String {
    if bp % 100 == 0 {
        format!("{}%", bp / 100)
    } else if bp % 10 == 0 {
        format!("{}.{}%", bp / 100, (bp % 100) / 10)
    } else {
        format!("{}.{:02}%", bp / 100, bp % 100)
    }
}

/// A country we bill to: ISO code, names, and whether it is in the EU.
pub struct Country {
    pub code: &'static str,
    pub zh: &'static str,
    pub en: &'static str,
    pub eu: bool,
}

const fn c(code: &'static str, zh: &'static str, en: &'static str, eu: bool) -> Country {
    Country { code, zh, en, eu }
}

impl Country {
    pub fn name(&self, lang: Lang) -> &'static str {
        match lang {
            Lang::Zh => self.zh,
            Lang::En => self.en,
        }
    }
}

/// A billing country's name in `lang`, as invoices, orders and PDFs show
/// it; a code we do not know (an old record) is shown as stored.
pub fn country_name(code: &str, lang: Lang) -> String {
    country(code).map_or_else(|| code.to_owned(), |c| c.name(lang).to_owned())
}

/// Billing countries and regions, EU members first, in English alphabetical
/// order: the one list of names the product uses (billing, invoices,
/// orders, and the storefront's latency table).
pub const COUNTRIES: &[Country] = &[
    c("AT", "奥地利", "Austria", true),
    c("BE", "比利时", "Belgium", true),
    c("BG", "保加利亚", "Bulgaria", true),
    c("HR", "克罗地亚", "Croatia", true),
    c("CY", "塞浦路斯", "Cyprus", true),
    c("CZ", "捷克", "Czechia", true),
    c("DK", "丹麦", "Denmark", true),
    c("EE", "爱沙尼亚", "Estonia", true),
    c("FI", "芬兰", "Finland", true),
    c("FR", "法国", "France", true),
    c("DE", "德国", "Germany", true),
    c("GR", "希腊", "Greece", true),
    c("HU", "匈牙利", "Hungary", true),
    c("IE", "爱尔兰", "Ireland", true),
    c("IT", "意大利", "Italy", true),
    c("LV", "拉脱维亚", "Latvia", true),
    c("LT", "立陶宛", "Lithuania", true),
    c("LU", "卢森堡", "Luxembourg", true),
    c("MT", "马耳他", "Malta", true),
    c("NL", "荷兰", "Netherlands", true),
    c("PL", "波兰", "Poland", true),
    c("PT", "葡萄牙", "Portugal", true),
    c("RO", "罗马尼亚", "Romania", true),
    c("SK", "斯洛伐克", "Slovakia", true),
    c("SI", "斯洛文尼亚", "Slovenia", true),
    c("ES", "西班牙", "Spain", true),
    c("SE", "瑞典", "Sweden", true),
    c("AU", "澳大利亚", "Australia", false),
    c("BR", "巴西", "Brazil", false),
    c("CA", "加拿大", "Canada", false),
    c("CN", "中国内地", "Mainland China", false),
    c("HK", "中国香港", "Hong Kong", false),
    c("IN", "印度", "India", false),
    c("ID", "印度尼西亚", "Indonesia", false),
    c("JP", "日本", "Japan", false),
    c("MX", "墨西哥", "Mexico", false),
    c("NO", "挪威", "Norway", false),
    c("SG", "新加坡", "Singapore", false),
    c("ZA", "南非", "South Africa", false),
    c("KR", "韩国", "South Korea", false),
    c("CH", "瑞士", "Switzerland", false),
    c("TW", "中国台湾", "Taiwan", false),
    c("TH", "泰国", "Thailand", false),
    c("TR", "土耳其", "Türkiye", false),
    c("AE", "阿联酋", "United Arab Emirates", false),
    c("GB", "英国", "United Kingdom", false),
    c("US", "美国", "United States", false),
];

pub fn country(code: &str) -> Option<&'static Country> {
    COUNTRIES.iter().find(|c| c.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_orders_treatment_follows_from_its_country_and_rate() {
        assert_eq!(
            VatTreatment::of_order("NL", 2100),
            VatTreatment::Charged { rate_bp: 2100 }
        );
        assert_eq!(VatTreatment::of_order("DE", 0), VatTreatment::ReverseCharge);
        assert_eq!(VatTreatment::of_order("BR", 0), VatTreatment::OutsideEu);
        assert_eq!(country_name("TR", Lang::En), "Türkiye");
        assert_eq!(country_name("DE", Lang::Zh), "德国");
        assert_eq!(country_name("XX", Lang::En), "XX");
    }

    #[test]
    fn vat_rounds_half_up_to_the_cent() {
        assert_eq!(vat_on(23900, 2100), 5019);
        assert_eq!(vat_on(74900, 1900), 14231);
        // 0.5 cent rounds up.
        assert_eq!(vat_on(50, 1000), 5);
        assert_eq!(vat_on(5, 1000), 1);
        assert_eq!(vat_on(4, 1000), 0);
    }

    #[test]
    fn a_quote_adds_addons_before_vat() {
        let q = Quote::new(
            Money::eur(74900),
            vec![("offsite-backup".into(), Money::eur(3000))],
            VatTreatment::Charged { rate_bp: 2100 },
        );
        assert_eq!(q.net.cents, 77900);
        assert_eq!(q.vat.cents, 16359);
        assert_eq!(q.total.cents, 94259);
        let outside = Quote::new(Money::eur(23900), vec![], VatTreatment::OutsideEu);
        assert_eq!(outside.vat.cents, 0);
        assert_eq!(outside.total.cents, 23900);
    }

    #[test]
    fn rates_read_as_percentages() {
        assert_eq!(format_rate(2100), "21%");
        assert_eq!(format_rate(2550), "25.5%");
        assert_eq!(format_rate(0), "0%");
    }

    #[test]
    fn images_round_trip() {
        for image in OsImage::ALL {
            assert_eq!(OsImage::parse(image.as_str()), Some(image));
        }
        assert_eq!(OsImage::parse("windows"), None);
    }
}

crate::named_enum! {
    /// `held → confirmed → fulfilled`, or `failed` / `expired`.
    pub enum OrderState {
        /// A host is held while the customer pays (or until the hold expires).
        Held = "held",
        /// Paid or accepted for invoicing; its server is being provisioned.
        Confirmed = "confirmed",
        /// Its server runs.
        Fulfilled = "fulfilled",
        Failed = "failed",
        Expired = "expired",
    }
}
