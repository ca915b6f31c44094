// The attempt rules (attempts.hpp): pure.
#include "rules/attempts.hpp"

namespace merchant {

using paywasm::PayMethod;

std::string_view to_string(AttemptState s) {
    switch (s) {
        case AttemptState::registered: return "registered";
        case AttemptState::answered: return "answered";
        case AttemptState::unknown: return "unknown";
        case AttemptState::refused: return "refused";
        case AttemptState::no_money: return "no_money";
        case AttemptState::paid: return "paid";
        case AttemptState::released: return "released";
        case AttemptState::not_paid: return "not_paid";
        case AttemptState::paid_elsewhere: return "paid_elsewhere";
    }
    return "unknown";
}

std::string_view to_string(Verified v) {
    switch (v) {
        case Verified::open: return "open";
        case Verified::no_money: return "no_money";
        case Verified::paid: return "paid";
        case Verified::none: break;
    }
    return "none";
}

bool documented_refusal(PayMethod method, const std::optional<std::string>& code, const std::optional<int>& http) {
    if (method != PayMethod::exchange) return false;  // the service documents 418-422 for exchange payments only
    if (http && *http >= 418 && *http <= 422) return true;
    // Any other status but a 2xx is what was seen (a proxy's 502 whatever the body said): not a
    // refusal. A 2xx whose body carried the refusal (the service may answer 418-422 as a code in
    // the body), or no HTTP status at all: the core's names of 418-422.
    if (http && (*http < 200 || *http > 299)) return false;
    if (!code) return false;
    for (const char* refused : {"authentication_failed", "insufficient_balance", "whitelist_pending", "wallet_unsupported",
                                "below_minimum"}) {
        if (*code == refused) return true;
    }
    return false;
}

AttemptState attempt_state(const AttemptFacts& a) {
    if (a.verified == Verified::paid) return AttemptState::paid;
    if (a.verified == Verified::no_money) return AttemptState::no_money;
    if (a.resolution) {
        if (*a.resolution == "release") return AttemptState::released;
        if (*a.resolution == "paid_elsewhere") return AttemptState::paid_elsewhere;
        return AttemptState::not_paid;
    }
    if (a.verified == Verified::open || a.method == PayMethod::qr) return AttemptState::answered;  // the service has it, no outcome yet
    if (!a.reported) return AttemptState::registered;
    if (a.error_code || a.error_http) {
        return documented_refusal(a.method, a.error_code, a.error_http) ? AttemptState::refused : AttemptState::unknown;
    }
    return AttemptState::answered;
}

bool blocks_pay(AttemptState s) {
    return s == AttemptState::registered || s == AttemptState::answered || s == AttemptState::unknown;
}

Verified verified_of(const Decision& d) {
    if (d.success) return Verified::paid;
    if (d.info.final && d.info.taken == paywasm::MoneyTaken::none && d.outcome != Outcome::amount_mismatch) {
        return Verified::no_money;
    }
    return Verified::open;
}

Payable payable(const PayableSession& s, const std::vector<AttemptFacts>& attempts) {
    Payable p;
    const auto stop = [&](const char* reason, const AttemptFacts* a = nullptr) {
        p.armed = false;
        p.reason = reason;
        if (a) {
            p.attempt_id = a->id;
            // The shopper's reference: the verified transaction, else what their browser reported.
            p.transaction_id = a->transaction_id ? a->transaction_id : a->reported_transaction_id;
        }
        return p;
    };
    if (s.success) return stop("paid");
    for (const auto& a : attempts) {
        if (a.resolution == std::optional<std::string>("paid_elsewhere") || attempt_state(a) == AttemptState::paid) {
            return stop("paid", &a);
        }
    }
    // The merchant's word before the clock: an order closed as not paid reads "closed", a clear end,
    // whether or not the session also expired.
    for (const auto& a : attempts) {
        if (a.resolution == std::optional<std::string>("not_paid")) return stop("closed", &a);
    }
    if (s.expired) return stop("expired");
    for (const auto& a : attempts) {
        if (a.method == PayMethod::qr) {
            // A live code blocks nothing by itself; past its window with no outcome, nobody knows.
            if (a.window_end && s.now >= *a.window_end && blocks_pay(attempt_state(a))) return stop("unknown", &a);
            continue;
        }
        switch (attempt_state(a)) {
            case AttemptState::answered: return stop("in_progress", &a);
            case AttemptState::unknown: return stop("unknown", &a);
            case AttemptState::registered: return stop("registered", &a);
            default: break;
        }
    }
    // A verified status that may hold money, of no attempt the merchant resolved (an older widget's
    // payment, or one whose attempt was never registered).
    if (s.held) {
        const auto info = paywasm::describe_checkout_status(s.held->status, s.held_method, s.held->mismatch);
        bool resolved = false;
        for (const auto& a : attempts) resolved = resolved || (a.resolution && a.transaction_id == s.held->transaction_id);
        if (!resolved && !info.final && info.taken != paywasm::MoneyTaken::none) {
            p.reason = "in_progress";
            p.transaction_id = s.held->transaction_id;
            return p;
        }
    }
    p.armed = true;
    p.reason = "none";
    return p;
}

std::optional<std::int64_t> stuck_since(const AttemptFacts& a, const AttentionThresholds& t) {
    if (a.resolution || !blocks_pay(attempt_state(a))) return std::nullopt;
    if (a.method == PayMethod::qr) return a.window_end ? *a.window_end : a.created_at + t.qr_ms;
    if (a.method == PayMethod::bank && a.verified_open_at) return *a.verified_open_at + t.bank_pending_ms;
    return a.created_at + (a.method == PayMethod::bank ? t.bank_ms : t.exchange_ms);
}

bool unconfirmed(const AttemptFacts& a) { return a.verified == Verified::none && !a.transaction_id; }

std::string_view stuck_reason(const AttemptFacts& a) {
    if (a.method == PayMethod::qr) return "qr_window";
    if (a.method == PayMethod::bank && a.verified_open_at) return "bank_pending";
    return to_string(attempt_state(a));
}

bool needs_attention(const AttemptFacts& a) {
    const bool settled = a.verified == Verified::paid || a.verified == Verified::no_money;
    return (a.attention_at && !a.resolution && !settled) || a.conflict_at;
}

MerchantWord merchant_word(const std::vector<AttemptFacts>& attempts) {
    MerchantWord w;
    for (const auto& a : attempts) {
        w.paid_elsewhere = w.paid_elsewhere || a.resolution == std::optional<std::string>("paid_elsewhere");
        w.closed = w.closed || a.resolution == std::optional<std::string>("not_paid");
    }
    return w;
}

Verified verified_of_held(const HeldStatus& held, bool success) {
    if (success) return Verified::paid;
    return qr_code_dead(held, held.transaction_id) ? Verified::no_money : Verified::open;
}

bool contradicts_resolution(const std::optional<std::string>& resolution, Verified v) {
    if (!resolution) return false;
    if (*resolution == "paid_elsewhere") return v == Verified::no_money;
    return v == Verified::paid;  // release, not_paid
}

std::optional<std::size_t> attempt_for_transaction(const std::vector<AttemptFacts>& attempts, std::string_view tx_id,
                                                   std::optional<PayMethod> method) {
    for (std::size_t i = 0; i < attempts.size(); ++i) {
        if (attempts[i].transaction_id && *attempts[i].transaction_id == tx_id) return i;
    }
    for (std::size_t i = 0; i < attempts.size(); ++i) {
        const auto& a = attempts[i];
        if (!a.transaction_id && a.reported_transaction_id && *a.reported_transaction_id == tx_id) return i;
    }
    if (!method) return std::nullopt;
    for (std::size_t i = 0; i < attempts.size(); ++i) {
        const auto& a = attempts[i];
        if (a.method == *method && !a.transaction_id && !a.reported_transaction_id && a.verified == Verified::none) return i;
    }
    return std::nullopt;
}

}  // namespace merchant
