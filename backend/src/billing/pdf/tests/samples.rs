//! Two sample invoices, one per language, with long lines that wrap.

use domain::Lang;

use crate::billing::pdf::InvoiceDocument;

pub(super) fn english() -> InvoiceDocument {
    InvoiceDocument {
        lang: Lang::En,
        title: "Invoice".into(),
        number: "INV-2026-000001".into(),
        status: "Open".into(),
        seller_lines: vec![
            "Example GPU Hosting B.V. (development)".into(),
            "Keizersgracht 1, 1015 CJ Amsterdam, Netherlands".into(),
            "VAT NL000000000B01".into(),
        ],
        customer_lines: vec![
            "Acme Research GmbH".into(),
            "Hauptstraße 5".into(),
            "10115 Berlin".into(),
            "Germany".into(),
            "VAT DE123456789".into(),
        ],
        facts: vec![
            ("Invoice date".into(), "1 March 2026".into()),
            ("Due date".into(), "15 March 2026".into()),
            (
                "Service period".into(),
                "1 March 2026 – 31 March 2026".into(),
            ),
        ],
        lines: vec![
            (
                "GPU server gpu-a100-01 (1× NVIDIA A100 80 GB, 32 vCPU, 256 GB RAM), \
                 monthly rental, 1 March 2026 – 31 March 2026"
                    .into(),
                "€1,420.00".into(),
            ),
            ("Extra IPv4 address".into(), "€4.00".into()),
            ("Snapshot storage 500 GB".into(), "€239.00".into()),
        ],
        totals: vec![
            ("Net".into(), "€1,663.00".into(), false),
            (
                "VAT reverse charged: the customer accounts for VAT \
                 (Article 196, Directive 2006/112/EC)"
                    .into(),
                "€0.00".into(),
                false,
            ),
            ("Total".into(), "€1,663.00".into(), true),
            ("Credit applied".into(), "-€100.00".into(), false),
            ("Amount due".into(), "€1,563.00".into(), true),
        ],
        payment_lines: vec![
            "Please pay by bank transfer by 15 March 2026.".into(),
            "IBAN NL00 TEST 0000 0000 00".into(),
            "BIC TESTNL2A".into(),
            "Reference INV-2026-000001".into(),
        ],
        footer: "Example GPU Hosting B.V. (development) · Keizersgracht 1, 1015 CJ \
                 Amsterdam · VAT NL000000000B01 · Questions: billing@example.com"
            .into(),
    }
}

pub(super) fn chinese() -> InvoiceDocument {
    InvoiceDocument {
        lang: Lang::Zh,
        title: "发票".into(),
        number: "INV-2026-000002".into(),
        status: "待付款".into(),
        seller_lines: vec![
            "Example GPU Hosting B.V. (development)".into(),
            "Keizersgracht 1, 1015 CJ Amsterdam, Netherlands".into(),
            "增值税号 NL000000000B01".into(),
        ],
        customer_lines: vec![
            "北京深度计算科技有限公司".into(),
            "北京市海淀区中关村大街 1 号".into(),
            "中国".into(),
        ],
        facts: vec![
            ("开票日期".into(), "2026年3月1日".into()),
            ("到期日".into(), "2026年3月15日".into()),
            ("服务期间".into(), "2026年3月1日 – 2026年3月31日".into()),
        ],
        lines: vec![
            (
                "GPU 服务器 gpu-a100-01（1× NVIDIA A100 80 GB，32 vCPU，256 GB 内存），\
                 月租，2026年3月1日至2026年3月31日"
                    .into(),
                "€239.00".into(),
            ),
            ("额外 IPv4 地址".into(), "€4.00".into()),
        ],
        totals: vec![
            ("不含税金额".into(), "€243.00".into(), false),
            (
                "增值税 0%（出口服务，不在欧盟征税范围内）".into(),
                "€0.00".into(),
                false,
            ),
            ("合计".into(), "€243.00".into(), true),
            ("应付金额".into(), "€243.00".into(), true),
        ],
        payment_lines: vec![
            "请于2026年3月15日前通过银行转账付款。".into(),
            "IBAN NL00 TEST 0000 0000 00".into(),
            "BIC TESTNL2A".into(),
            "付款备注 INV-2026-000002".into(),
        ],
        footer: "Example GPU Hosting B.V. (development) · 阿姆斯特丹 · 增值税号 \
                 NL000000000B01 · 如有疑问请联系 billing@example.com"
            .into(),
    }
}
