//! Every API error's code and message, in both languages. The match has no
//! catch-all arm, so a new `Problem` without its texts fails the build.

use domain::Lang;

use super::error::Problem;

/// `(code, message)` for a problem in a language.
pub fn text(problem: Problem, lang: Lang) -> (&'static str, &'static str) {
    let (code, zh, en) = texts(problem);
    (code, if lang == Lang::Zh { zh } else { en })
}

fn texts(problem: Problem) -> (&'static str, &'static str, &'static str) {
    use Problem::*;
    match problem {
        BadRequest => (
            "bad_request",
            "请求无法解析：请检查路径参数和查询参数。",
            "The request could not be read: check its path and query parameters.",
        ),
        MalformedBody => (
            "malformed_body",
            "请求体必须是一个 JSON 对象（不能是数组或其他值），且只含本接口文档列出的字段。",
            "The request body must be one JSON object (not an array or another value) with only the fields this endpoint documents.",
        ),
        Unauthorized => (
            "unauthorized",
            "需要有效的 API 令牌：请发送 Authorization: Bearer gpu_…（在门户的“API 令牌”页面创建）。",
            "A valid API token is required: send Authorization: Bearer gpu_… (create one on the portal's API tokens page).",
        ),
        TokenUnknown => (
            "unauthorized",
            "没有这个 API 令牌：请检查是否完整复制了令牌，或创建一个新令牌。",
            "No API token has this secret: check that it was copied whole, or create a new one.",
        ),
        TokenExpired => (
            "token_expired",
            "此 API 令牌已过期，请创建一个新令牌。",
            "This API token has expired; create a new one.",
        ),
        TokenRevoked => (
            "token_revoked",
            "此 API 令牌已被撤销。",
            "This API token has been revoked.",
        ),
        TokenCreatorLostRole => (
            "token_creator_lost_role",
            "创建此令牌的成员已离开组织或不再拥有令牌所需的角色，令牌已失效。",
            "The member who created this token left the organization or no longer has the role its scopes need; the token no longer works.",
        ),
        InsufficientScope => (
            "insufficient_scope",
            "此令牌没有执行该操作所需的权限范围。",
            "This token lacks the scope this request needs.",
        ),
        NotFound => (
            "not_found",
            "没有找到该资源。",
            "No such resource.",
        ),
        MethodNotAllowed => (
            "method_not_allowed",
            "该路径不支持此 HTTP 方法。",
            "This path does not support that HTTP method.",
        ),
        Conflict => (
            "conflict",
            "资源当前的状态不允许此操作。",
            "The resource's current state does not allow this.",
        ),
        Busy => (
            "busy",
            "该服务器正在执行另一项操作，请在其完成后重试。",
            "The server is busy with another operation; retry when it has finished.",
        ),
        IdempotencyKeyReused => (
            "idempotency_key_reused",
            "此 Idempotency-Key 已用于另一个内容不同的请求：每个新请求请使用新的键。",
            "This Idempotency-Key was already used for a request with another body or path: use a new key for each new request.",
        ),
        IdempotencyKeyInUse => (
            "idempotency_key_in_use",
            "使用此 Idempotency-Key 的请求仍在处理中，请稍后再重试。",
            "A request with this Idempotency-Key is still being processed; retry in a moment.",
        ),
        TooLarge => (
            "too_large",
            "请求体过大。",
            "The request body is too large.",
        ),
        UnsupportedMediaType => (
            "unsupported_media_type",
            "请求体必须是 JSON（Content-Type: application/json）。",
            "The request body must be JSON (Content-Type: application/json).",
        ),
        Invalid => (
            "invalid",
            "请求体不是所需的 JSON 格式：请对照 API 文档检查字段。",
            "The request body is not the JSON this endpoint expects: check its fields against the API documentation.",
        ),
        InvalidName => (
            "invalid_name",
            "名称不符合要求：服务器名为 1–63 个英文字母、数字或连字符（存为小写，首尾不能是连字符）；快照名为 1–63 个英文字母、数字、连字符（-）、点（.）或下划线（_），且在同一服务器上唯一。",
            "The name is not valid: server names are 1–63 Latin letters, digits and hyphens (kept in lower case, no hyphen first or last); snapshot names 1–63 Latin letters, digits, hyphens, dots or underscores, unique per server.",
        ),
        InvalidCursor => (
            "invalid_cursor",
            "分页游标无效：请使用上一页返回的 next_cursor。",
            "The pagination cursor is not valid: pass the next_cursor of the previous page.",
        ),
        IdempotencyKeyRequired => (
            "idempotency_key_required",
            "此请求需要 Idempotency-Key 请求头（1–100 个可打印 ASCII 字符），以便安全重试。",
            "This request needs an Idempotency-Key header (1–100 printable ASCII characters), so retries are safe.",
        ),
        UnknownChoice => (
            "unknown_choice",
            "未知的方案、站点、镜像、附加服务或选项。",
            "Unknown plan, site, image, add-on or option.",
        ),
        BadSshKey => (
            "bad_ssh_key",
            "不是有效的 OpenSSH 公钥。",
            "Not a valid OpenSSH public key.",
        ),
        SoldOut => (
            "sold_out",
            "此方案在该站点已售罄；sites_with_stock 列出仍有库存的站点。",
            "This plan is sold out at this site; sites_with_stock lists the sites that still have it.",
        ),
        NoBillingProfile => (
            "no_billing_profile",
            "组织还没有账单资料：请所有者或账务成员先在门户中填写，然后再下单。",
            "The organization has no billing profile yet: an owner fills it in on the portal before the first order.",
        ),
        DailyOrderLimit => (
            "daily_order_limit",
            "组织在 24 小时内的订单数已达上限，请稍后再试或联系支持。",
            "The organization reached its limit of orders in 24 hours; try later or contact support.",
        ),
        SnapshotQuotaFull => (
            "snapshot_quota_full",
            "快照配额已满：请先删除一个快照。",
            "The snapshot quota is full: delete a snapshot first.",
        ),
        SnapshotsNotOffered => (
            "snapshots_not_offered",
            "此部署的服务器不提供快照。",
            "Snapshots are not offered for servers of this deployment.",
        ),
        RootResetNotOffered => (
            "root_password_reset_not_offered",
            "此部署的服务器不提供重置 root 密码。",
            "Resetting the root password is not offered for servers of this deployment.",
        ),
        NotCancellable => (
            "not_cancellable",
            "无法这样安排或撤销取消（日期须为某个租期的结束日）。",
            "The cancellation cannot be scheduled or revoked like this (the date must be the end of a term).",
        ),
        ConsoleUnavailable => (
            "console_unavailable",
            "控制台目前不可用（服务器尚未交付、已暂停或已取消）。",
            "The console is not available now (the server is not delivered yet, suspended or cancelled).",
        ),
        RateLimited => (
            "rate_limited",
            "此令牌的请求过多，请在 Retry-After 指定的秒数后重试。",
            "Too many requests for this token; retry after the seconds in Retry-After.",
        ),
        Unavailable => (
            "unavailable",
            "服务暂时不可用，请在 Retry-After 指定的秒数后重试。",
            "The service is unavailable for a moment; retry after the seconds in Retry-After.",
        ),
        Internal => (
            "internal",
            "我们这边出错了，已记录在日志中。请把 request_id 告诉支持人员。",
            "Something went wrong on our side and was logged. Quote the request_id to support.",
        ),
    }
}
