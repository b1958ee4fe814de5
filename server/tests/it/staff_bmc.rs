//! Hosts' BMCs on the staff hosts page, through HTTP as staff, against the
//! Redfish emulator: setting a BMC (its password never shown again, not
//! even on a refused form), checking a host (it matches its plan, is
//! refused and leaves stock, or its BMC answers 401), a host with an
//! unchecked BMC kept out of stock, and customers kept out of both forms.

use crate::common::redfish_bmc::{Emulator, FakeHost};
use crate::common::{strip_tags, TestApp, TestDb};

on_both_databases!(
    a_checked_host_shows_what_its_bmc_read_and_may_go_back_into_stock,
    a_host_without_its_plans_gpus_is_refused_and_stays_out_of_stock,
    a_wrong_bmc_password_is_reported_and_never_shown,
    only_staff_may_set_or_check_a_bmc,
);

/// A BMC emulator with one server holding `gpus` L40S cards.
async fn bmc_with_l40s(gpus: usize) -> Emulator {
    Emulator::start(&[FakeHost {
        name: "gpu-host".to_owned(),
        gpus: vec!["NVIDIA L40S".to_owned(); gpus],
        secure_erase: false,
        ignores_graceful: false,
    }])
    .await
}

/// The first free demo host of a plan in Dallas.
fn free_host(app: &TestApp, plan: &str) -> String {
    app.host_names("dal", plan, "free")
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("a free {plan} host in Dallas"))
}

/// Posts the BMC form for `host` in `lang`.
async fn set_bmc(
    app: &TestApp,
    staff: &reqwest::Client,
    lang: &str,
    fields: &[(&str, &str)],
) -> crate::common::Page {
    app.post_as(
        staff,
        &format!("/{lang}/staff/hosts"),
        &format!("/{lang}/staff/hosts/bmc"),
        fields,
        &[],
    )
    .await
}

async fn check(app: &TestApp, staff: &reqwest::Client, host: &str) -> crate::common::Page {
    app.post_as(
        staff,
        "/en/staff/hosts",
        "/en/staff/hosts/check",
        &[("host", host)],
        &[],
    )
    .await
}

async fn set_state(
    app: &TestApp,
    staff: &reqwest::Client,
    lang: &str,
    host: &str,
    state: &str,
) -> crate::common::Page {
    app.post_as(
        staff,
        &format!("/{lang}/staff/hosts"),
        &format!("/{lang}/staff/hosts/set"),
        &[
            ("name", host),
            ("state", state),
            ("reason", "after the BMC check"),
        ],
        &[],
    )
    .await
}

/// A host's row in the BMC table, as text.
fn bmc_row(page: &str, host: &str) -> String {
    let row = page
        .split(&format!("data-bmc=\"{host}\""))
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .unwrap_or_default();
    strip_tags(&format!("<x {row}"))
}

/// A host's row in the hosts list, as text.
fn host_row(page: &str, host: &str) -> String {
    let row = page
        .split(&format!("data-host=\"{host}\""))
        .nth(1)
        .and_then(|rest| rest.split("</tr>").next())
        .unwrap_or_default();
    strip_tags(&format!("<x {row}"))
}

async fn a_checked_host_shows_what_its_bmc_read_and_may_go_back_into_stock(db: TestDb) {
    let bmc = bmc_with_l40s(1).await;
    let app = TestApp::spawn(db).await;
    let staff = app.staff("ops@host.example").await;
    let host = free_host(&app, "g-l40s");

    let before = app.get_as(&staff, "/en/staff/hosts").await.body;
    assert!(
        host_row(&before, &host).contains("no BMC (simulated)"),
        "{}",
        host_row(&before, &host)
    );
    let zh = app.get_as(&staff, "/zh/staff/hosts").await.body;
    assert!(host_row(&zh, &host).contains("无 BMC（模拟）"));

    let set = set_bmc(
        &app,
        &staff,
        "en",
        &[
            ("host", &host),
            ("url", &bmc.url),
            ("user", &bmc.user),
            ("password", &bmc.password),
            ("self_signed", "1"),
            ("serial", "ipmi"),
            ("serial_command", ""),
            ("vnc_port", "5900"),
        ],
    )
    .await;
    assert_eq!(
        set.location(),
        "/en/staff/hosts?done=bmc#bmc",
        "{}",
        strip_tags(&set.body)
    );
    let page = app.get_as(&staff, "/en/staff/hosts?done=bmc").await.body;
    assert!(strip_tags(&page).contains("The BMC is saved."));
    let row = bmc_row(&page, &host);
    for shown in [
        bmc.url.as_str(),
        bmc.user.as_str(),
        "certificate not verified (self-signed accepted)",
        "IPMI Serial-over-LAN",
        "Not checked yet",
    ] {
        assert!(row.contains(shown), "{shown} in {row}");
    }
    assert!(host_row(&page, &host).contains("not checked"));

    // Unchecked, it may not go back into stock.
    set_state(&app, &staff, "en", &host, "maintenance").await;
    let refused = set_state(&app, &staff, "en", &host, "free").await;
    assert_eq!(refused.status, 409, "{}", strip_tags(&refused.body));
    assert!(strip_tags(&refused.body).contains("has not passed its check"));

    let checked = check(&app, &staff, &host).await;
    assert_eq!(
        checked.location(),
        format!("/en/staff/hosts?check=passed&host={host}#bmc-{host}")
    );
    let page = app
        .get_as(&staff, &format!("/en/staff/hosts?check=passed&host={host}"))
        .await
        .body;
    assert!(
        strip_tags(&page).contains(&format!(
            "{host}: the BMC was read and the host matches its plan."
        )),
        "{}",
        strip_tags(&page)
    );
    let serial = format!("SN{}", bmc.system_ids[0][..8].to_uppercase());
    let row = bmc_row(&page, &host);
    for shown in ["Supermicro", &serial, "2.6.0", "off", "NVIDIA L40S"] {
        assert!(row.contains(shown), "{shown} in {row}");
    }
    assert!(!page.contains("data-testid=\"bmc-check-error\""));
    let listed = host_row(&page, &host);
    assert!(
        listed.contains("checked") && !listed.contains("not checked"),
        "{listed}"
    );
    let zh = app
        .get_as(&staff, &format!("/zh/staff/hosts?check=passed&host={host}"))
        .await
        .body;
    let zh_text = strip_tags(&zh);
    assert!(
        zh_text.contains(&format!("{host}：已读取 BMC，主机与其方案相符。")),
        "{zh_text}"
    );
    assert!(bmc_row(&zh, &host).contains("证书未验证（已接受自签名证书）"));
    assert!(bmc_row(&zh, &host).contains("关机"));

    let free = set_state(&app, &staff, "en", &host, "free").await;
    assert_eq!(
        free.location(),
        "/en/staff/hosts?done=1",
        "{}",
        strip_tags(&free.body)
    );
    assert!(app.host_names("dal", "g-l40s", "free").contains(&host));

    // Audited, in words, without the password.
    let audit = app.get_as(&staff, "/en/staff/audit").await.body;
    let audit_text = strip_tags(&audit);
    assert!(audit_text.contains("set a host’s BMC"), "{audit_text}");
    assert!(audit_text.contains(&format!("{host}: {} as {}", bmc.url, bmc.user)));
    for page in [&before, &zh, &page, &audit] {
        assert!(
            !page.contains(&bmc.password),
            "the BMC password is never on a page"
        );
    }
    app.finish().await;
}

async fn a_host_without_its_plans_gpus_is_refused_and_stays_out_of_stock(db: TestDb) {
    let bmc = bmc_with_l40s(1).await;
    let app = TestApp::spawn(db).await;
    let staff = app.staff("ops@host.example").await;
    let host = free_host(&app, "g-l40s-x2");
    let set = set_bmc(
        &app,
        &staff,
        "zh",
        &[
            ("host", &host),
            ("url", &bmc.url),
            ("user", &bmc.user),
            ("password", &bmc.password),
            ("serial", "ssh"),
            ("serial_command", "console com2"),
            ("vnc_port", "5901"),
        ],
    )
    .await;
    assert_eq!(set.location(), "/zh/staff/hosts?done=bmc#bmc");
    let page = app.get_as(&staff, "/zh/staff/hosts?done=bmc").await.body;
    let row = bmc_row(&page, &host);
    assert!(row.contains("BMC 的 SSH 控制台"), "{row}");
    assert!(
        !page.contains("data-testid=\"self-signed\""),
        "a verified certificate has no badge"
    );

    let checked = check(&app, &staff, &host).await;
    assert_eq!(
        checked.location(),
        format!("/en/staff/hosts?check=refused&host={host}#bmc-{host}")
    );
    // One card where the plan needs two: out of stock, and the page says why.
    assert_eq!(
        app.host_names("dal", "g-l40s-x2", "maintenance"),
        vec![host.clone()]
    );
    let why = "the BMC lists NVIDIA L40S; the plan needs 2 × L40S";
    let page = app
        .get_as(
            &staff,
            &format!("/en/staff/hosts?check=refused&host={host}"),
        )
        .await
        .body;
    let text = strip_tags(&page);
    assert!(
        text.contains(&format!(
            "{host} is refused and kept out of stock. The BMC check says: {why}"
        )),
        "{text}"
    );
    assert!(page.contains("data-testid=\"bmc-check-error\""));
    assert!(bmc_row(&page, &host).contains(why));
    let zh = app
        .get_as(
            &staff,
            &format!("/zh/staff/hosts?check=refused&host={host}"),
        )
        .await
        .body;
    assert!(strip_tags(&zh).contains(&format!(
        "{host} 未通过检查，已移出库存。BMC 检查结果：{why}"
    )));

    for (lang, error) in [
        (
            "en",
            "This host’s BMC has not passed its check: check the host, then set it free.",
        ),
        (
            "zh",
            "这台主机的 BMC 尚未通过检查：请先检查主机，再将其设为空闲。",
        ),
    ] {
        let refused = set_state(&app, &staff, lang, &host, "free").await;
        assert_eq!(refused.status, 409);
        assert!(
            strip_tags(&refused.body).contains(error),
            "{}",
            strip_tags(&refused.body)
        );
    }
    assert_eq!(
        app.host_names("dal", "g-l40s-x2", "maintenance"),
        vec![host]
    );
    app.finish().await;
}

async fn a_wrong_bmc_password_is_reported_and_never_shown(db: TestDb) {
    let bmc = bmc_with_l40s(1).await;
    let app = TestApp::spawn(db).await;
    let staff = app.staff("ops@host.example").await;
    let host = free_host(&app, "g-l40s");

    // A refused form comes back with what was typed, but not the password.
    let typed = "typed-secret-4711";
    let refused = set_bmc(
        &app,
        &staff,
        "en",
        &[
            ("host", &host),
            ("url", "https://10.20.0.15/redfish/v1"),
            ("user", "fleet"),
            ("password", typed),
        ],
    )
    .await;
    assert_eq!(refused.status, 422);
    assert!(strip_tags(&refused.body).contains("Enter the BMC’s address as https://host"));
    assert!(refused
        .body
        .contains("value=\"https://10.20.0.15/redfish/v1\""));
    assert!(!refused.body.contains(typed));
    let zh = set_bmc(
        &app,
        &staff,
        "zh",
        &[
            ("host", &host),
            ("url", &bmc.url),
            ("user", "fleet"),
            ("password", typed),
            ("vnc_port", "0"),
        ],
    )
    .await;
    assert_eq!(zh.status, 422);
    assert!(strip_tags(&zh.body).contains("请填写 VNC 端口"));
    assert!(!zh.body.contains(typed));

    let wrong = "not-the-bmc-password";
    let set = set_bmc(
        &app,
        &staff,
        "en",
        &[
            ("host", &host),
            ("url", &bmc.url),
            ("user", &bmc.user),
            ("password", wrong),
        ],
    )
    .await;
    assert_eq!(set.location(), "/en/staff/hosts?done=bmc#bmc");
    let checked = check(&app, &staff, &host).await;
    assert_eq!(
        checked.location(),
        format!("/en/staff/hosts?check=failed&host={host}#bmc-{host}")
    );
    let refused_login = "the BMC refused the user name or password (401)";
    let page = app
        .get_as(&staff, &format!("/en/staff/hosts?check=failed&host={host}"))
        .await
        .body;
    let text = strip_tags(&page);
    assert!(
        text.contains(&format!("The BMC of {host} could not be read.")),
        "{text}"
    );
    assert!(text.contains(refused_login), "{text}");
    assert!(bmc_row(&page, &host).contains(refused_login));
    let zh = app
        .get_as(&staff, &format!("/zh/staff/hosts?check=failed&host={host}"))
        .await
        .body;
    assert!(strip_tags(&zh).contains(&format!("无法读取 {host} 的 BMC。")));

    // The host's history has it too.
    let history = app.ops_ok(&["hosts", "history", &host]);
    assert!(history.contains(refused_login), "{history}");
    // The new BMC took the free host out of stock until a check passes,
    // and a check that could not read the BMC left it there.
    assert!(app
        .host_names("dal", "g-l40s", "maintenance")
        .contains(&host));
    assert!(
        history.contains("BMC changed; waiting for its check"),
        "{history}"
    );
    for page in [&page, &zh] {
        assert!(!page.contains(wrong) && !page.contains(typed));
    }
    app.finish().await;
}

async fn only_staff_may_set_or_check_a_bmc(db: TestDb) {
    let bmc = bmc_with_l40s(1).await;
    let app = TestApp::spawn(db).await;
    let owner = app.member("owner@acme.example", "Owner", "Acme").await;
    let host = free_host(&app, "g-l40s");
    let set = app
        .post_as(
            &owner,
            "/en/account",
            "/en/staff/hosts/bmc",
            &[
                ("host", &host),
                ("url", &bmc.url),
                ("user", &bmc.user),
                ("password", &bmc.password),
            ],
            &[],
        )
        .await;
    assert_eq!(set.status, 403);
    let checked = app
        .post_as(
            &owner,
            "/en/account",
            "/en/staff/hosts/check",
            &[("host", &host)],
            &[],
        )
        .await;
    assert_eq!(checked.status, 403);

    // Nothing was set: staff see no BMC for the host.
    let staff = app.staff("ops@host.example").await;
    let page = app.get_as(&staff, "/en/staff/hosts").await.body;
    assert!(host_row(&page, &host).contains("no BMC (simulated)"));
    assert!(!page.contains(&format!("data-bmc=\"{host}\"")));
    app.finish().await;
}
