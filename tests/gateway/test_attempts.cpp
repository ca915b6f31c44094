// The attempt rules (src/merchant/rules/attempts.hpp), without a database: what each report is worth,
// when Pay is armed, when an attempt is stuck, which attempt a verified transaction belongs to.
#include <doctest/doctest.h>

#include "rules/attempts.hpp"

using namespace merchant;

namespace {

AttemptFacts attempt(std::string method = "exchange", std::int64_t at = 1000) {
    AttemptFacts a;
    a.id = "at_" + method + std::to_string(at);
    a.method = paywasm::pay_method_from(method).value();
    a.created_at = at;
    return a;
}

AttemptFacts reported_error(std::string method, std::optional<std::string> code, std::optional<int> http) {
    AttemptFacts a = attempt(std::move(method));
    a.reported = true;
    a.error_code = std::move(code);
    a.error_http = http;
    return a;
}

PayableSession open_session() { return PayableSession{}; }

}  // namespace

TEST_CASE("A registered attempt with no report blocks Pay: the tab may have closed after sending") {
    const Payable p = payable(open_session(), {attempt()});
    CHECK_FALSE(p.armed);
    CHECK(p.reason == "registered");
    CHECK(p.attempt_id == attempt().id);
}

TEST_CASE("A reported transaction is in progress until a verified webhook says what happened") {
    AttemptFacts a = attempt();
    a.reported = true;
    a.transaction_id = "tx-1";
    a.reported_status = 2;  // even a browser that says "success": the browser's word
    CHECK(attempt_state(a) == AttemptState::answered);
    const Payable p = payable(open_session(), {a});
    CHECK_FALSE(p.armed);
    CHECK(p.reason == "in_progress");
    CHECK(p.transaction_id == std::optional<std::string>("tx-1"));
    a.verified = Verified::no_money;
    CHECK(attempt_state(a) == AttemptState::no_money);
    CHECK(payable(open_session(), {a}).armed);
    a.verified = Verified::paid;
    CHECK(payable(open_session(), {a}).reason == "paid");
}

TEST_CASE("Only the service's documented refusals of an exchange payment (418-422) arm Pay again") {
    for (int code : {418, 419, 420, 421, 422}) {
        CHECK(attempt_state(reported_error("exchange", "insufficient_balance", code)) == AttemptState::refused);
    }
    CHECK(attempt_state(reported_error("exchange", "below_minimum", std::nullopt)) == AttemptState::refused);
    // The refusal as a code in a 200 body (how the widget reports what the core read from it).
    CHECK(attempt_state(reported_error("exchange", "insufficient_balance", 200)) == AttemptState::refused);
    CHECK(payable(open_session(), {reported_error("exchange", "wallet_unsupported", 421)}).armed);
    // Anything that does not prove nothing was stored: unknown, blocks.
    for (auto [code, http] : {std::pair<const char*, std::optional<int>>{"server", 500}, {"server", 502}, {"server", 504},
                              {"network", std::nullopt}, {"timeout", std::nullopt}, {"bad_response", 200},
                              {"unauthorized", 401}, {"server", 417}, {"server", 423}}) {
        const AttemptFacts a = reported_error("exchange", code, http);
        CHECK(attempt_state(a) == AttemptState::unknown);
        CHECK(payable(open_session(), {a}).reason == "unknown");
    }
    // A code the core names for 419, but an HTTP status of 502: the status is what was seen.
    CHECK(attempt_state(reported_error("exchange", "insufficient_balance", 502)) == AttemptState::unknown);
    // Bank payments have no documented refusal that stores nothing.
    CHECK(attempt_state(reported_error("bank", "insufficient_balance", 419)) == AttemptState::unknown);
}

TEST_CASE("The merchant's resolution: release and not_paid stop blocking, paid_elsewhere pays, not_paid closes") {
    AttemptFacts a = attempt();
    a.resolution = "release";
    CHECK(attempt_state(a) == AttemptState::released);
    CHECK(payable(open_session(), {a}).armed);
    a.resolution = "not_paid";
    CHECK(payable(open_session(), {a}).reason == "closed");
    a.resolution = "paid_elsewhere";
    CHECK(payable(open_session(), {a}).reason == "paid");
    // A verified outcome still applies after a resolution (and contradicts release with a success).
    a.resolution = "release";
    a.verified = Verified::paid;
    CHECK(attempt_state(a) == AttemptState::paid);
    CHECK(contradicts_resolution(a.resolution, Verified::paid));
    CHECK_FALSE(contradicts_resolution(a.resolution, Verified::no_money));
    CHECK(contradicts_resolution(std::string("paid_elsewhere"), Verified::no_money));
    CHECK_FALSE(contradicts_resolution(std::nullopt, Verified::paid));
}

TEST_CASE("Pay: a paid or expired session is never armed; one blocking attempt among settled ones blocks") {
    PayableSession s;
    s.success = true;
    CHECK(payable(s, {}).reason == "paid");
    s = PayableSession{};
    s.expired = true;
    CHECK(payable(s, {}).reason == "expired");
    AttemptFacts refused = reported_error("exchange", "insufficient_balance", 419);
    AttemptFacts unknown = reported_error("exchange", "server", 502);
    unknown.id = "at_2";
    CHECK(payable(open_session(), {refused, unknown}).attempt_id == std::optional<std::string>("at_2"));
    CHECK(payable(open_session(), {}).armed);
    CHECK(payable(open_session(), {}).reason == "none");
}

TEST_CASE("A verified status that may hold money blocks Pay unless the merchant resolved its attempt") {
    PayableSession s;
    s.held = HeldStatus{0, "tx-9", false, std::nullopt};  // pending
    s.held_method = paywasm::PayMethod::bank;
    CHECK_FALSE(payable(s, {}).armed);
    CHECK(payable(s, {}).transaction_id == std::optional<std::string>("tx-9"));
    AttemptFacts a = attempt("bank");
    a.transaction_id = "tx-9";
    a.verified = Verified::open;
    CHECK(payable(s, {a}).reason == "in_progress");
    a.resolution = "release";
    CHECK(payable(s, {a}).armed);
}

TEST_CASE("Stuck: per method from creation, a bank payment verified pending from then; resolved or settled never") {
    const AttentionThresholds t{};
    AttemptFacts ex = attempt("exchange", 0);
    CHECK(stuck_since(ex, t) == std::optional<std::int64_t>(180LL * 60000));
    CHECK(stuck_reason(ex) == "registered");
    AttemptFacts bank = attempt("bank", 0);
    CHECK(stuck_since(bank, t) == std::optional<std::int64_t>(60LL * 60000));
    bank.verified = Verified::open;
    bank.verified_open_at = 5000;
    CHECK(stuck_since(bank, t) == std::optional<std::int64_t>(5000 + 7LL * 86400000));
    CHECK(stuck_reason(bank) == "bank_pending");
    bank.resolution = "release";
    CHECK_FALSE(stuck_since(bank, t));
    CHECK_FALSE(stuck_since(reported_error("exchange", "insufficient_balance", 419), t));
    ex.verified = Verified::no_money;
    CHECK_FALSE(stuck_since(ex, t));
}

TEST_CASE("A verified transaction finds its attempt by id, else the oldest of its method with none") {
    AttemptFacts a1 = attempt("exchange", 1), a2 = attempt("exchange", 2), b = attempt("bank", 3);
    a2.transaction_id = "tx-2";
    const std::vector<AttemptFacts> all{a1, a2, b};
    CHECK(attempt_for_transaction(all, "tx-2", paywasm::PayMethod::exchange) == std::optional<std::size_t>(1));
    CHECK(attempt_for_transaction(all, "tx-2", std::nullopt) == std::optional<std::size_t>(1));
    CHECK(attempt_for_transaction(all, "tx-new", paywasm::PayMethod::exchange) == std::optional<std::size_t>(0));
    CHECK(attempt_for_transaction(all, "tx-new", paywasm::PayMethod::bank) == std::optional<std::size_t>(2));
    CHECK_FALSE(attempt_for_transaction(all, "tx-new", std::nullopt));
    CHECK_FALSE(attempt_for_transaction({a2}, "tx-new", paywasm::PayMethod::exchange));
}

TEST_CASE("A QR code is an attempt: live it blocks nothing; past its window with no outcome it is stuck and blocks") {
    const AttentionThresholds t{};
    AttemptFacts qr = attempt("qr", 0);
    qr.transaction_id = "tx-qr";  // the service's own answer to the gateway
    qr.verified = Verified::open;  // its first webhook: status 10, waiting
    qr.window_end = 60LL * 60000;
    CHECK(attempt_state(qr) == AttemptState::answered);
    PayableSession s;
    s.now = 1000;
    CHECK(payable(s, {qr}).armed);
    s.now = 60LL * 60000;
    const Payable held = payable(s, {qr});
    CHECK_FALSE(held.armed);
    CHECK(held.reason == "unknown");
    CHECK(held.attempt_id == qr.id);
    CHECK(held.transaction_id == std::optional<std::string>("tx-qr"));
    CHECK(stuck_since(qr, t) == std::optional<std::int64_t>(60LL * 60000));
    CHECK(stuck_reason(qr) == "qr_window");
    CHECK_FALSE(unconfirmed(qr));  // the gateway made it: raised on a payment link's session too

    SUBCASE("its verified final status settles it") {
        qr.verified = Verified::no_money;
        CHECK(payable(s, {qr}).armed);
        CHECK_FALSE(stuck_since(qr, t));
        qr.verified = Verified::paid;
        CHECK(payable(s, {qr}).reason == "paid");
    }
    SUBCASE("the merchant's resolution settles it as any attempt") {
        qr.attention_at = 60LL * 60000;
        CHECK(needs_attention(qr));
        qr.resolution = "release";
        CHECK(payable(s, {qr}).armed);
        CHECK_FALSE(needs_attention(qr));
        qr.resolution = "paid_elsewhere";
        CHECK(payable(s, {qr}).reason == "paid");
        qr.resolution = "not_paid";
        CHECK(payable(s, {qr}).reason == "closed");
    }
}

TEST_CASE("A QR code's first webhook before the service's answer: the attempt starts from what it said") {
    CHECK(verified_of_held(HeldStatus{10, "tx", false, std::nullopt}, false) == Verified::open);
    CHECK(verified_of_held(HeldStatus{19, "tx", false, std::nullopt}, false) == Verified::no_money);
    CHECK(verified_of_held(HeldStatus{19, "tx", false, std::string("0.0001")}, false) == Verified::open);
    CHECK(verified_of_held(HeldStatus{1, "tx", false, std::nullopt}, true) == Verified::paid);
}
