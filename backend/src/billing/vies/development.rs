//! The development register: answers from `backend/fixtures/vies.txt`
//! (embedded at build time) after a delay like the real service's, so the
//! product runs offline and behaves as it will in production: an ID that
//! is not listed is not registered, and listed IDs can be made
//! "unavailable" to watch the retry path.

use async_trait::async_trait;
use std::collections::HashMap;
use std::time::Duration;

use super::{RegistryUnavailable, VatIdRegistry, VatIdStatus};

const FIXTURE: &str = include_str!("../../../fixtures/vies.txt");

/// About what VIES takes to answer from a nearby member state.
const DELAY: Duration = Duration::from_millis(40);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Answer {
    Valid(Option<String>),
    Invalid,
    Unavailable,
}

#[derive(Clone, Debug)]
pub struct DevelopmentRegistry {
    /// By full VAT ID: `DE123456789`; why not, if the fixture is malformed
    /// (every check is then "unavailable", with that reason, instead of a
    /// crash at start-up; `fixture_parses…` keeps it from happening).
    answers: Result<HashMap<String, Answer>, String>,
    delay: Duration,
}

impl DevelopmentRegistry {
    /// The register the fixture describes.
    pub fn new() -> DevelopmentRegistry {
        DevelopmentRegistry {
            answers: parse(FIXTURE),
            delay: DELAY,
        }
    }
}

impl Default for DevelopmentRegistry {
    fn default() -> Self {
        DevelopmentRegistry::new()
    }
}

fn parse(text: &str) -> Result<HashMap<String, Answer>, String> {
    let mut answers = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.splitn(4, ' ');
        let (Some(country), Some(number), Some(answer)) =
            (fields.next(), fields.next(), fields.next())
        else {
            return Err(format!("line {}: COUNTRY NUMBER ANSWER [name]", n + 1));
        };
        let name = fields.next().map(str::trim).filter(|s| !s.is_empty());
        let answer = match answer {
            "valid" => Answer::Valid(name.map(str::to_owned)),
            "invalid" => Answer::Invalid,
            "unavailable" => Answer::Unavailable,
            other => return Err(format!("line {}: unknown answer {other:?}", n + 1)),
        };
        answers.insert(format!("{country}{number}"), answer);
    }
    Ok(answers)
}

#[async_trait]
impl VatIdRegistry for DevelopmentRegistry {
    async fn check(&self, country: &str, number: &str) -> Result<VatIdStatus, RegistryUnavailable> {
        tokio::time::sleep(self.delay).await;
        let answers = self.answers.as_ref().map_err(|why| {
            RegistryUnavailable(format!("backend/fixtures/vies.txt is malformed: {why}"))
        })?;
        match answers.get(&format!("{country}{number}")) {
            Some(Answer::Valid(name)) => Ok(VatIdStatus::Valid { name: name.clone() }),
            Some(Answer::Unavailable) => Err(RegistryUnavailable(format!(
                "{country}: the member state's service is unavailable (development fixture)"
            ))),
            Some(Answer::Invalid) | None => Ok(VatIdStatus::Invalid),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_parses_and_every_id_has_its_countrys_format() {
        let answers = parse(FIXTURE).expect("the fixture parses");
        assert!(answers.len() >= 10);
        for id in answers.keys() {
            let prefix = &id[..2];
            let country = if prefix == "EL" { "GR" } else { prefix };
            assert_eq!(
                domain::vat::parse_vat_id(country, id).as_deref(),
                Some(id.as_str()),
                "{id} as the profile form would normalize it"
            );
        }
    }

    #[test]
    fn malformed_lines_are_refused() {
        assert!(parse("DE 123456789").is_err());
        assert!(parse("DE 123456789 maybe").is_err());
    }

    #[tokio::test]
    async fn answers_as_listed_and_unlisted_ids_are_not_registered() {
        let registry = DevelopmentRegistry::new();
        assert_eq!(
            registry.check("DE", "123456789").await.ok(),
            Some(VatIdStatus::Valid {
                name: Some("Beispiel GmbH".into())
            })
        );
        assert_eq!(
            registry.check("DE", "811111111").await.ok(),
            Some(VatIdStatus::Valid { name: None })
        );
        assert_eq!(
            registry.check("DE", "123456780").await.ok(),
            Some(VatIdStatus::Invalid)
        );
        assert!(registry.check("DE", "111111111").await.is_err());
    }
}
