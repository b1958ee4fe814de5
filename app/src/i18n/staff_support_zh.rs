use super::grouped;
use super::staff_support::StaffSupport;
use domain::support::{Category, State};

/// "2 小时 10 分钟"、"45 分钟"、"3 天 4 小时"。
fn span(secs: i64) -> String {
    let secs = secs.max(0);
    let (days, hours, minutes) = (secs / 86_400, secs % 86_400 / 3_600, secs % 3_600 / 60);
    match (days, hours, minutes) {
        (0, 0, 0) => "不到 1 分钟".to_owned(),
        (0, 0, m) => format!("{m} 分钟"),
        (0, h, 0) => format!("{h} 小时"),
        (0, h, m) => format!("{h} 小时 {m} 分钟"),
        (d, 0, _) => format!("{d} 天"),
        (d, h, _) => format!("{d} 天 {h} 小时"),
    }
}

/// 超过一小时后只说小时。
fn coarse(secs: i64) -> String {
    if (3_600..86_400).contains(&secs) {
        format!("{} 小时", secs / 3_600)
    } else {
        span(secs)
    }
}

pub static STAFF_SUPPORT_ZH: StaffSupport = StaffSupport {
    nav: "工单",
    home_summary: "客户的工单，等待最久的排在最前。",
    queue_title: "工单",
    queue_intro: "等待我们处理的工单排在前面，等待最久的在最上方；其后是等待客户回复的工单。",
    counts_label: "各状态的工单数",
    state: |state| match state {
        State::Open => "新请求",
        State::Waiting => "等待客户回复",
        State::Answered => "客户已回复",
        State::Closed => "已关闭",
    },
    category: |category| match category {
        Category::Scaling => "扩容 / 容量规划",
        Category::Hardware => "硬件或性能",
        Category::Billing => "账单",
        Category::Account => "账户",
        Category::Other => "其他",
    },
    filter_title: "筛选",
    filter_state: "状态",
    filter_category: "类别",
    filter_site: "机房",
    filter_age: "时长",
    filter_search: "编号、主题或组织包含",
    all_not_closed: "所有未关闭的",
    all: "全部",
    age_any: "不限",
    age_older: |hours| format!("超过 {hours} 小时"),
    filter_submit: "筛选",
    empty: "没有符合筛选条件的请求。",
    col_reference: "编号",
    col_organization: "组织",
    col_subject: "主题",
    col_category: "类别",
    col_state: "状态",
    col_server: "服务器",
    col_opened: "提交时间",
    col_waiting: "客户等待",
    col_first_response: "首次响应",
    col_assignee: "负责人",
    waiting: |secs| format!("已等待 {}", coarse(secs)),
    not_waiting: "—",
    duration: span,
    not_yet: "尚未响应",
    unassigned: "未分配",
    no_server: "—",
    thread_title: |reference| format!("工单 {reference}"),
    back: "全部工单",
    opened_by: "提交人",
    closed_by: "关闭方",
    scaling_title: "扩容计划",
    scaling_cards: "显卡数量",
    scaling_workload: "工作负载",
    scaling_model_size: "模型规模",
    scaling_timeline: "时间安排",
    messages_title: "对话",
    internal_badge: "内部备注——客户永远看不到",
    system_badge: "系统消息（附带遥测数据）",
    author_customer: "客户",
    author_staff: "员工",
    reply_title: "回复客户",
    reply_hint: "客户会收到一封带有请求链接的邮件，之后请求等待客户回复。",
    reply_submit: "发送回复",
    note_title: "内部备注",
    note_hint: "只有员工可见；不会改变请求状态，也不会发送邮件。",
    note_submit: "添加内部备注",
    body_hint: |max| format!("纯文本，最多 {} 个字符。", grouped(max)),
    assign_title: "分配",
    assign_label: "员工",
    assign_submit: "分配",
    close_title: "关闭",
    close_hint: "客户可在 30 天内重新打开。",
    close_submit: "关闭请求",
    closed_note: "此请求已关闭。",
    done_reply: "回复已发送，已通过邮件通知客户。",
    done_note: "已添加内部备注。",
    done_assign: "分配已保存。",
    done_close: "请求已关闭。",
    organization_title: "该组织",
    servers_title: "服务器",
    no_servers: "没有服务器。",
    col_name: "名称",
    col_plan: "方案",
    col_site: "站点",
    col_server_state: "状态",
    plans_title: "方案",
    plan_count: |plan, n| format!("{plan} × {n}"),
    invoices_title: "未付发票",
    no_invoices: "没有未付发票。",
    col_number: "发票",
    col_amount: "应付金额",
    col_due: "到期日",
    overdue: "已逾期",
    draft: "（尚无编号）",
    err_body: |max| format!("请填写 1 到 {} 个字符的消息。", grouped(max)),
    err_closed: "此请求已关闭，无法再回复。",
    err_assignee: "请从列表中选择一名员工。",
};
