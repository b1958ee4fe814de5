//! The shape of the home page's long-form copy. Each language fills in one
//! [`Content`]; lists are fixed-size arrays, so a language that drops a field
//! or an item fails to compile instead of rendering a hole.

/// Every piece of long-form text on the home page, in one language.
///
/// The wording follows the seed page (`shared/seed/storefront-page.txt`);
/// both languages must make the same promises with the same numbers. Plan
/// names, prices and the per-site notes are not here: they live in the
/// database with the catalogue.
pub struct Content {
    // Hero.
    pub hero_title: &'static str,
    pub hero_body: &'static str,
    /// One-line summary of the host under every plan, shown with the plans.
    pub host_line: &'static str,
    pub latency_title: &'static str,
    pub latency_body: &'static str,

    // Passthrough.
    pub passthrough_title: &'static str,
    pub passthrough_intro: &'static str,
    pub passthrough_callout: &'static str,
    pub passthrough_paras: [&'static str; 2],
    pub passthrough_points: [Highlight; 4],

    // What the cards are good for.
    pub workloads_title: &'static str,
    pub workloads_intro: [&'static str; 2],
    pub workloads_body: &'static str,
    pub workloads_caption: &'static str,
    /// Column headers: workload, which card, the real bottleneck.
    pub workloads_headers: [&'static str; 3],
    pub workloads: [Workload; 6],

    // Who should not buy.
    pub not_for_title: &'static str,
    pub not_for_intro: [&'static str; 2],
    /// In the order of [`NOT_FOR_IDS`].
    pub not_for: [NotFor; 5],

    // The host around the card.
    pub host_title: &'static str,
    pub host_intro: &'static str,
    pub host_summary: &'static str,
    /// Cores, ECC memory, NVMe, the 40 Gbit/s port, the out-of-band console.
    pub host_items: [Highlight; 5],
    pub host_closing: &'static str,

    // Where the cards are. The live sites table is rendered around these.
    pub sites_title: &'static str,
    pub sites_subtitle: &'static str,
    /// The list of cities; Frankfurt, Dallas and Los Angeles; how fast stock moves.
    pub sites_paras: [&'static str; 3],

    // Long jobs.
    pub long_jobs_title: &'static str,
    pub long_jobs_intro: &'static str,
    pub long_jobs_callout: &'static str,
    pub long_jobs_steps: [Step; 5],

    // Hardware failure and the SLA.
    pub failure_title: &'static str,
    pub failure_intro: &'static str,
    pub failure_subtitle: &'static str,
    pub failure_paras: [&'static str; 2],
    /// Early warning; same volumes and addresses; automatic SLA credits.
    pub failure_callouts: [Highlight; 3],

    // Questions.
    pub faq_title: &'static str,
    /// The last but one answers what an SLA breach earns, in the same words
    /// as the failure section and the footer.
    pub faqs: [Faq; 7],
}

/// A short titled paragraph, one of a grid of points.
pub struct Highlight {
    pub title: &'static str,
    pub body: &'static str,
}

/// One row of the "which card for which workload" table.
pub struct Workload {
    pub workload: &'static str,
    pub card: &'static str,
    pub bottleneck: &'static str,
}

/// A kind of buyer this line is wrong for. The `id` is the same in every
/// language, so the order summary can point at the items that apply.
pub struct NotFor {
    /// One of [`NOT_FOR_IDS`].
    pub id: &'static str,
    pub title: &'static str,
    pub body: &'static str,
}

/// The stable ids of [`Content::not_for`], in display order.
pub const NOT_FOR_IDS: [&str; 5] = [
    "from-scratch",
    "per-second",
    "wont-fit",
    "fp64",
    "managed-stack",
];

/// One numbered step of the long-jobs checklist.
pub struct Step {
    /// Displayed as written: "01" to "05".
    pub number: &'static str,
    pub title: &'static str,
    pub body: &'static str,
}

pub struct Faq {
    pub question: &'static str,
    pub answer: &'static str,
}

#[cfg(test)]
mod tests {
    use super::super::content_en::CONTENT_EN;
    use super::super::content_zh::CONTENT_ZH;
    use super::*;

    /// Every string of a `Content`. The exhaustive destructuring makes a new
    /// field fail to compile here until the checks below cover it.
    fn all_texts(c: &'static Content) -> Vec<&'static str> {
        let Content {
            hero_title,
            hero_body,
            host_line,
            latency_title,
            latency_body,
            passthrough_title,
            passthrough_intro,
            passthrough_callout,
            passthrough_paras,
            passthrough_points,
            workloads_title,
            workloads_intro,
            workloads_body,
            workloads_caption,
            workloads_headers,
            workloads,
            not_for_title,
            not_for_intro,
            not_for,
            host_title,
            host_intro,
            host_summary,
            host_items,
            host_closing,
            sites_title,
            sites_subtitle,
            sites_paras,
            long_jobs_title,
            long_jobs_intro,
            long_jobs_callout,
            long_jobs_steps,
            failure_title,
            failure_intro,
            failure_subtitle,
            failure_paras,
            failure_callouts,
            faq_title,
            faqs,
        } = c;
        let mut texts = vec![
            *hero_title,
            *hero_body,
            *host_line,
            *latency_title,
            *latency_body,
            *passthrough_title,
            *passthrough_intro,
            *passthrough_callout,
            *workloads_title,
            *workloads_body,
            *workloads_caption,
            *not_for_title,
            *host_title,
            *host_intro,
            *host_summary,
            *host_closing,
            *sites_title,
            *sites_subtitle,
            *long_jobs_title,
            *long_jobs_intro,
            *long_jobs_callout,
            *failure_title,
            *failure_intro,
            *failure_subtitle,
            *faq_title,
        ];
        for list in [
            &passthrough_paras[..],
            &workloads_intro[..],
            &workloads_headers[..],
            &not_for_intro[..],
            &sites_paras[..],
            &failure_paras[..],
        ] {
            texts.extend_from_slice(list);
        }
        for h in passthrough_points
            .iter()
            .chain(host_items)
            .chain(failure_callouts)
        {
            texts.extend([h.title, h.body]);
        }
        for w in workloads {
            texts.extend([w.workload, w.card, w.bottleneck]);
        }
        for n in not_for {
            texts.extend([n.id, n.title, n.body]);
        }
        for s in long_jobs_steps {
            texts.extend([s.number, s.title, s.body]);
        }
        for f in faqs {
            texts.extend([f.question, f.answer]);
        }
        texts
    }

    fn is_cjk(ch: char) -> bool {
        matches!(ch, '\u{3000}'..='\u{303f}' | '\u{4e00}'..='\u{9fff}' | '\u{ff00}'..='\u{ffef}')
    }

    #[test]
    fn no_text_is_empty_or_padded() {
        for c in [&CONTENT_ZH, &CONTENT_EN] {
            for text in all_texts(c) {
                assert!(!text.trim().is_empty(), "empty text");
                assert_eq!(text, text.trim(), "stray whitespace in {text:?}");
            }
        }
    }

    #[test]
    fn english_has_no_chinese_left_in_it() {
        for text in all_texts(&CONTENT_EN) {
            assert!(!text.chars().any(is_cjk), "untranslated: {text:?}");
        }
    }

    #[test]
    fn not_for_ids_are_stable_in_both_languages() {
        for c in [&CONTENT_ZH, &CONTENT_EN] {
            let ids: Vec<_> = c.not_for.iter().map(|n| n.id).collect();
            assert_eq!(ids, NOT_FOR_IDS);
        }
    }

    #[test]
    fn steps_are_numbered_in_order() {
        for c in [&CONTENT_ZH, &CONTENT_EN] {
            let numbers: Vec<_> = c.long_jobs_steps.iter().map(|s| s.number).collect();
            assert_eq!(numbers, ["01", "02", "03", "04", "05"]);
        }
    }

    /// docs/decisions/content.md: the host has 32 cores, not
    /// the seed's 48; fair use is 合理使用; figures are Arabic numerals.
    #[test]
    fn copy_keeps_the_content_decisions() {
        for c in [&CONTENT_ZH, &CONTENT_EN] {
            let all = all_texts(c).concat();
            for wrong in [
                "48 EPYC",
                "48 个 EPYC",
                "四十八个 EPYC",
                "公平使用",
                "吉字节",
                "吉比特",
            ] {
                assert!(!all.contains(wrong), "{wrong:?}");
            }
        }
        let zh: Vec<char> = all_texts(&CONTENT_ZH).concat().chars().collect();
        for (i, pair) in zh.windows(2).enumerate() {
            let numeral = "一二三四五六七八九十百千两".contains(pair[0]);
            let unit = [pair[1], *zh.get(i + 2).unwrap_or(&' ')];
            assert!(
                !(numeral && matches!(unit, [' ', 'G' | 'T'] | ['G' | 'T', 'B'])),
                "Chinese numeral before a unit: {}",
                zh[i.saturating_sub(4)..(i + 6).min(zh.len())]
                    .iter()
                    .collect::<String>()
            );
        }
    }

    /// The figures a buyer relies on must be stated in both languages.
    #[test]
    fn key_figures_appear_in_both_languages() {
        for c in [&CONTENT_ZH, &CONTENT_EN] {
            let all = all_texts(c).concat();
            for figure in [
                "99.99%",
                "250",
                "DDR5-4800",
                "EPYC 9354P",
                "PCIe 4.0",
                "NUMA",
            ] {
                assert!(all.contains(figure), "{figure} missing");
            }
        }
    }
}
