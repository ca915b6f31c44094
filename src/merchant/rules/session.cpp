// A checkout session's own rules (session.hpp): which methods it offers, and its status once a
// decision moved it.
#include "rules/session.hpp"

namespace merchant {

paywasm::PayMethods Session::methods() const {
    return paywasm::parse_pay_methods(methods_csv, ',', true).value_or(paywasm::PayMethods());
}

Payable payable_of(const Session& s) {
    // Paid: a verified success, or an underpayment the merchant accepted (the order's state is paid:
    // the customer's page shows the receipt, never "expired" or Pay); "paid elsewhere" is the attempts'.
    const bool paid = s.status.success || s.underpayment_accepted_at.has_value();
    return payable(PayableSession{s.as_of >= s.expires_at, paid, held_of(s), s.status.method, s.as_of}, s.attempts);
}

OrderFacts order_facts(const Session& s, std::int64_t now) {
    OrderFacts f;
    f.state = s.status.state;
    f.success = s.status.success;
    f.accepted = s.underpayment_accepted_at.has_value();
    f.paid_elsewhere = s.paid_elsewhere_at.has_value();
    f.closed = s.closed_at.has_value();
    f.expired = now >= s.expires_at;
    return f;
}

std::string_view order_state(const Session& s, std::int64_t now) { return order_bucket(order_facts(s, now)); }

std::optional<HeldStatus> held_of(const Session& s) {
    if (!s.status.status || !s.status.transaction_id) return std::nullopt;
    return HeldStatus{*s.status.status, *s.status.transaction_id, paywasm::is_amount_mismatch_state(s.status.state),
                      s.status.received_amount};
}

StatusView status_after(const StatusView& before, const Decision& d, const IncomingTx& in, std::int64_t now) {
    StatusView v;
    v.status = in.status;
    v.state = std::string(paywasm::checkout_state(d.info.kind, d.outcome == Outcome::amount_mismatch));
    v.final = d.info.final;
    v.success = d.success;
    v.transaction_id = in.id;
    v.received_amount = in.received;
    v.method = d.method;
    v.tx_amount = in.amount;
    v.tx_currency = in.currency;
    v.updated_at = now;
    v.version = before.version + 1;
    return v;
}

}  // namespace merchant
