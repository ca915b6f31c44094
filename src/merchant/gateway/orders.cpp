// The merchant's operations on orders (orders.hpp): the app API and the console both call these.
#include "gateway/orders.hpp"

#include <algorithm>

#include "gateway/app_requests.hpp"

#include "rules/events.hpp"
#include "rules/order_state.hpp"
#include "paywasm/codec.hpp"
#include "paywasm/error.hpp"
#include "server/event_stream.hpp"
#include "server/util.hpp"
#include "rules/ship_to.hpp"

namespace merchant {

namespace {

std::string opt_time(const std::optional<std::int64_t>& t) { return t ? iso8601(*t) : std::string(); }

}  // namespace

std::string encode_cursor(std::int64_t created_at, const std::string& id) {
    static const char* hex = "0123456789abcdef";
    const std::string raw = std::to_string(created_at) + "|" + id;
    std::string out;
    for (unsigned char c : raw) {
        out += hex[c >> 4];
        out += hex[c & 15];
    }
    return out;
}

std::optional<std::pair<std::int64_t, std::string>> decode_cursor(std::string_view cursor) {
    if (cursor.empty() || cursor.size() % 2 || cursor.size() > 600) return std::nullopt;
    std::string raw;
    for (std::size_t i = 0; i < cursor.size(); i += 2) {
        int v = 0;
        for (char c : cursor.substr(i, 2)) {
            v <<= 4;
            if (c >= '0' && c <= '9') v |= c - '0';
            else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
            else return std::nullopt;
        }
        raw += static_cast<char>(v);
    }
    const auto bar = raw.find('|');
    if (bar == std::string::npos || bar == 0 || bar > 19) return std::nullopt;
    std::int64_t at = 0;
    for (char c : raw.substr(0, bar)) {
        if (c < '0' || c > '9') return std::nullopt;
        at = at * 10 + (c - '0');
    }
    return std::pair{at, raw.substr(bar + 1)};
}

SessionQuery session_query(const Request& req) {
    SessionQuery q;
    q.state = req.get_param_value("state");
    if (!q.state.empty() && !is_order_state(q.state)) {
        throw HttpError(400, "validation",
                        "state must be one of attention, partial, paid, pending, failed, refunded, expired", "state");
    }
    q.q = req.get_param_value("q");
    if (q.q.size() > 200) throw HttpError(400, "validation", "q is at most 200 characters", "q");
    check_text(q.q, "q");
    if (const std::string cursor = req.get_param_value("cursor"); !cursor.empty()) {
        q.after = decode_cursor(cursor);
        if (!q.after) throw HttpError(400, "validation", "cursor is not one this gateway gave (pass nextCursor as is)", "cursor");
    }
    if (const std::string limit = req.get_param_value("limit"); !limit.empty()) {
        int n = 0;
        for (char c : limit) {
            if (c < '0' || c > '9' || n > 1000) throw HttpError(400, "validation", "limit must be 1 to 200", "limit");
            n = n * 10 + (c - '0');
        }
        if (n < 1 || n > 200) throw HttpError(400, "validation", "limit must be 1 to 200", "limit");
        q.limit = n;
    }
    return q;
}

SessionsPage sessions_page(Gateway& gw, const SessionQuery& query) {
    SessionQuery one_more = query;
    one_more.limit = query.limit + 1;  // one row past the page says whether there is a next one
    SessionsPage page{gw.store.orders.list_sessions(one_more, now_ms()), std::nullopt};
    if (static_cast<int>(page.rows.size()) > query.limit) {
        page.rows.resize(static_cast<std::size_t>(query.limit));
        page.next = encode_cursor(page.rows.back().created_at, page.rows.back().id);
    }
    return page;
}

std::string sessions_page_json(Gateway& gw, const SessionQuery& query) {
    const SessionsPage page = sessions_page(gw, query);
    JsonWriter w;
    w.begin_object().key("sessions").begin_array();
    for (const auto& s : page.rows) w.raw(session_json(gw, s, query.state == "attention"));
    w.end_array().key("nextCursor");
    page.next ? w.string(*page.next) : w.null();
    w.end_object();
    return w.take();
}

std::string csv_cell(std::string_view text) {
    std::string out = "\"";
    // A spreadsheet may start a cell at the text's start and after any separator some locale uses
    // (, ; tab |) or a line break, and skips spaces and a quote there: a formula's first character
    // (= + - @ tab CR) in such a place gets a ' before it, so it is read as text.
    bool cell_start = true;
    for (char c : text) {
        if (cell_start && (c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r')) out += '\'';
        if (c == '"') out += '"';
        out += c;
        cell_start = c == ',' || c == ';' || c == '\t' || c == '|' || c == '\r' || c == '\n' || (cell_start && (c == ' ' || c == '"'));
    }
    return out + "\"";
}

void send_sessions_csv(Gateway& gw, Response& res, SessionQuery query) {
    if (query.state == "attention") {
        throw HttpError(400, "validation", "the export takes the states partial, paid, pending, failed, refunded, expired", "state");
    }
    query.after.reset();
    query.limit = 1000;
    res.set_header("Content-Disposition", "attachment; filename=\"orders.csv\"");
    res.set_header("Cache-Control", "no-store");
    auto body = make_stream([&gw, query](std::shared_ptr<EventStream> out) mutable -> boost::asio::awaitable<void> {
        if (!co_await out->write("\"sessionId\",\"offerId\",\"createdAt\",\"orderState\",\"status\",\"amount\",\"currency\","
                                 "\"method\",\"transactionId\",\"received\",\"receivedCurrency\",\"customer\","
                                 "\"underpaymentAcceptedAt\",\"email\",\"shippingAddress\",\"products\",\"linkId\",\"soldBy\"\r\n")) {
            co_return;
        }
        while (out->open()) {
            const std::int64_t now = now_ms();
            auto page = co_await on_pool(*gw.stream_reads, [&] { return gw.store.orders.list_sessions(query, now); });
            std::string text;
            for (const auto& s : page) {
                const StatusView& v = s.status;
                const ShipTo to = ship_to(s);
                for (const std::string& cell :
                     {s.id, s.offer_id, iso8601(s.created_at), std::string(order_state(s, now)),
                      v.status ? std::to_string(*v.status) : std::string(), s.amount, s.currency, v.method ? std::string(paywasm::to_string(*v.method)) : std::string(),
                      v.transaction_id.value_or(""), v.received_amount.value_or(""),
                      v.received_amount ? v.tx_currency.value_or("") : std::string(), to.name,
                      opt_time(s.underpayment_accepted_at), to.email, to.address, to.products(), to.link_id.value_or(""),
                      s.sold_by.value_or("")}) {
                    text += csv_cell(cell);
                    text += ',';
                }
                text.back() = '\r';
                text += '\n';
            }
            if (!text.empty() && !co_await out->write(std::move(text))) co_return;
            if (page.size() < 1000) co_return;
            query.after = std::pair{page.back().created_at, page.back().id};
        }
    });
    body->content_type = "text/csv; charset=utf-8";
    res.stream = std::move(body);
}

void check_text(const std::string& text, const char* field) {
    const auto points = utf8_decode(text);
    if (!points || std::find(points->begin(), points->end(), 0u) != points->end()) {
        throw HttpError(400, "validation", std::string(field) + " must be UTF-8 text without NUL", field);
    }
}

void check_note(const std::string& note, const char* field) {
    if (note.empty() || note.size() > 2000) throw HttpError(400, "validation", "note must be 1 to 2000 characters", field);
    check_text(note, field);
}

void resend_event(Gateway& gw, const std::string& event_id, const Actor& actor) {
    switch (gw.store.events.resend_event(event_id, now_ms())) {
        case EventStore::Resend::done: break;
        case EventStore::Resend::not_found: throw HttpError(404, "not_found", "no event with this id");
        case EventStore::Resend::in_flight:
            throw HttpError(409, "delivery_in_flight", "the event is being delivered right now; look again in a minute");
    }
    gw.store.console.audit(actor.name, "resend", event_id, std::nullopt, actor.address, now_ms());
    gw.wake_forwarder();
}

std::int64_t resend_failed(Gateway& gw, std::int64_t since, const Actor& actor) {
    const std::int64_t n = gw.store.events.resend_failed(since, now_ms());
    gw.store.console.audit(actor.name, "resend_failed", std::nullopt,
                           "since " + iso8601(since) + ": " + std::to_string(n) + " event(s)", actor.address, now_ms());
    gw.wake_forwarder();
    return n;
}

void resolve_attempt(Gateway& gw, const std::string& session_id, const std::string& attempt_id,
                     const std::string& resolution, const std::string& note, const Actor& actor) {
    if (resolution != "release" && resolution != "paid_elsewhere" && resolution != "not_paid") {
        throw HttpError(400, "validation", "resolution must be release, paid_elsewhere or not_paid", "resolution");
    }
    check_note(note);
    const auto change =
        gw.store.attempts.resolve_attempt(session_id, attempt_id, resolution, note, actor.name, !gw.config.app_callback.empty(), now_ms());
    using C = AttemptStore::Change;
    switch (change.result) {
        case C::done: break;
        case C::not_found: throw HttpError(404, "not_found", "no session with this id");
        case C::attempt_not_found: throw HttpError(404, "not_found", "no attempt with this id in this session", "attemptId");
        case C::settled: throw HttpError(409, "attempt_settled", "the service's verified status decided this attempt already", "attemptId");
        case C::already_resolved: throw HttpError(409, "already_resolved", "this attempt was resolved already", "attemptId");
        default: throw std::logic_error("resolve_attempt: an answer it does not give");
    }
    gw.store.console.audit(actor.name, "resolve", session_id, attempt_id + ": " + resolution + ": " + note, actor.address, now_ms());
    gw.hub.notify(session_id, change.pushed);
    gw.wake_forwarder();
}

std::int64_t resolve_stuck(Gateway& gw, std::int64_t before, const std::string& resolution, const std::string& note,
                           const Actor& actor) {
    if (resolution != "release" && resolution != "not_paid") {
        throw HttpError(400, "validation", "resolution must be release or not_paid (paid_elsewhere only one by one)", "resolution");
    }
    check_note(note);
    SessionQuery query;
    query.state = "attention";
    query.limit = 200;
    std::int64_t resolved = 0;
    for (;;) {
        const auto page = gw.store.orders.list_sessions(query, now_ms());
        for (const auto& s : page) {
            for (const auto& a : s.attempts) {
                if (!a.attention_at || *a.attention_at >= before || a.resolution) continue;
                const auto change = gw.store.attempts.resolve_attempt(s.id, a.id, resolution, note, actor.name,
                                                                      !gw.config.app_callback.empty(), now_ms());
                if (change.result != AttemptStore::Change::done) continue;  // settled or resolved meanwhile
                ++resolved;
                gw.hub.notify(s.id, change.pushed);
            }
        }
        if (page.size() < 200) break;
        query.after = std::pair{page.back().created_at, page.back().id};
    }
    gw.store.console.audit(actor.name, "resolve_stuck", std::nullopt,
                           "before " + iso8601(before) + ": " + resolution + ": " + std::to_string(resolved) + " attempt(s): " + note,
                           actor.address, now_ms());
    gw.wake_forwarder();
    return resolved;
}

void accept_underpayment(Gateway& gw, const std::string& session_id, const std::string& note, const Actor& actor) {
    check_note(note);
    const auto a = gw.store.orders.accept_underpayment(session_id, note, actor.name, !gw.config.app_callback.empty(), now_ms());
    using A = OrderQueries::Acceptance;
    switch (a.result) {
        case A::done: break;
        case A::not_found: throw HttpError(404, "not_found", "no session with this id");
        case A::not_partial:
            throw HttpError(409, "not_partially_paid", "only a partly paid session's underpayment can be accepted");
        case A::already_accepted: throw HttpError(409, "already_accepted", "this session's underpayment was accepted already");
    }
    gw.store.console.audit(actor.name, "accept_underpayment", session_id, a.event_id + ": " + note, actor.address, now_ms());
    gw.hub.notify(session_id, a.pushed);
    gw.wake_forwarder();
}

void add_note(Gateway& gw, const std::string& session_id, const std::string& note, const Actor& actor) {
    check_note(note);
    if (!gw.store.orders.add_note(session_id, actor.name, note, now_ms())) throw HttpError(404, "not_found", "no session with this id");
    gw.store.console.audit(actor.name, "note", session_id, note, actor.address, now_ms());
}

}  // namespace merchant
