use super::support::Support;

pub static SUPPORT_EN: Support = Support {
    nav: "Support",
    list_title: "Support requests",
    list_intro: "Questions to the engineers who run the hosts: scaling out, a server that misbehaves, an invoice, your account. Each request is a conversation; we mail you when we reply.",
    new_button: "New request",
    empty_title: "No requests yet",
    empty_body: "When you need us, open a request: say what you are trying to do and what you see. Planning to scale out, or a card that runs slower than it should? Those are exactly the questions we like to get early.",
    col_reference: "Reference",
    col_subject: "Subject",
    col_category: "Category",
    col_state: "State",
    col_server: "Server",
    col_activity: "Last activity",
    no_server: "—",
    cat_scaling: "Scaling out / capacity planning",
    cat_hardware: "Hardware or performance concern",
    cat_billing: "Billing",
    cat_account: "Account",
    cat_other: "Something else",
    cat_scaling_hint: "More cards, bigger models, a larger setup: tell us the plan before you buy.",
    cat_hardware_hint: "A server that is slow, hot, unstable or unreachable. We attach its recent telemetry for our engineers.",
    cat_billing_hint: "Invoices, payments, VAT. Only owners and billing members of your organization see these requests.",
    cat_account_hint: "Sign-in, members, two-factor authentication, your organization.",
    cat_other_hint: "Anything that fits nowhere else.",
    state_open: "Open",
    state_waiting: "Waiting for you",
    state_answered: "With support",
    state_closed: "Closed",
    new_title: "New support request",
    new_intro: "Write in plain text, as you would in an email. Your organization’s members who may see the category can follow the conversation.",
    field_category: "What is it about?",
    field_subject: "Subject",
    subject_hint: |min, max| format!("A short summary, {min} to {max} characters."),
    field_body: "Message",
    body_hint: |max| {
        format!("Plain text, up to {} characters. Line breaks are kept; HTML is shown as typed.", group(max))
    },
    field_server: "Server",
    server_none: "No particular server",
    server_hint: "Required for a hardware or performance concern.",
    no_servers: "Your organization has no servers yet.",
    scaling_legend: "Only for scaling out",
    scaling_hint: "Optional, and only read for a scaling-out request: the more we know, the better our answer.",
    field_cards: "How many cards?",
    cards_more: "More than 8",
    field_workload: "For what workload?",
    workload_other: "Something else",
    field_model_size: "Model size",
    model_size_hint: "For example “70B, FP16” or “13B, 4-bit”. Up to 200 characters.",
    field_timeline: "When?",
    timeline_month: "This month",
    timeline_quarter: "Within 3 months",
    timeline_later: "Later",
    timeline_unsure: "Not sure yet",
    choose: "Choose…",
    new_submit: "Send request",
    back_to_list: "All support requests",
    label_category: "Category",
    label_state: "State",
    label_server: "Server",
    label_opened: "Opened",
    plan_title: "Your scaling-out plan",
    messages_title: "Conversation",
    support_team: "Support team",
    system_author: "Automatic message",
    from: "From",
    reply_title: "Reply",
    reply_submit: "Send reply",
    close_title: "Close this request",
    close_confirm: "Yes, my question is answered: close the request",
    close_submit: "Close request",
    closed_on: |date| format!("Closed on {date}."),
    reopen_until: |date| format!("Not solved after all? You can reopen it until {date}."),
    reopen_submit: "Reopen request",
    reopen_expired: "This request was closed more than 30 days ago and can’t be reopened.",
    open_new_link: "Open a new request",
    done_opened: "Request sent. We’ll reply here and let you know by email.",
    done_replied: "Reply sent.",
    done_closed: "Request closed.",
    done_reopened: "Request reopened. Support will pick it up again.",
    err_subject: |min, max| format!("Give the request a subject of {min} to {max} characters."),
    err_body: |max| format!("Write a message of at most {} characters.", group(max)),
    err_category: "Choose one of the categories offered.",
    err_server: "Choose the server this concern is about.",
    err_closed: "This request is closed. Reopen it to reply.",
    err_reopen_expired: "This request was closed more than 30 days ago. Please open a new one.",
    err_too_many: |minutes| {
        if minutes == 1 {
            "You have sent many replies in a short time. Please wait a minute and try again.".to_owned()
        } else {
            format!("You have sent many replies in a short time. Please wait {minutes} minutes and try again.")
        }
    },
    err_scaling: "Keep each answer about scaling out to 200 characters at most.",
    storefront_link: "Open a support request in the portal",
    step_link: "Tell support about your scaling-out plan",
    storefront_link_note: "You log in (or create an account) first; the form opens right after.",
};

/// 10000 as "10,000".
fn group(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
