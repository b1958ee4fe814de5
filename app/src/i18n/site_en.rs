use super::site::{Part, Site};

pub static SITE_EN: Site = Site {
    log_in: "Log in",
    sign_up: "Sign up",
    account_links_label: "Your account",
    footer_label: "About this site",
    support: "Support",
    terms: "Terms",
    privacy: "Privacy",
    imprint: "Imprint",

    support_title: "Support",
    support_description: "How to reach support for your GPU server, and what to tell us so we can help at once.",
    support_intro: "Support is run by the engineers who operate the hosts. Write to us by email; every message gets a person, not a ticket robot.",
    support_write_to: "Email support:",
    support_include_heading: "What to include",
    support_include: &[
        "The server’s id or name, as shown on its page in the portal.",
        "When it happened, with the time zone (UTC is easiest).",
        "What you expected and what happened instead: the exact error message, or a screenshot of the console.",
        "What you have tried so far: a reboot, the serial console, a snapshot restore.",
    ],
    support_no_promise: "Write from the address of your account, so we know the server is yours. We never ask for your password or your server’s root password.",
    support_self_heading: "Check first",
    support_self_intro: "The portal shows what we know about your servers as it happens: state, provisioning and restore progress, GPU telemetry, maintenance notices and the out-of-band consoles.",
    support_servers_link: "Your servers and their status",
    support_billing_link: "Invoices and billing",
    support_account_link: "Your account and security",
    support_scale: "If your next step needs four or eight cards, tell support what you’re trying to do. Sometimes the answer is a bare-metal server; occasionally it’s that we’re not the right supplier for you.",

    terms_title: "Terms of service",
    terms_description: "The short terms for renting a whole-card GPU server: monthly terms, cancellation, fair use and SLA credits.",
    terms_party: |company| {
        format!("These terms apply between you (the organization that orders) and {company}, the company named in the imprint.")
    },
    terms_parts: &[
        Part {
            heading: "What you rent",
            paras: &[
                "A dedicated server at the site you choose, with its GPUs passed through to your instance alone: no sharing, no time slicing. The plan’s cores, memory, NVMe storage and 40 Gbit/s port are as listed on the plans table when you order.",
            ],
        },
        Part {
            heading: "Monthly terms and payment",
            paras: &[
                "A server is rented in terms of one month, the first starting when it first runs; the minimum commitment is one month. Each term is invoiced at its start, in euros, plus VAT where it applies (reverse charge for businesses with a valid EU VAT ID in another member state).",
                "You pay by card through Stripe, or by bank transfer by the due date printed on the invoice. If an invoice stays unpaid after its due date and the grace period we write to you about, the server is suspended, with its data kept, until the invoice is paid.",
            ],
        },
        Part {
            heading: "Cancellation and wipe",
            paras: &[
                "You cancel in the portal, for the end of the current term or one of the two after it, and can take the cancellation back until that date. No term starting on or after that date is invoiced.",
                "At the end of the last term the server’s disks, volumes and snapshots are erased and the card goes back into the pool. This cannot be undone: move your data and checkpoints off before the date.",
            ],
        },
        Part {
            heading: "Fair use",
            paras: &[
                "Traffic on the 40 Gbit/s port has a fair-use cap of 250 TB a month. Don’t use the servers for anything unlawful, to attack or scan other networks, or to send unsolicited mail; we may suspend a server that does, and tell you why.",
            ],
        },
        Part {
            heading: "Maintenance",
            paras: &[
                "When a card shows signs of failing, we propose a window to replace it; most card swaps happen in a window you accepted. If a card fails outright, your instance is rebuilt on another host at the same site, with its volumes and addresses kept.",
            ],
        },
    ],
    terms_sla_heading: "Availability and credits",
    terms_sla_intro: "Each server is promised 99.99% availability per calendar month (UTC). Downtime counts from the moment its host is marked failed until it runs again; time inside a maintenance window you accepted does not count. When availability falls short, you get a credit of that month’s fee for the server (ex VAT), without a claim:",
    sla_availability: "Availability in the month",
    sla_credit: "Credit",
    sla_rows: &[
        ("99.99% or more", "none"),
        ("99.9% to below 99.99%", "10%"),
        ("99.0% to below 99.9%", "25%"),
        ("95.0% to below 99.0%", "50%"),
        ("below 95.0%", "100%"),
    ],
    terms_sla_after: &[
        "The credit, with the VAT that was charged on it, is set against your next invoice. Customers who pay by card get it on their Stripe balance, or refunded to the card if the server has ended.",
    ],

    privacy_title: "Privacy",
    privacy_description: "What we keep about you, why, for how long, who processes it, and the only two cookies this site sets.",
    privacy_controller: |company| {
        format!("{company} (see the imprint) is responsible for the personal data below. We keep what running your servers and your account needs, and nothing for advertising.")
    },
    privacy_parts: &[
        Part {
            heading: "What we keep",
            paras: &[
                "Your account: name, email address, a hash of your password (never the password), two-factor settings, and the organizations you belong to with your role in each.",
                "Billing: your organization’s legal name, address and VAT ID, orders, invoices, credit notes and payments. Bookkeeping law makes us keep these for years after the last invoice.",
                "The audit log: security- and money-relevant actions (logins, role changes, console openings, orders, cancellations) with who, when and from which IP address. Owners of your organization can read it in the portal.",
                "Telemetry of rented servers: GPU temperature, clocks, corrected memory errors and traffic, used to warn you before a card fails and to work out SLA credits. We do not look at the contents of your server; it is erased when the rental ends.",
                "Short-lived records: sessions end after 30 idle minutes and 12 hours at most; failed logins are kept for 2 days; sent mail for 30 days.",
            ],
        },
        Part {
            heading: "Who processes it for us",
            paras: &[
                "Stripe, for card payments, if you pay by card: it receives your payment details directly; we never see card numbers.",
                "The hosting company whose data centres run this site and your servers, at the sites listed on the home page.",
                "No one else: no analytics, advertising or tracking services.",
            ],
        },
        Part {
            heading: "Cookies",
            paras: &[
                "Two, both needed for the site to work: “lang”, which remembers the language you chose, and “session”, which keeps you signed in to the portal and protects its forms. No other cookies, and none from third parties.",
            ],
        },
        Part {
            heading: "Your rights",
            paras: &[
                "You can see and correct your account and billing profile in the portal, and delete your account there. You can ask us for a copy of the data we hold about you, or to correct or erase it, and you can complain to your data protection authority.",
            ],
        },
    ],
    privacy_contact: "Questions about your data:",

    imprint_title: "Imprint",
    imprint_description: "The company behind this site and the GPU servers it sells.",
    imprint_intro: "This site and the GPU servers it sells are provided by:",
    imprint_name: "Company",
    imprint_address: "Address",
    imprint_register: "Register",
    imprint_vat_id: "VAT ID",
    imprint_email: "Email",

    latency_country: "Country or region",
};
