// The gateway's money rules (decide.hpp). Pure: every input is an argument.
#include "rules/decide.hpp"

#include <algorithm>

#include "paywasm/decimal.hpp"

namespace merchant {

using paywasm::describe_status;
using paywasm::MoneyTaken;
using paywasm::PayMethod;

namespace {

bool nonzero(const std::optional<std::string>& amount) {
    paywasm::Decimal d;
    return amount && paywasm::Decimal::try_parse(*amount, d) && !d.is_zero();
}

// Money of the shopper's is in this status: the core says some was taken (or may have been), or
// the service reports a receivedAmount above zero whatever the code.
bool shows_money(const HeldStatus& s) {
    return describe_status(s.status).taken != MoneyTaken::none || nonzero(s.received);
}

bool is_success(const HeldStatus& s) { return !s.mismatch && describe_status(s.status).success; }

// awaiting payment < any other status not yet final < final < refund (money going back comes
// after everything else of a transaction, a success included).
int rank(int status) {
    const auto info = describe_status(status);
    if (info.kind == paywasm::StatusKind::refund) return 3;
    if (info.final) return 2;
    return info.kind == paywasm::StatusKind::awaiting_payment ? 0 : 1;
}

}  // namespace

IncomingTx incoming_tx(const paywasm::Transaction& tx) {
    IncomingTx in;
    in.id = tx.id;
    in.status = tx.status;
    in.merchant_id = tx.merchant_id;
    if (tx.meta) in.order_id = tx.meta->offer_id;
    if (tx.native_amount) {
        in.native_amount = tx.native_currency ? paywasm::amount_text({*tx.native_amount, *tx.native_currency})
                                              : tx.native_amount->to_string();
    }
    in.native_currency = tx.native_currency;
    if (tx.currency_info) in.fiat = tx.currency_info->is_fiat;
    if (tx.received_amount) in.received = tx.received_amount->to_string();
    if (tx.amount && tx.currency) {
        in.amount = tx.amount->to_string();
        in.currency = *tx.currency;
        std::transform(in.currency->begin(), in.currency->end(), in.currency->begin(), ::toupper);
    }
    return in;
}

std::string_view to_string(Outcome o) {
    switch (o) {
        case Outcome::applied: return "applied";
        case Outcome::duplicate: return "duplicate";
        case Outcome::stale: return "stale";
        case Outcome::foreign_merchant: return "foreign_merchant";
        case Outcome::unknown_offer: return "unknown_offer";
        case Outcome::unknown_transaction: return "unknown_transaction";
        case Outcome::amount_mismatch: return "amount_mismatch";
    }
    return "unknown_offer";
}

bool supersedes(const HeldStatus& held, const HeldStatus& next) {
    // After a success only a refund of the same transaction: the shop must hear of it.
    if (is_success(held)) return held.transaction_id == next.transaction_id && rank(next.status) == 3;
    if (held.status == next.status && held.mismatch == next.mismatch && held.received == next.received) return false;
    if (rank(next.status) < rank(held.status)) {
        // Only money arriving after a final status of nothing (a late payment to a timed-out code).
        return describe_status(held.status).final && !shows_money(held) && shows_money(next);
    }
    return true;
}

bool qr_code_dead(const std::optional<HeldStatus>& status, std::string_view code_tx) {
    return status && status->transaction_id == code_tx && !status->mismatch && describe_status(status->status).final &&
           !shows_money(*status);
}

Decision decide_webhook(std::string_view our_merchant_id, const std::optional<SessionFacts>& session,
                        const std::vector<QrCodeRow>& qr_codes, const std::optional<HeldStatus>& stored,
                        const IncomingTx& tx) {
    Decision d;
    d.info = describe_status(tx.status);
    if (!tx.merchant_id || *tx.merchant_id != our_merchant_id) {
        d.outcome = Outcome::foreign_merchant;
        d.reason = tx.merchant_id ? "the transaction is another merchant's" : "the transaction names no merchantId";
        return d;
    }
    if (!session) {
        d.outcome = Outcome::unknown_offer;
        d.reason = "no session or QR code has this order id";
        // Money for an order id the gateway holds nothing of (its session pruned by --retain-days,
        // or never made here): the shop is told (checkout.late_payment) rather than it going unseen.
        d.forward = d.info.taken != paywasm::MoneyTaken::none;
        return d;
    }

    // Which of the session's payments this is.
    const QrCodeRow* code = nullptr;
    for (const auto& c : qr_codes) {
        if (tx.order_id && c.order_id == *tx.order_id) code = &c;
    }
    if (code) {
        if (code->transaction_id && *code->transaction_id != tx.id) {
            d.outcome = Outcome::unknown_transaction;
            d.reason = "the QR code's order id with a transaction the gateway did not create";
            return d;
        }
        d.method = PayMethod::qr;
        d.bind_qr_transaction = !code->transaction_id;
    } else if (tx.order_id && *tx.order_id == session->offer_id && (session->offers_exchange || session->offers_bank)) {
        // Which of the two: the only one offered; else what the signed text says (fiat: bank);
        // else the method of the attempt the browser reported this transaction for.
        if (session->offers_exchange != session->offers_bank) {
            d.method = session->offers_exchange ? PayMethod::exchange : PayMethod::bank;
        } else if (tx.fiat) {
            d.method = *tx.fiat ? PayMethod::bank : PayMethod::exchange;
        } else if (session->reported_method) {
            d.method = session->reported_method;
        }
    } else {
        d.outcome = Outcome::unknown_transaction;
        d.reason = "the session takes no payment of this kind under this order id";
        return d;
    }
    // Without a known method: an exchange or bank payment, read as the core reads it.
    d.info = paywasm::describe_checkout_status(tx.status, d.method, false);

    const bool mismatch = !paywasm::pays_order_total(session->amount, session->currency, tx.native_amount, tx.native_currency);
    const HeldStatus next{tx.status, tx.id, mismatch, tx.received};
    d.store_transaction = !stored || supersedes(*stored, next);

    const bool replaced_code = code && code->replaced;
    if (replaced_code && !shows_money(next)) {
        d.moves_session = false;  // the old code's waiting or expiry is not the new code's
    } else if (!session->current) {
        d.moves_session = true;
    } else if (session->current->transaction_id == tx.id) {
        d.moves_session = supersedes(*session->current, next);
    } else {
        // Another payment of the same order: it never hides a success, nor money with nothing.
        d.moves_session = !is_success(*session->current) && !(shows_money(*session->current) && !shows_money(next));
    }
    d.outcome = mismatch ? Outcome::amount_mismatch : d.moves_session ? Outcome::applied : Outcome::stale;
    d.success = d.outcome == Outcome::applied && d.info.success;
    d.forward = d.moves_session;
    if (d.outcome == Outcome::stale) d.reason = "older or weaker than the session's status";
    if (mismatch) d.reason = "the order total paid differs from the session's";
    return d;
}

Decision decide_debit_webhook(const std::optional<HeldStatus>& stored, const IncomingTx& tx) {
    Decision d;
    d.info = describe_status(tx.status);
    d.store_transaction = !stored || supersedes(*stored, HeldStatus{tx.status, tx.id, false, tx.received});
    d.forward = d.store_transaction;
    d.outcome = d.forward ? Outcome::applied : Outcome::stale;
    d.success = d.forward && d.info.success;
    return d;
}

std::string_view event_type(const Decision& d) {
    using K = paywasm::StatusKind;
    if (d.outcome == Outcome::unknown_offer) return "checkout.late_payment";
    if (d.outcome == Outcome::amount_mismatch) return "checkout.amount_mismatch";
    if (d.success) return "checkout.succeeded";
    switch (d.info.kind) {
        case K::failed: case K::canceled: case K::timed_out: return "checkout.failed";
        case K::partial: case K::partial_closed: return "checkout.partially_paid";
        case K::pending: case K::processing: return "checkout.pending";
        case K::awaiting_payment: return "checkout.awaiting_payment";
        case K::refund: return "checkout.refunded";
        case K::success: case K::unknown: break;
    }
    return "checkout.status_unknown";
}

}  // namespace merchant
