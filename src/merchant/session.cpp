// A checkout session's own rules (session.hpp): which methods it offers, and its status once a
// decision moved it.
#include "session.hpp"

namespace merchant {

bool Session::offers(std::string_view method) const {
    std::size_t pos = 0;
    while (pos <= methods_csv.size()) {
        std::size_t end = methods_csv.find(',', pos);
        if (end == std::string::npos) end = methods_csv.size();
        if (std::string_view(methods_csv).substr(pos, end - pos) == method) return true;
        pos = end + 1;
    }
    return false;
}

Payable payable_of(const Session& s) {
    return payable(PayableSession{s.as_of >= s.expires_at, s.status.success, held_of(s), s.status.method}, s.attempts);
}

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
    if (d.method) v.method = std::string(paywasm::to_string(*d.method));
    v.tx_amount = in.amount;
    v.tx_currency = in.currency;
    v.updated_at = now;
    v.version = before.version + 1;
    return v;
}

}  // namespace merchant
