// The store's links group (store_links.hpp): the links table and a link's sessions. SQL in the
// dialect sql.hpp names.
#include "store/store_core.hpp"
#include "store/store_links.hpp"

#include "server/util.hpp"

namespace merchant {

using namespace paywasm::server;

namespace {

constexpr const char* kLinkColumns = "id, spec, currency, active, usage_limit, expires_at, created_at, updated_at, sold_by";

Link link_from_row(const SqlRow& r) {
    Link l;
    l.id = r.text(0);
    l.spec = r.text(1);
    l.currency = r.text(2);
    l.active = r.integer(3) != 0;
    if (!r.is_null(4)) l.usage_limit = r.integer(4);
    if (!r.is_null(5)) l.expires_at = r.integer(5);
    l.created_at = r.integer(6);
    l.updated_at = r.integer(7);
    l.sold_by = r.optional_text(8);
    return l;
}

SqlValue or_null_int(const std::optional<std::int64_t>& v) { return v ? SqlValue(*v) : SqlValue(); }

}  // namespace

void LinkStore::insert(const Link& l) {
    sql_.execute("INSERT INTO links (id, spec, currency, active, usage_limit, expires_at, created_at, updated_at, sold_by) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 {l.id, l.spec, l.currency, std::int64_t(l.active ? 1 : 0), or_null_int(l.usage_limit),
                  or_null_int(l.expires_at), l.created_at, l.updated_at, l.sold_by ? SqlValue(*l.sold_by) : SqlValue()});
}

std::optional<Link> LinkStore::find(const std::string& id) {
    auto rows = sql_.query(std::string("SELECT ") + kLinkColumns + " FROM links WHERE id = ?", {id});
    if (rows.empty()) return std::nullopt;
    return link_from_row(rows[0]);
}

std::vector<Link> LinkStore::list(int limit) {
    std::vector<Link> out;
    for (const auto& r : sql_.query(std::string("SELECT ") + kLinkColumns + " FROM links WHERE sold_by IS NULL ORDER BY created_at DESC, id LIMIT ?",
                                    {std::int64_t(limit)})) {
        out.push_back(link_from_row(r));
    }
    return out;
}

bool LinkStore::set_active(const std::string& id, bool active, std::int64_t now) {
    return sql_.execute("UPDATE links SET active = ?, updated_at = ? WHERE id = ?", {std::int64_t(active ? 1 : 0), now, id}) == 1;
}

std::int64_t LinkStore::paid_sessions(const std::string& id) {
    auto rows = sql_.query("SELECT count(*) FROM sessions WHERE link_id = ? AND success = 1", {id});
    return rows.empty() ? 0 : rows[0].integer(0);
}

std::vector<LinkSession> LinkStore::sessions(const std::string& id, int limit) {
    std::vector<LinkSession> out;
    for (const auto& r : sql_.query("SELECT id, amount, currency, state, success, created_at, expires_at, status FROM sessions "
                                    "WHERE link_id = ? ORDER BY created_at DESC, id LIMIT ?",
                                    {id, std::int64_t(limit)})) {
        LinkSession s{r.text(0), r.text(1), r.text(2), r.text(3), r.integer(4) != 0, r.integer(5)};
        // An open session past its expiry takes no payment any more (as the app API says it).
        if (s.state == "open" && r.is_null(7) && now_ms() >= r.integer(6)) s.state = "expired";
        out.push_back(std::move(s));
    }
    return out;
}

bool LinkStore::set_details(const std::string& session_id, const std::string& checkout_json, const std::string& checkout_hash,
                            const std::string& amount, std::int64_t expires_at, std::int64_t now) {
    return sql_.execute(
               "UPDATE sessions SET checkout = ?, checkout_hash = ?, amount = ?, expires_at = ?, details_at = ? "
               "WHERE id = ? AND link_id IS NOT NULL AND details_at IS NULL AND qr_state IS NULL AND status IS NULL "
               "AND expires_at > ? AND NOT EXISTS (SELECT 1 FROM attempts WHERE attempts.session_id = sessions.id)",
               {checkout_json, checkout_hash, amount, expires_at, now, session_id, now}) == 1;
}

bool LinkStore::details_given(const std::string& session_id) {
    auto rows = sql_.query("SELECT details_at FROM sessions WHERE id = ?", {session_id});
    return !rows.empty() && !rows[0].is_null(0);
}

std::string LinkStore::refusal(const Session& s, std::int64_t now) { return core_.link_refusal(s, now); }

std::string StoreCore::link_refusal(const Session& s, std::int64_t now) {
    if (!s.link_id) return "";
    const auto link = sql_->query_locked("SELECT active, usage_limit, expires_at FROM links WHERE id = ?", {*s.link_id});
    const auto details = sql_->query("SELECT details_at FROM sessions WHERE id = ?", {s.id});
    if (details.empty() || details[0].is_null(0)) return "details_required";
    if (link.empty() || link[0].integer(0) == 0) return "link_inactive";
    if (!link[0].is_null(2) && now >= link[0].integer(2)) return "link_expired";
    if (link[0].is_null(1)) return "";
    // Read after the link's lock: what another instance committed before it let go is counted.
    const auto held = sql_->query(
        "SELECT count(*) FROM sessions WHERE link_id = ? AND id <> ? AND (success = 1 OR underpayment_accepted_at IS NOT NULL "
        "OR (status IS NOT NULL AND final = 0) OR (expires_at > ? AND (qr_state IS NOT NULL OR EXISTS "
        "(SELECT 1 FROM attempts WHERE attempts.session_id = sessions.id))))",
        {*s.link_id, s.id, now});
    return held[0].integer(0) >= link[0].integer(1) ? "link_used_up" : "";
}

}  // namespace merchant
