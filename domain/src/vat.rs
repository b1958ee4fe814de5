//! EU VAT: the shape of VAT identification numbers per member state, and
//! which treatment an invoice gets.
//!
//! Rules applied (hosting is an electronically supplied service):
//! - a customer outside the EU pays no EU VAT;
//! - a business in another EU member state with a VAT ID accounts for the
//!   VAT itself (reverse charge, 0% on our invoice);
//! - everyone else in the EU pays the rate of their own country (for the
//!   seller's own country that is the domestic rate).

use crate::order::{country, VatTreatment};

crate::named_enum! {
    /// What VIES last said about a billing profile's VAT ID.
    pub enum VatIdState {
        /// VIES confirmed it: reverse charge applies (in another EU country).
        Valid = "valid",
        /// VIES says it is not registered: VAT is charged.
        Invalid = "invalid",
        /// VIES has not answered yet: VAT is charged until it does.
        Unchecked = "unchecked",
    }
}

/// Patterns per country after the prefix: `9` a digit, `A` a letter, `X` a
/// letter or digit; anything else literally.
const FORMATS: &[(&str, &str, &[&str])] = &[
    ("AT", "AT", &["U99999999"]),
    ("BE", "BE", &["9999999999"]),
    ("BG", "BG", &["999999999", "9999999999"]),
    ("HR", "HR", &["99999999999"]),
    ("CY", "CY", &["99999999A"]),
    ("CZ", "CZ", &["99999999", "999999999", "9999999999"]),
    ("DK", "DK", &["99999999"]),
    ("EE", "EE", &["999999999"]),
    ("FI", "FI", &["99999999"]),
    ("FR", "FR", &["XX999999999"]),
    ("DE", "DE", &["999999999"]),
    // Greece's VAT prefix is EL, not its ISO code.
    ("GR", "EL", &["999999999"]),
    ("HU", "HU", &["99999999"]),
    ("IE", "IE", &["9999999A", "9999999AA", "9A99999A"]),
    ("IT", "IT", &["99999999999"]),
    ("LV", "LV", &["99999999999"]),
    ("LT", "LT", &["999999999", "999999999999"]),
    ("LU", "LU", &["99999999"]),
    ("MT", "MT", &["99999999"]),
    ("NL", "NL", &["999999999B99"]),
    ("PL", "PL", &["9999999999"]),
    ("PT", "PT", &["999999999"]),
    (
        "RO",
        "RO",
        &[
            "99",
            "999",
            "9999",
            "99999",
            "999999",
            "9999999",
            "99999999",
            "999999999",
            "9999999999",
        ],
    ),
    ("SK", "SK", &["9999999999"]),
    ("SI", "SI", &["99999999"]),
    ("ES", "ES", &["X9999999X"]),
    ("SE", "SE", &["999999999901"]),
];

fn matches(pattern: &str, body: &str) -> bool {
    pattern.len() == body.len()
        && pattern.chars().zip(body.chars()).all(|(p, c)| match p {
            '9' => c.is_ascii_digit(),
            'A' => c.is_ascii_uppercase(),
            'X' => c.is_ascii_uppercase() || c.is_ascii_digit(),
            literal => c == literal,
        })
}

/// Normalises a VAT ID for an EU country (upper case, no spaces, dots or
/// dashes, with the country's prefix) if it has that country's format.
/// Only the format is checked here; VIES confirms that it exists.
pub fn parse_vat_id(country_code: &str, raw: &str) -> Option<String> {
    let (_, prefix, patterns) = FORMATS.iter().find(|(c, _, _)| *c == country_code)?;
    let cleaned: String = raw
        .chars()
        .filter(|c| !matches!(c, ' ' | '.' | '-'))
        .collect::<String>()
        .to_ascii_uppercase();
    let body = cleaned.strip_prefix(prefix).unwrap_or(&cleaned);
    patterns
        .iter()
        .any(|p| matches(p, body))
        .then(|| format!("{prefix}{body}"))
}

/// The treatment of an invoice to a customer in `customer_country`, with a
/// VAT ID that VIES confirmed or not (a merely well-formed one does not
/// count), from a seller established in `seller_country`, given the
/// customer country's standard rate.
pub fn treatment(
    seller_country: &str,
    customer_country: &str,
    vat_id_confirmed: bool,
    customer_rate_bp: i64,
) -> VatTreatment {
    match country(customer_country) {
        Some(c) if c.eu => {
            if vat_id_confirmed && customer_country != seller_country {
                VatTreatment::ReverseCharge
            } else {
                VatTreatment::Charged {
                    rate_bp: customer_rate_bp,
                }
            }
        }
        _ => VatTreatment::OutsideEu,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vat_ids_are_checked_per_country() {
        assert_eq!(
            parse_vat_id("DE", "de 123 456 789").as_deref(),
            Some("DE123456789")
        );
        assert_eq!(
            parse_vat_id("NL", "NL123456789B01").as_deref(),
            Some("NL123456789B01")
        );
        assert_eq!(
            parse_vat_id("GR", "EL123456789").as_deref(),
            Some("EL123456789")
        );
        assert_eq!(
            parse_vat_id("AT", "ATU12345678").as_deref(),
            Some("ATU12345678")
        );
        assert_eq!(
            parse_vat_id("FR", "FR AB 123456789").as_deref(),
            Some("FRAB123456789")
        );
        assert_eq!(parse_vat_id("DE", "DE12345678"), None, "one digit short");
        assert_eq!(parse_vat_id("NL", "NL123456789"), None, "no B01");
        assert_eq!(parse_vat_id("US", "123456789"), None, "not in the EU");
    }

    #[test]
    fn treatment_follows_the_eu_rules() {
        assert_eq!(
            treatment("NL", "NL", true, 2100),
            VatTreatment::Charged { rate_bp: 2100 }
        );
        assert_eq!(
            treatment("NL", "DE", true, 1900),
            VatTreatment::ReverseCharge
        );
        assert_eq!(
            treatment("NL", "DE", false, 1900),
            VatTreatment::Charged { rate_bp: 1900 }
        );
        assert_eq!(treatment("NL", "US", true, 0), VatTreatment::OutsideEu);
        assert_eq!(treatment("NL", "GB", false, 0), VatTreatment::OutsideEu);
    }
}
