//! Money is integer cents with a currency code; never floats.

use crate::Lang;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Money {
    pub cents: i64,
    /// ISO 4217 code; the whole line is priced in euros today.
    pub currency: Currency,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Currency {
    Eur,
}

impl Currency {
    pub fn code(self) -> &'static str {
        match self {
            Currency::Eur => "EUR",
        }
    }

    pub fn parse(code: &str) -> Option<Currency> {
        match code {
            "EUR" => Some(Currency::Eur),
            _ => None,
        }
    }
}

impl Money {
    pub fn eur(cents: i64) -> Money {
        Money {
            cents,
            currency: Currency::Eur,
        }
    }

    /// Formats for the reader's locale: `€1,420.00` in English and
    /// `€1,420.00` in Chinese too (mainland usage groups by thousands with a
    /// comma and puts the symbol first), so only the separators are shared.
    /// Kept as one function so a future locale with `1.420,00 €` fits here.
    pub fn format(self, lang: Lang) -> String {
        let sign = if self.cents < 0 { "-" } else { "" };
        let abs = self.cents.unsigned_abs();
        let units = group_thousands(abs / 100);
        let symbol = match self.currency {
            Currency::Eur => "€",
        };
        match lang {
            Lang::Zh | Lang::En => format!("{sign}{symbol}{units}.{:02}", abs % 100),
        }
    }
}

fn group_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_euros() {
        assert_eq!(Money::eur(142_000).format(Lang::En), "€1,420.00");
        assert_eq!(Money::eur(23_900).format(Lang::Zh), "€239.00");
        assert_eq!(Money::eur(5).format(Lang::En), "€0.05");
        assert_eq!(Money::eur(-123_456_789).format(Lang::En), "-€1,234,567.89");
    }
}
