use super::staff::Staff;

pub static STAFF_ZH: Staff = Staff {
    title: "员工",
    intro: "托管公司内部人员负责的事务。数字为加载本页时的统计。",
    nav_label: "员工区",
    nav_home: "员工首页",
    nav_hosts: "主机与维护",
    nav_orders: "订单",
    nav_finance: "财务",
    nav_outbox: "发件箱（开发环境）",
    nav_audit: "审计日志",
    no_hosts: "尚未上架任何主机。",
    none_open: "没有待付款的发票。",
    none: "无。",
    maintenance_summary: |degraded, windows| {
        format!("{degraded} 台主机报告故障，{windows} 个维护窗口未结束。")
    },
    orders_summary: |failed, waiting| {
        format!("近 30 天失败 {failed} 个，{waiting} 个已付款、等待交付服务器。")
    },
    finance_summary: |open, overdue, due| {
        format!("{open} 张未付发票（待收 {due}），其中 {overdue} 张逾期。")
    },
    outbox_summary: "开发服务器本应发出的邮件，含其中的链接。",
    audit_summary: "所有组织的安全与资金操作。",
    nav_maintenance: "维护",
    pay_open: "记录付款…",
    pay_date: "付款日期",
    pay_date_hint: "转账到账的日期，以银行流水为准。",
    pay_amount: "实收金额（€）",
    pay_amount_hint: |due| format!("应付金额：{due}。"),
    pay_differs: "实收金额与应付金额不符，仍然记录。",
    pay_reason: "差额原因（金额不符时必填）",
    pay_submit: "记录付款",
    void_open: "作废…",
    void_confirm: "这张发票开错了，将其作废。此操作无法撤销。",
    void_submit: "作废发票",
    write_off_open: "核销…",
    write_off_confirm: "客户不会付款，将这张发票核销为坏账。此操作无法撤销。",
    write_off_submit: "核销发票",
    reason: "原因",
    reason_hint: "随发票保存，并记入审计日志。",
    err_date: "请按银行流水填写付款日期（YYYY-MM-DD）。",
    err_date_future: "付款日期不能晚于今天。",
    err_date_before: "付款日期不能早于开票日期。",
    err_amount: "请填写实收金额（欧元），例如 284.41。",
    err_amount_differs: |due| {
        format!("实收金额与应付金额（{due}）不符。请核对，或勾选“金额不符”并说明原因。")
    },
    err_reason: "请填写原因：它会随发票保存，并记入审计日志。",
    err_confirm: "请勾选确认后再关闭发票。",
    settled_title: "手动结清的发票",
    settled_hint: "财务标记为已付款、作废或核销的发票，最近的在前。",
    col_invoice: "发票",
    col_customer: "客户",
    col_paid_on: "付款日期",
    col_received: "实收",
    col_reason: "原因",
    col_recorded: "记录于",
    written_off: "已核销",
};
