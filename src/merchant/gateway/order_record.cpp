// The merchant's reads of orders (orders.hpp "reads"): typed records, and the app API's JSON of them.
#include "rules/events.hpp"
#include "gateway/app_requests.hpp"
#include "rules/order_state.hpp"
#include "gateway/orders.hpp"
#include "server/util.hpp"
#include "rules/ship_to.hpp"

namespace merchant {

namespace {

// The members every session's JSON has (session_json's), the object left open.
void write_session(JsonWriter& w, Gateway& gw, const Session& s) {
    const std::int64_t now = now_ms();
    w.begin_object().str("id", s.id).str("offerId", s.offer_id).str("amount", s.amount).str("currency", s.currency);
    w.key("methods");
    write_methods(w, s);
    w.str("createdAt", iso8601(s.created_at)).str("expiresAt", iso8601(s.expires_at));
    // An open session past its expiry takes no payment any more: "expired", not "open".
    w.str("status", s.status.state == paywasm::kNoStatusState && now >= s.expires_at ? std::string("expired") : s.status.state);
    w.str("orderState", order_state(s, now));
    w.key("underpaymentAcceptedAt");
    s.underpayment_accepted_at ? w.string(iso8601(*s.underpayment_accepted_at)) : w.null();
    if (!gw.config.widget_dir.empty()) w.str("hostedUrl", hosted_url(gw, s.id));  // the hosted page (app_requests.hpp)
    if (s.link_id) w.str("linkId", *s.link_id);
    if (s.sold_by) w.str("soldBy", *s.sold_by);  // a point-of-sale sale: the console user (sales.hpp)
    w.key("shipTo");
    write_ship_to(w, ship_to(s));  // what the seller needs to ship (ship_to.hpp)
}

SentEvent sent_event(OutboxRow row) {
    SentEvent e;
    if (const auto body = read_json(row.body); body && body->root().is_object()) {
        e.type = string_or(body->root().member("type"));
        e.session_id = string_or(body->root().member("sessionId"));
    }
    e.row = std::move(row);
    return e;
}

}  // namespace

OrderRecord order_record(Gateway& gw, Session s) {
    OrderRecord r;
    r.transactions = gw.store.sessions.transactions(s.id);
    r.notes = gw.store.orders.notes(s.id);
    r.owed = owed_of(s);
    r.session = std::move(s);
    return r;
}

std::optional<OrderRecord> order_record(Gateway& gw, const std::string& id) {
    auto s = gw.store.sessions.session(id);
    if (!s) return std::nullopt;
    return order_record(gw, std::move(*s));
}

OrderHistory order_history(Gateway& gw, const std::string& session_id) {
    OrderHistory h;
    h.qr_codes = gw.store.orders.session_qr_codes(session_id);
    h.webhooks = gw.store.orders.session_webhooks(session_id);
    h.resolutions = gw.store.orders.resolutions(session_id);
    auto deliveries = gw.store.events.session_deliveries(session_id);
    for (auto& row : gw.store.events.session_events(session_id)) {
        SentEvent e = sent_event(std::move(row));
        if (const auto it = deliveries.find(e.row.id); it != deliveries.end()) e.deliveries = std::move(it->second);
        h.events.push_back(std::move(e));
    }
    return h;
}

std::string session_json(Gateway& gw, const Session& s) {
    JsonWriter w;
    write_session(w, gw, s);
    w.end_object();
    return w.take();
}

std::string order_json(Gateway& gw, const OrderRecord& r) {
    const Session& s = r.session;
    JsonWriter w;
    write_session(w, gw, s);
    w.raw("checkout", s.checkout_json);
    w.raw("latestStatus", status_json(s));
    w.raw("transactions", transactions_json(r.transactions));
    w.raw("attempts", attempts_json(s.attempts, true));
    w.raw("payable", payable_json(payable_of(s)));
    w.key("notes").begin_array();
    for (const auto& n : r.notes) {
        w.begin_object().str("actor", n.actor).str("note", n.note).str("createdAt", iso8601(n.created_at)).end_object();
    }
    w.end_array();
    w.end_object();
    return w.take();
}

std::string checkout_view(const Gateway& gw, const Session& s) {
    const JsonDocument checkout = paywasm::parse_json(s.checkout_json);
    JsonWriter w;
    w.begin_object().str("id", s.id).str("offerId", s.offer_id).str("amount", s.amount).str("currency", s.currency);
    w.key("cart").value(checkout.root().member("cart"));
    if (JsonValue address = checkout.root().member("shippingAddress"); address.valid()) w.key("shippingAddress").value(address);
    w.key("methods");
    write_methods(w, s);
    w.str("merchantId", gw.config.merchant_id)
        .str("publicKey", gw.config.merchant_public_pem)
        .str("keyFingerprint", gw.merchant_fingerprint)
        .str("padding", paywasm::to_string(gw.config.padding))
        .str("serviceUrl", gw.config.public_service_url.empty() ? gw.config.service_url : gw.config.public_service_url)
        .str("expiresAt", iso8601(s.expires_at));
    w.raw("status", status_json(s));
    w.raw("attempts", attempts_json(s.attempts, false));
    w.raw("payable", payable_json(payable_of(s)));
    w.end_object();
    return w.take();
}

std::string session_json(Gateway& gw, const Session& s, bool with_detail) {
    return with_detail ? order_json(gw, order_record(gw, s)) : session_json(gw, s);
}

std::vector<OutboxRow> event_list(Gateway& gw, bool failed_first) {
    return failed_first ? gw.store.events.events_page(true, 200) : gw.store.events.outbox(200);
}

std::vector<SentEvent> sent_events(Gateway& gw) {
    std::vector<SentEvent> out;
    for (auto& row : event_list(gw, true)) out.push_back(sent_event(std::move(row)));
    return out;
}

std::string event_json(Gateway& gw, const std::string& event_id) {
    const auto row = gw.store.events.event(event_id);
    if (!row) throw HttpError(404, "not_found", "no event with this id");
    return event_detail_json(*row, gw.store.events.deliveries(row->id));
}

std::vector<DebitRow> debit_list(Gateway& gw) { return gw.store.orders.debits(500); }

AuditPage audit_page(Gateway& gw, const std::string& cursor) {
    std::optional<std::pair<std::int64_t, std::string>> after;
    if (!cursor.empty()) {
        after = decode_cursor(cursor);
        if (!after) throw HttpError(400, "validation", "not a cursor of this page", "cursor");
    }
    AuditPage page{gw.store.console.audit_log(after, 101), std::nullopt};
    if (page.rows.size() > 100) {
        page.rows.resize(100);
        page.next = encode_cursor(page.rows.back().at, page.rows.back().id);
    }
    return page;
}

OverviewFigures overview_figures(Gateway& gw, std::int64_t since_day, std::int64_t failures) {
    return OverviewFigures{gw.store.orders.overview_tally(since_day), gw.store.orders.attention_count(), gw.store.orders.count_in_bucket("partial"),
                           gw.store.orders.failing_events(failures)};
}

}  // namespace merchant
