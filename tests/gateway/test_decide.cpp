// The gateway's money rules (src/merchant/rules/decide.hpp), without a database.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "rules/decide.hpp"

using namespace merchant;

namespace {

const std::string kUs = "m-ours";

SessionFacts facts(bool exchange = true, std::optional<HeldStatus> current = std::nullopt) {
    return SessionFacts{"order-1", "82.00", "USD", exchange, false, std::move(current), {}};
}

IncomingTx tx(std::string id, int status, std::string order = "order-1") {
    IncomingTx t;
    t.id = std::move(id);
    t.status = status;
    t.merchant_id = kUs;
    t.order_id = std::move(order);
    t.native_amount = "82";
    t.native_currency = "usd";
    return t;
}

}  // namespace

TEST_CASE("Another merchant's transaction, or one with no merchantId, is foreign and moves nothing") {
    IncomingTx t = tx("t1", 1);
    t.merchant_id = "m-other";
    Decision d = decide_webhook(kUs, facts(), {}, std::nullopt, t);
    CHECK(d.outcome == Outcome::foreign_merchant);
    CHECK_FALSE(d.moves_session);
    CHECK_FALSE(d.forward);
    CHECK_FALSE(d.success);
    t.merchant_id.reset();
    CHECK(decide_webhook(kUs, facts(), {}, std::nullopt, t).outcome == Outcome::foreign_merchant);
}

TEST_CASE("No session: unknown_offer, never a success; forwarded as late money only when it shows money") {
    const Decision d = decide_webhook(kUs, std::nullopt, {}, std::nullopt, tx("t1", 1));
    CHECK(d.outcome == Outcome::unknown_offer);
    CHECK_FALSE(d.success);
    CHECK(d.forward);  // checkout.late_payment (a session pruned by --retain-days)
    CHECK(event_type(d) == "checkout.late_payment");
    CHECK_FALSE(decide_webhook(kUs, std::nullopt, {}, std::nullopt, tx("t2", -1)).forward);  // failed: no money
}

TEST_CASE("A QR session takes only its codes' transactions") {
    const std::vector<QrCodeRow> codes = {{"order-1~qr1", std::string("qr-tx"), false}};
    SUBCASE("its own code's transaction is applied") {
        const Decision d = decide_webhook(kUs, facts(false), codes, std::nullopt, tx("qr-tx", 1, "order-1~qr1"));
        CHECK(d.outcome == Outcome::applied);
        CHECK(d.success);
        CHECK(d.method == paywasm::PayMethod::qr);
    }
    SUBCASE("another transaction under the code's orderId is not") {
        CHECK(decide_webhook(kUs, facts(false), codes, std::nullopt, tx("other", 1, "order-1~qr1")).outcome ==
              Outcome::unknown_transaction);
    }
    SUBCASE("a transaction under the offerId of a session that offers no exchange or bank is not") {
        CHECK(decide_webhook(kUs, facts(false), codes, std::nullopt, tx("other", 1)).outcome ==
              Outcome::unknown_transaction);
    }
    SUBCASE("a code whose answer was lost takes the first transaction and records it") {
        const std::vector<QrCodeRow> lost = {{"order-1~qr1", std::nullopt, false}};
        const Decision d = decide_webhook(kUs, facts(false), lost, std::nullopt, tx("qr-tx", 10, "order-1~qr1"));
        CHECK(d.outcome == Outcome::applied);
        CHECK(d.bind_qr_transaction);
    }
}

TEST_CASE("Another amount is amount_mismatch: shown, forwarded, never a success") {
    IncomingTx t = tx("t1", 1);
    t.native_amount = "81.99";
    const Decision d = decide_webhook(kUs, facts(), {}, std::nullopt, t);
    CHECK(d.outcome == Outcome::amount_mismatch);
    CHECK(d.moves_session);
    CHECK_FALSE(d.success);
    CHECK(event_type(d) == "checkout.amount_mismatch");
    t.native_amount = "82.00";
    t.native_currency = "EUR";
    CHECK(decide_webhook(kUs, facts(), {}, std::nullopt, t).outcome == Outcome::amount_mismatch);
}

TEST_CASE("A status never regresses") {
    const HeldStatus paid{1, "t1", false, std::nullopt};
    SUBCASE("a late pending after paid is stale, for the session and the stored transaction") {
        const Decision d = decide_webhook(kUs, facts(true, paid), {}, paid, tx("t1", 0));
        CHECK(d.outcome == Outcome::stale);
        CHECK_FALSE(d.moves_session);
        CHECK_FALSE(d.store_transaction);
    }
    SUBCASE("a success is never replaced, not even by another transaction's failure") {
        CHECK_FALSE(decide_webhook(kUs, facts(true, paid), {}, std::nullopt, tx("t2", -1)).moves_session);
        CHECK_FALSE(decide_webhook(kUs, facts(true, paid), {}, std::nullopt, tx("t2", 20)).moves_session);
    }
    SUBCASE("but a refund of the paid transaction is news: applied, forwarded as checkout.refunded") {
        const Decision d = decide_webhook(kUs, facts(true, paid), {}, paid, tx("t1", 21));
        CHECK(d.outcome == Outcome::applied);
        CHECK(d.moves_session);
        CHECK(d.store_transaction);
        CHECK_FALSE(d.success);
        CHECK(event_type(d) == "checkout.refunded");
        const HeldStatus refunded{21, "t1", false, std::nullopt};
        CHECK_FALSE(supersedes(refunded, {0, "t1", false, std::nullopt}));
        CHECK_FALSE(supersedes(refunded, {1, "t1", false, std::nullopt}));
        CHECK(supersedes(refunded, {22, "t1", false, std::nullopt}));
    }
    SUBCASE("pending then failed moves; awaiting payment after pending does not") {
        const HeldStatus pending{0, "t1", false, std::nullopt};
        CHECK(supersedes(pending, {-1, "t1", false, std::nullopt}));
        CHECK_FALSE(supersedes(pending, {10, "t1", false, std::nullopt}));
    }
    SUBCASE("money after a final status of nothing moves (a late payment to a timed-out code)") {
        const HeldStatus timed_out{19, "t1", false, std::nullopt};
        CHECK(supersedes(timed_out, {0, "t1", false, std::nullopt}));
        CHECK(supersedes(timed_out, {19, "t1", false, std::string("0.0001")}));
        CHECK_FALSE(supersedes(timed_out, {10, "t1", false, std::nullopt}));
    }
    SUBCASE("another payment with nothing taken does not hide one with money") {
        const HeldStatus pending{0, "t1", false, std::nullopt};
        CHECK_FALSE(decide_webhook(kUs, facts(true, pending), {}, std::nullopt, tx("t2", -1)).moves_session);
        CHECK(decide_webhook(kUs, facts(true, pending), {}, std::nullopt, tx("t2", 1)).moves_session);
    }
}

TEST_CASE("A replaced QR code moves its session only with money") {
    const std::vector<QrCodeRow> codes = {{"order-1~qr1", std::string("old"), true}, {"order-1~qr2", std::string("new"), false}};
    const HeldStatus waiting{10, "new", false, std::nullopt};
    CHECK(decide_webhook(kUs, facts(false, waiting), codes, std::nullopt, tx("old", 19, "order-1~qr1")).outcome ==
          Outcome::stale);
    const Decision late = decide_webhook(kUs, facts(false, waiting), codes, std::nullopt, tx("old", 1, "order-1~qr1"));
    CHECK(late.outcome == Outcome::applied);
    CHECK(late.success);
}

TEST_CASE("A QR code is dead only when final with no money, and it is the session's status") {
    CHECK(qr_code_dead(HeldStatus{19, "q", false, std::nullopt}, "q"));
    CHECK(qr_code_dead(HeldStatus{-1, "q", false, std::string("0")}, "q"));
    CHECK_FALSE(qr_code_dead(HeldStatus{19, "q", false, std::string("0.1")}, "q"));
    CHECK_FALSE(qr_code_dead(HeldStatus{19, "other", false, std::nullopt}, "q"));
    CHECK_FALSE(qr_code_dead(HeldStatus{101, "q", false, std::nullopt}, "q"));
    CHECK_FALSE(qr_code_dead(HeldStatus{7, "q", false, std::nullopt}, "q"));
    CHECK_FALSE(qr_code_dead(std::nullopt, "q"));
}

TEST_CASE("A debit's statuses: applied when they supersede the stored one, a success only at 1-4") {
    const IncomingTx pending = tx("d1", 0, "club-42-2026-12");
    const Decision first = decide_debit_webhook(std::nullopt, pending);
    CHECK(first.outcome == Outcome::applied);
    CHECK(first.forward);
    CHECK_FALSE(first.success);
    const HeldStatus paid{1, "d1", false, std::nullopt};
    CHECK(decide_debit_webhook(paid, pending).outcome == Outcome::stale);
    const Decision done = decide_debit_webhook(HeldStatus{0, "d1", false, std::nullopt}, tx("d1", 1, "club-42-2026-12"));
    CHECK(done.outcome == Outcome::applied);
    CHECK(done.success);
}

TEST_CASE("A checkout offering exchange and bank: the method from the signed isFiat, else the browser's report, else none") {
    SessionFacts both{"order-1", "82.00", "USD", true, true, std::nullopt, {}};
    IncomingTx t = tx("t1", 0);
    CHECK_FALSE(decide_webhook(kUs, both, {}, std::nullopt, t).method.has_value());
    both.reported_method = paywasm::PayMethod::bank;
    CHECK(decide_webhook(kUs, both, {}, std::nullopt, t).method == paywasm::PayMethod::bank);
    // The signed text wins over what a browser reported.
    t.fiat = false;
    CHECK(decide_webhook(kUs, both, {}, std::nullopt, t).method == paywasm::PayMethod::exchange);
    t.fiat = true;
    both.reported_method.reset();
    CHECK(decide_webhook(kUs, both, {}, std::nullopt, t).method == paywasm::PayMethod::bank);
    // The label never changes the money: a success is a success either way.
    CHECK(decide_webhook(kUs, both, {}, std::nullopt, tx("t2", 1)).success);
    // One method offered: that one, whatever the text says.
    SessionFacts exchange_only = facts();
    t.fiat = true;
    CHECK(decide_webhook(kUs, exchange_only, {}, std::nullopt, t).method == paywasm::PayMethod::exchange);
}
