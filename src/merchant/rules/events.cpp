// The gateway's wire shapes (events.hpp), written from typed values.
#include "rules/events.hpp"

#include "paywasm/decimal.hpp"
#include "paywasm/error.hpp"
#include "paywasm/status.hpp"
#include "server/http.hpp"
#include "server/util.hpp"

namespace merchant {

using paywasm::JsonValue;
using paywasm::JsonWriter;
using paywasm::server::iso8601;

std::optional<paywasm::Owed> owed_of(const Session& s) {
    const StatusView& v = s.status;
    paywasm::Decimal amount;
    if (!v.status || !v.tx_amount || !v.tx_currency || !paywasm::Decimal::try_parse(*v.tx_amount, amount)) return std::nullopt;
    std::optional<paywasm::Decimal> received;
    paywasm::Decimal r;
    if (v.received_amount && paywasm::Decimal::try_parse(*v.received_amount, r)) received = r;
    try {
        return paywasm::amounts_owed(paywasm::describe_status(*v.status, v.method), {amount, *v.tx_currency}, received);
    } catch (const paywasm::Error&) {
        return std::nullopt;  // a negative amount from the service: no amounts rather than wrong ones
    }
}

namespace {

// A text member that may be absent: the text, or null.
void opt_str(JsonWriter& w, const char* name, const std::optional<std::string>& v) {
    w.key(name);
    v ? w.string(*v) : w.null();
}

// The money members of a session's status (status_json, forwarded events): "orderTotal" (the
// session's fiat total) and "expected", "received", "remaining" (the core's amounts_owed in the
// transaction's own currency, or null), each {amount, currency}.
void write_amounts(JsonWriter& w, const Session& s) {
    w.key("orderTotal").begin_object().str("amount", s.amount).str("currency", s.currency).end_object();
    const std::optional<paywasm::Owed> owed = owed_of(s);
    for (auto [name, m] : {std::pair<const char*, const paywasm::Money*>{"expected", owed ? &owed->expected : nullptr},
                           {"received", owed ? &owed->received : nullptr},
                           {"remaining", owed ? &owed->remaining : nullptr}}) {
        w.key(name);
        if (m) w.begin_object().str("amount", paywasm::amount_text(*m)).str("currency", m->currency).end_object();
        else w.null();
    }
}

std::string debit_event_type(const paywasm::StatusInfo& info) {
    using K = paywasm::StatusKind;
    if (info.success) return "subscription.debit.succeeded";
    switch (info.kind) {
        case K::failed: case K::canceled: case K::timed_out: return "subscription.debit.failed";
        case K::pending: case K::processing: case K::awaiting_payment: return "subscription.debit.pending";
        case K::partial: case K::partial_closed: return "subscription.debit.partially_paid";
        case K::refund: return "subscription.debit.refunded";
        default: return "subscription.debit.status_unknown";
    }
}

}  // namespace

std::string status_json(const Session& s) {
    const StatusView& v = s.status;
    JsonWriter w;
    w.begin_object().str("sessionId", s.id).str("offerId", s.offer_id);
    w.key("status");
    v.status ? w.number(*v.status) : w.null();
    std::optional<paywasm::StatusInfo> info;
    if (v.status) {
        info = paywasm::describe_checkout_status(*v.status, v.method, paywasm::is_amount_mismatch_state(v.state));
    }
    w.key("kind");
    info ? w.string(paywasm::to_string(info->kind)) : w.null();
    w.str("state", v.state).flag("final", v.final).flag("success", v.success);
    w.key("taken");
    info ? w.string(paywasm::to_string(info->taken)) : w.string("none");
    w.key("tone");
    info ? w.string(paywasm::to_string(info->tone)) : w.null();
    w.key("next");
    info ? w.string(paywasm::to_string(info->next)) : w.string("pay");
    if (info) w.str("label", info->label);
    w.key("method");
    v.method ? w.string(paywasm::to_string(*v.method)) : w.null();
    opt_str(w, "transactionId", v.transaction_id);
    write_amounts(w, s);
    w.num("version", v.version);
    w.key("updatedAt");
    v.updated_at ? w.string(iso8601(v.updated_at)) : w.null();
    w.raw("payable", payable_json(payable_of(s)));
    w.end_object();
    return w.take();
}

std::string payable_json(const Payable& p) {
    JsonWriter w;
    w.begin_object().flag("armed", p.armed).str("reason", p.reason);
    opt_str(w, "attemptId", p.attempt_id);
    opt_str(w, "transactionId", p.transaction_id);
    w.end_object();
    return w.take();
}

std::string attempts_json(const std::vector<AttemptFacts>& attempts, bool detail) {
    const auto opt_time = [](JsonWriter& w, const char* name, const std::optional<std::int64_t>& t) {
        w.key(name);
        t ? w.string(iso8601(*t)) : w.null();
    };
    JsonWriter w;
    w.begin_array();
    for (const auto& a : attempts) {
        w.begin_object().str("attemptId", a.id).str("method", paywasm::to_string(a.method)).str("createdAt", iso8601(a.created_at));
        w.str("state", to_string(attempt_state(a)));
        opt_str(w, "transactionId", a.transaction_id);  // verified (a webhook attached it)
        opt_str(w, "reportedTransactionId", a.reported_transaction_id);  // the browser's word only
        w.key("error");
        if (a.error_code || a.error_http) {
            w.begin_object();
            opt_str(w, "code", a.error_code);
            w.key("httpStatus");
            a.error_http ? w.number(*a.error_http) : w.null();
            w.end_object();
        } else {
            w.null();
        }
        if (detail) {
            w.flag("reported", a.reported);  // the browser's word only
            w.key("reportedStatus");
            a.reported_status ? w.number(*a.reported_status) : w.null();
            w.str("verified", to_string(a.verified));
            opt_str(w, "resolution", a.resolution);
            opt_time(w, "attentionAt", a.attention_at);
            opt_time(w, "conflictAt", a.conflict_at);
            opt_time(w, "windowEnd", a.window_end);  // a QR code's (method qr)
        }
        w.end_object();
    }
    w.end_array();
    return w.take();
}

std::string_view resolution_event_type(std::string_view resolution) {
    if (resolution == "release") return "checkout.released";
    if (resolution == "paid_elsewhere") return "checkout.paid_elsewhere";
    return "checkout.marked_unpaid";
}

std::string attempt_event_json(const std::string& id, std::string_view type, std::int64_t now, const Session& s,
                               const AttemptFacts& a, const std::optional<std::string>& note) {
    JsonWriter w;
    w.begin_object().str("id", id).str("type", type).str("createdAt", iso8601(now));
    w.str("sessionId", s.id).str("offerId", s.offer_id);
    if (s.link_id) w.str("linkId", *s.link_id);  // only a payment link's session has one (hosted.hpp)
    w.str("orderState", order_state(s, now));  // the order's state once this happened (order_state.hpp)
    w.str("attemptId", a.id).str("method", paywasm::to_string(a.method));
    w.str("reason", stuck_reason(a));
    opt_str(w, "transactionId", a.transaction_id);  // verified only
    opt_str(w, "reportedTransactionId", a.reported_transaction_id);  // the browser's word only
    const bool pending = a.method == paywasm::PayMethod::bank && a.verified_open_at;  // stuck since its verified pending
    w.str("since", iso8601(pending ? *a.verified_open_at : a.created_at)).str("state", to_string(attempt_state(a)));
    opt_str(w, "resolution", a.resolution);
    if (note) w.str("note", *note);
    w.flag("success", false);  // an attempt's event never says a payment succeeded
    w.end_object();
    return w.take();
}

void write_methods(JsonWriter& w, const Session& s) {
    w.begin_array();
    for (paywasm::PayMethod m : s.methods().list()) w.string(paywasm::to_string(m));
    w.end_array();
}

std::string sse_event(std::int64_t version, const std::string& json) {
    return "id: " + std::to_string(version) + "\ndata: " + json + "\n\n";
}

std::string forwarded_event_json(const std::string& event_id, std::int64_t now, const Decision& d, const IncomingTx& in,
                                 const std::string& signed_json, const Session* session, const DebitRef* debit) {
    JsonWriter w;
    w.begin_object().str("id", event_id);
    if (session) {
        w.str("type", event_type(d)).str("createdAt", iso8601(now));
        w.str("sessionId", session->id).str("offerId", session->offer_id);
        if (session->link_id) w.str("linkId", *session->link_id);  // only a payment link's session (hosted.hpp)
        w.str("orderState", order_state(*session, now));  // the order's state after this change (order_state.hpp)
        // The session's version after this change (+1 on each): events may arrive out of order (a
        // retried delivery), and an app keeps the highest version it has seen.
        w.num("version", session->status.version);
        w.key("method");
        d.method ? w.string(paywasm::to_string(*d.method)) : w.null();
    } else if (debit) {
        w.str("type", debit_event_type(d.info)).str("createdAt", iso8601(now));
        w.str("subscriptionId", debit->subscription_id);
        opt_str(w, "merchantSubscriptionId", debit->merchant_subscription_id);
        w.str("debitOrderId", debit->order_id);
    } else {
        // Late money: no session holds its order id any more (events.hpp).
        w.str("type", event_type(d)).str("createdAt", iso8601(now));
        w.key("sessionId");
        w.null();
        opt_str(w, "offerId", in.order_id);
    }
    w.str("transactionId", in.id).num("status", in.status).str("kind", paywasm::to_string(d.info.kind));
    w.flag("final", d.info.final).flag("success", d.success);
    w.str("taken", paywasm::to_string(d.info.taken));
    if (session) write_amounts(w, *session);
    w.key("paid");
    if (in.native_amount && in.native_currency) {
        w.begin_object().str("amount", *in.native_amount).str("currency", *in.native_currency).end_object();
    } else {
        w.null();
    }
    w.str("transaction", signed_json);  // the signed text, for an app that re-checks it
    w.end_object();
    return w.take();
}

std::string transactions_json(const std::vector<TransactionRow>& rows) {
    JsonWriter w;
    w.begin_array();
    for (const auto& r : rows) {
        w.begin_object().str("id", r.id).num("status", r.status).str("state", r.state);
        opt_str(w, "paidAmount", r.native_amount);
        opt_str(w, "paidCurrency", r.native_currency);
        opt_str(w, "receivedAmount", r.received_amount);
        opt_str(w, "receivedCurrency", r.received_amount ? r.currency : std::nullopt);  // crypto for a QR code
        w.str("updatedAt", iso8601(r.updated_at)).end_object();
    }
    w.end_array();
    return w.take();
}

std::string underpayment_event_json(const std::string& id, std::int64_t now, const Session& s, const std::string& note,
                                    const std::string& actor) {
    JsonWriter w;
    w.begin_object().str("id", id).str("type", "checkout.underpayment_accepted").str("createdAt", iso8601(now));
    w.str("sessionId", s.id).str("offerId", s.offer_id);
    if (s.link_id) w.str("linkId", *s.link_id);  // only a payment link's session (hosted.hpp)
    w.str("orderState", order_state(s, now)).num("version", s.status.version);
    opt_str(w, "transactionId", s.status.transaction_id);
    write_amounts(w, s);
    w.str("note", note).str("actor", actor).flag("accepted", true).flag("success", false);
    w.end_object();
    return w.take();
}

namespace {

// One outbox row's members (outbox_json, event_detail_json), the object left open.
void write_outbox_row(JsonWriter& w, const OutboxRow& r);

}  // namespace

std::string event_detail_json(const OutboxRow& row, const std::vector<DeliveryRow>& deliveries) {
    JsonWriter w;
    write_outbox_row(w, row);
    w.key("deliveries").begin_array();
    for (const auto& d : deliveries) {
        w.begin_object().str("startedAt", iso8601(d.started_at)).str("finishedAt", iso8601(d.finished_at));
        w.key("httpStatus");
        d.http_status ? w.number(*d.http_status) : w.null();
        opt_str(w, "error", d.error);
        w.end_object();
    }
    w.end_array().end_object();
    return w.take();
}

std::string outbox_json(const std::vector<OutboxRow>& rows) {
    JsonWriter w;
    w.begin_array();
    for (const auto& r : rows) {
        write_outbox_row(w, r);
        w.end_object();
    }
    w.end_array();
    return w.take();
}

namespace {

void write_outbox_row(JsonWriter& w, const OutboxRow& r) {
    w.begin_object().str("id", r.id).str("state", r.state).num("attempts", r.attempts);
    w.str("nextAttemptAt", iso8601(r.next_attempt_at));
    opt_str(w, "lastError", r.last_error);
    w.str("createdAt", iso8601(r.created_at));
    w.key("deliveredAt");
    r.delivered_at ? w.string(iso8601(*r.delivered_at)) : w.null();
    // What the event says, from the body that is (or was) delivered: its type and session, and
    // the body itself, as the app receives it.
    const auto body = paywasm::server::read_json(r.body);
    const auto put = [&w](const char* name, JsonValue v) {
        w.key(name);
        v.valid() && !v.is_null() ? w.value(v) : w.null();
    };
    const bool object = body && body->root().is_object();
    put("type", object ? body->root().member("type") : JsonValue());
    put("sessionId", object ? body->root().member("sessionId") : JsonValue());
    put("body", object ? body->root() : JsonValue());
}

}  // namespace

}  // namespace merchant
