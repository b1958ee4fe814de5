//! The 34 cities in 29 countries where our probes run, with positions used
//! only for distance estimates before real measurements are imported.

pub struct ProbeCity {
    pub en: &'static str,
    pub zh: &'static str,
    pub country_code: &'static str,
    pub lat: f64,
    pub lon: f64,
}

const fn city(
    en: &'static str,
    zh: &'static str,
    country_code: &'static str,
    lat: f64,
    lon: f64,
) -> ProbeCity {
    ProbeCity {
        en,
        zh,
        country_code,
        lat,
        lon,
    }
}

pub const PROBE_CITIES: [ProbeCity; 34] = [
    city("Amsterdam", "阿姆斯特丹", "NL", 52.37, 4.90),
    city("Frankfurt", "法兰克福", "DE", 50.11, 8.68),
    city("Berlin", "柏林", "DE", 52.52, 13.40),
    city("London", "伦敦", "GB", 51.51, -0.13),
    city("Paris", "巴黎", "FR", 48.86, 2.35),
    city("Madrid", "马德里", "ES", 40.42, -3.70),
    city("Milan", "米兰", "IT", 45.46, 9.19),
    city("Stockholm", "斯德哥尔摩", "SE", 59.33, 18.07),
    city("Warsaw", "华沙", "PL", 52.23, 21.01),
    city("Vienna", "维也纳", "AT", 48.21, 16.37),
    city("Zurich", "苏黎世", "CH", 47.38, 8.54),
    city("Dublin", "都柏林", "IE", 53.35, -6.26),
    city("Helsinki", "赫尔辛基", "FI", 60.17, 24.94),
    city("Istanbul", "伊斯坦布尔", "TR", 41.01, 28.98),
    city("Dubai", "迪拜", "AE", 25.20, 55.27),
    city("Mumbai", "孟买", "IN", 19.08, 72.88),
    city("Singapore", "新加坡", "SG", 1.35, 103.82),
    city("Hong Kong", "香港", "HK", 22.32, 114.17),
    city("Shanghai", "上海", "CN", 31.23, 121.47),
    city("Beijing", "北京", "CN", 39.90, 116.41),
    city("Tokyo", "东京", "JP", 35.68, 139.65),
    city("Seoul", "首尔", "KR", 37.57, 126.98),
    city("Taipei", "台北", "TW", 25.03, 121.57),
    city("Bangkok", "曼谷", "TH", 13.76, 100.50),
    city("Jakarta", "雅加达", "ID", -6.21, 106.85),
    city("Sydney", "悉尼", "AU", -33.87, 151.21),
    city("New York", "纽约", "US", 40.71, -74.01),
    city("Chicago", "芝加哥", "US", 41.88, -87.63),
    city("Dallas", "达拉斯", "US", 32.78, -96.80),
    city("Los Angeles", "洛杉矶", "US", 34.05, -118.24),
    city("Toronto", "多伦多", "CA", 43.65, -79.38),
    city("Mexico City", "墨西哥城", "MX", 19.43, -99.13),
    city("São Paulo", "圣保罗", "BR", -23.55, -46.63),
    city("Johannesburg", "约翰内斯堡", "ZA", -26.20, 28.05),
];

pub fn find(en: &str) -> Option<&'static ProbeCity> {
    PROBE_CITIES.iter().find(|c| c.en.eq_ignore_ascii_case(en))
}

/// Great-circle distance in kilometres (haversine).
pub fn distance_km(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let dp = p2 - p1;
    let dl = (lon2 - lon1).to_radians();
    let a = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * 6371.0 * a.sqrt().asin()
}

/// A round trip estimated from distance: light covers about 200 km per ms in
/// fibre, real routes run about 1.4 times the great-circle distance, and
/// switching adds a couple of milliseconds. Returns tenths of a millisecond.
pub fn estimated_rtt_tenth_ms(distance_km: f64) -> u32 {
    let ms = 2.0 * distance_km * 1.4 / 200.0 + 2.0;
    (ms * 10.0).round() as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn thirty_four_cities_in_twenty_nine_countries() {
        let countries: HashSet<_> = PROBE_CITIES.iter().map(|c| c.country_code).collect();
        assert_eq!(PROBE_CITIES.len(), 34);
        assert_eq!(countries.len(), 29);
    }

    #[test]
    fn every_probe_country_can_be_billed() {
        // A customer shown the latency from their city can give that
        // country as their billing country.
        for city in &PROBE_CITIES {
            assert!(
                domain::order::country(city.country_code).is_some(),
                "{} ({}) is not a billing country",
                city.en,
                city.country_code
            );
        }
    }

    #[test]
    fn estimates_grow_with_distance() {
        let near = distance_km(52.37, 4.90, 50.11, 8.68);
        let far = distance_km(52.37, 4.90, 35.68, 139.65);
        assert!((300.0..400.0).contains(&near), "{near}");
        assert!(estimated_rtt_tenth_ms(far) > estimated_rtt_tenth_ms(near));
        assert_eq!(estimated_rtt_tenth_ms(0.0), 20);
    }
}
