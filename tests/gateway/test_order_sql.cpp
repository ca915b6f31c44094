// The database's order state against the pure one (src/merchant/rules/order_state.hpp): kOrderBucketSql
// (with the list's split of "open" by expires_at) and kAttemptAttentionSql, run by the database the
// gateway runs on, must answer what the core's order_bucket() (paywasm/order.hpp) and
// needs_attention() answer, for every state word the core's status table gives a checkout and every
// combination of the facts they read. The database: PAYWASM_TEST_DB (a URL as --db takes it; the
// ctest gateway.order_sql.postgres gives a fresh PostgreSQL), else a fresh SQLite file. The schema is
// the gateway's own, migrated (schema.cpp), so the columns and the index are those the lists read.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <unistd.h>

#include "rules/attempts.hpp"
#include "rules/order_state.hpp"
#include "paywasm/status.hpp"
#include "store/schema.hpp"
#include "server/sql.hpp"

using namespace merchant;
using paywasm::server::SqlValue;

namespace {

std::unique_ptr<paywasm::server::Sql> open_db() {
    if (const char* url = std::getenv("PAYWASM_TEST_DB"); url && *url) return paywasm::server::open_sql(url);
    const auto path = std::filesystem::temp_directory_path() / ("paywasm-order-sql-" + std::to_string(::getpid()) + ".db");
    std::filesystem::remove(path);
    return paywasm::server::open_sql("sqlite:" + path.string());
}

SqlValue opt(bool set, std::int64_t v) { return set ? SqlValue(v) : SqlValue(); }

// Every state word a session can be stored under: no status yet, and checkout_state() of every row
// of the core's status table (each code it names and one it does not, under every method, paid in
// full or not; each status word of an exchange), with and without an amount mismatch.
std::set<std::string> every_state_word() {
    std::set<std::string> words = {std::string(paywasm::kNoStatusState)};
    std::vector<paywasm::StatusInfo> rows;
    std::vector<int> codes = paywasm::known_status_codes();
    codes.push_back(7);  // named by no row: unknown
    for (int code : codes) {
        rows.push_back(paywasm::describe_status(code));
        for (auto m : {paywasm::PayMethod::exchange, paywasm::PayMethod::bank, paywasm::PayMethod::qr}) {
            rows.push_back(paywasm::describe_status(code, m));
        }
    }
    for (const char* word : {"pending", "processing", "completed", "canceled"}) rows.push_back(paywasm::describe_status_word(word));
    for (const auto& info : rows) {
        for (bool mismatch : {false, true}) words.insert(std::string(paywasm::checkout_state(info.kind, mismatch)));
    }
    return words;
}

}  // namespace

TEST_CASE("the state words cover every kind of the status table") {
    // 11 kinds, amount_mismatch and open: a kind added to the table without a row here fails.
    CHECK(every_state_word().size() == 13);
}

TEST_CASE("kOrderBucketSql and the list's expiry split answer order_bucket() for every status and combination") {
    auto sql = open_db();
    migrate(*sql);
    const std::int64_t now = 1'800'000'000'000;
    std::map<std::string, std::string> expected;
    int n = 0;
    for (const std::string& state : every_state_word()) {
        for (int bits = 0; bits < 32; ++bits) {
            OrderFacts f;
            f.state = state;
            f.success = bits & 1;
            f.accepted = bits & 2;
            f.paid_elsewhere = bits & 4;
            f.closed = bits & 8;
            f.expired = bits & 16;
            const std::string id = "s" + std::to_string(n++);
            sql->execute("INSERT INTO sessions (id, offer_id, checkout, checkout_hash, amount, currency, methods, created_at, "
                         "expires_at, state, success, underpayment_accepted_at, paid_elsewhere_at, closed_at) "
                         "VALUES (?, ?, '{}', 'h', '1.00', 'USD', 'qr', ?, ?, ?, ?, ?, ?, ?)",
                         {id, "o" + id, now - 10, f.expired ? now - 1 : now + 1, std::string(state), std::int64_t(f.success),
                          opt(f.accepted, now), opt(f.paid_elsewhere, now), opt(f.closed, now)});
            expected[id] = std::string(order_bucket(f));
        }
    }
    // As Store::list_sessions reads it: the bucket, "open" split by expires_at against the clock.
    const auto rows = sql->query(std::string("SELECT id, ") + kOrderBucketSql + ", expires_at FROM sessions");
    REQUIRE(rows.size() == expected.size());
    for (const auto& r : rows) {
        std::string bucket = r.text(1);
        if (bucket == "open") bucket = r.integer(2) <= now ? "expired" : "pending";
        CHECK_MESSAGE(bucket == expected.at(r.text(0)), r.text(0));
    }
    // Each filter by the index's own expression finds exactly the sessions order_bucket() puts there.
    for (const char* bucket : {"paid", "partial", "failed", "refunded"}) {
        std::size_t want = 0;
        for (const auto& [id, b] : expected) want += b == bucket;
        const auto found = sql->query(std::string("SELECT count(*) FROM sessions WHERE ") + kOrderBucketSql + " = ?",
                                      {std::string(bucket)});
        CHECK_MESSAGE(found[0].integer(0) == static_cast<std::int64_t>(want), bucket);
    }
}

TEST_CASE("kAttemptAttentionSql answers needs_attention() for every combination") {
    auto sql = open_db();
    migrate(*sql);
    std::map<std::string, bool> expected;
    int n = 0;
    const std::optional<std::string> resolutions[] = {std::nullopt, "release", "paid_elsewhere", "not_paid"};
    for (const char* verified : {"none", "open", "no_money", "paid"}) {
        for (const auto& resolution : resolutions) {
            for (int bits = 0; bits < 4; ++bits) {
                AttemptFacts a;
                a.id = "a" + std::to_string(n++);
                a.verified = std::string(verified) == "open" ? Verified::open
                             : std::string(verified) == "no_money" ? Verified::no_money
                             : std::string(verified) == "paid" ? Verified::paid
                                                               : Verified::none;
                a.resolution = resolution;
                if (bits & 1) a.attention_at = 5;
                if (bits & 2) a.conflict_at = 6;
                sql->execute("INSERT INTO attempts (id, session_id, method, created_at, verified, resolution, attention_at, conflict_at) "
                             "VALUES (?, 's', 'exchange', 1, ?, ?, ?, ?)",
                             {a.id, std::string(verified), paywasm::server::or_null(resolution), opt(bits & 1, 5), opt(bits & 2, 6)});
                expected[a.id] = needs_attention(a);
            }
        }
    }
    const auto rows = sql->query(std::string("SELECT id, CASE WHEN ") + kAttemptAttentionSql + " THEN 1 ELSE 0 END FROM attempts");
    REQUIRE(rows.size() == expected.size());
    for (const auto& r : rows) CHECK_MESSAGE((r.integer(1) == 1) == expected.at(r.text(0)), r.text(0));
}
