// The database's order state against the pure one (src/merchant/rules/order_state.hpp): kOrderBucketSql
// (with the list's split of "open" by expires_at) and kAttemptAttentionSql, run by the database the
// gateway runs on, must answer what the core's order_bucket() (paywasm/order.hpp) and
// needs_attention() answer, for every state word the core's status table gives a checkout and every
// combination of the facts they read; and the overview's tally the database keeps (schema 12) must
// be overview_tally() (rules/overview.hpp) of its sessions after every kind of write and the
// migration's fill (it failed with the update trigger listening to two of the columns it reads).
// The database: PAYWASM_TEST_DB (a URL as --db takes it; the
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
#include "rules/overview.hpp"
#include "paywasm/status.hpp"
#include "store/schema.hpp"
#include "server/sql.hpp"
#include "server/util.hpp"

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

namespace {

// The sessions' rows as the overview's definition reads them (overview.hpp's OverviewOrder), every
// order of the database: what overview_tally() makes of them is what the database's tally must be.
std::vector<OverviewOrder> order_rows(paywasm::server::Sql& sql) {
    std::vector<OverviewOrder> out;
    for (const auto& r : sql.query(std::string("SELECT currency, method, amount, success, final, underpayment_accepted_at, created_at, "
                                               "status_at, state, paid_elsewhere_at, closed_at, received_amount, tx_currency "
                                               "FROM sessions WHERE ") + kIsOrderSql)) {
        OverviewOrder o;
        o.currency = r.text(0);
        o.method = r.is_null(1) ? "" : r.text(1);
        o.amount = r.text(2);
        o.success = r.integer(3) != 0;
        o.final = r.integer(4) != 0;
        o.accepted = !r.is_null(5);
        o.created_at = r.integer(6);
        o.status_at = r.integer(7);
        o.state = r.text(8);
        o.paid_elsewhere = !r.is_null(9);
        o.closed = !r.is_null(10);
        o.received = r.optional_text(11);
        o.received_currency = r.optional_text(12);
        out.push_back(std::move(o));
    }
    return out;
}

std::string describe(const OverviewTally& t) {
    std::string s;
    for (const auto& k : t.kinds) {
        s += std::to_string(k.day) + " " + k.state + " " + std::to_string(k.success) + std::to_string(k.final) + std::to_string(k.accepted) +
             std::to_string(k.paid_elsewhere) + std::to_string(k.closed) + " " + k.currency + " " + k.amount + " " + k.method + " " +
             k.received.value_or("-") + " " + k.received_currency.value_or("-") + " x" + std::to_string(k.count) + "\n";
    }
    for (const auto& x : t.to_final) s += std::to_string(x.day) + " " + std::to_string(x.seconds) + "s x" + std::to_string(x.count) + "\n";
    return s;
}

// The database's tally against the definition's, and the cards and chart drawn from each.
void check_tally(paywasm::server::Sql& sql, const char* when) {
    INFO(when);
    const OverviewTally want = overview_tally(order_rows(sql));
    const OverviewTally got = read_overview_tally(sql, 0);
    CHECK(describe(got) == describe(want));
    for (std::int64_t since_day : {std::int64_t(0), std::int64_t(20'833), std::int64_t(20'834)}) {
        const OverviewCard a = overview_card(got, since_day), b = overview_card(want, since_day);
        CHECK(a.created == b.created);
        CHECK(a.paid == b.paid);
        CHECK(a.finished == b.finished);
        CHECK(a.partial == b.partial);
        CHECK(a.verified_totals == b.verified_totals);
        CHECK(a.accepted_arrived == b.accepted_arrived);
        CHECK(a.paid_elsewhere_totals == b.paid_elsewhere_totals);
        CHECK(a.median_to_final_s == b.median_to_final_s);
    }
    CHECK(paid_per_day(got, 20'830, 5) == paid_per_day(want, 20'830, 5));
}

}  // namespace

TEST_CASE("the database's overview tally is overview_tally() of its sessions, as they are written, changed and deleted") {
    auto sql = open_db();
    migrate(*sql);
    const std::int64_t now = 1'800'000'000'000;  // day 20833
    const std::optional<std::string> methods[] = {std::nullopt, "exchange", "qr"};
    const std::optional<std::string> received[] = {std::nullopt, "0.0005", "", "not a number"};
    std::vector<std::string> ids;
    int n = 0;
    // Every state word under every combination of the facts, on three days, with every kind of
    // method, money arrived, time to final and link (a visit is no order; a link's order is).
    for (const std::string& state : every_state_word()) {
        for (int bits = 0; bits < 32; ++bits, ++n) {
            const std::string id = "ov" + std::to_string(n);
            const std::int64_t created = now - (n % 3) * 86'400'000 - n * 1000;
            const std::int64_t status_at = n % 5 == 0 ? created - 1 : created + (n % 7) * 1500;
            const auto& rec = received[n % 4];
            sql->execute("INSERT INTO sessions (id, offer_id, checkout, checkout_hash, amount, currency, methods, created_at, expires_at, "
                         "state, success, final, underpayment_accepted_at, paid_elsewhere_at, closed_at, method, received_amount, "
                         "tx_currency, status_at, link_id, details_at) VALUES (?, ?, '{}', 'h', ?, ?, 'qr', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                         {id, "o" + id, n % 2 ? std::string("64.00") : std::string("1.50"), n % 3 ? std::string("USD") : std::string("EUR"),
                          created, created + 3'600'000, state, std::int64_t(bits & 1), std::int64_t((bits >> 4) & 1), opt(bits & 2, now),
                          opt(bits & 4, now), opt(bits & 8, now), paywasm::server::or_null(methods[n % 3]),
                          paywasm::server::or_null(rec), rec ? SqlValue(std::string(n % 2 ? "BTC" : "USD")) : SqlValue(), status_at,
                          n % 11 == 0 ? SqlValue(std::string("lnk_1")) : SqlValue(), n % 22 == 0 ? SqlValue(now) : SqlValue()});
            ids.push_back(id);
        }
    }
    check_tally(*sql, "written");
    // Each column the tally reads, changed on some sessions (a link's visit becomes an order, a
    // payment arrives, the merchant accepts, says paid elsewhere, closes; a row moves day).
    const auto each = [&](int every, const std::string& set, std::vector<SqlValue> params) {
        for (std::size_t i = 0; i < ids.size(); i += every) {
            std::vector<SqlValue> all = params;
            all.push_back(ids[i]);
            sql->execute("UPDATE sessions SET " + set + " WHERE id = ?", all);
        }
    };
    each(11, "details_at = ?", {now});
    each(3, "state = 'partial', received_amount = '30.00', tx_currency = 'USD', status_at = created_at + 2500, final = 1", {});
    each(4, "success = 1, final = 1, state = 'success', method = 'bank'", {});
    each(5, "underpayment_accepted_at = ?", {now});
    each(6, "paid_elsewhere_at = ?, closed_at = NULL", {now});
    each(7, "closed_at = ?, amount = '2.00', currency = 'GBP'", {now});
    each(8, "created_at = created_at - 86400000, method = NULL, received_amount = NULL", {});
    each(2, "qr_state = 'done', version = version + 1", {});  // no column of the tally
    check_tally(*sql, "changed");
    each(3, "state = 'open', success = 0, final = 0, underpayment_accepted_at = NULL, paid_elsewhere_at = NULL, closed_at = NULL", {});
    check_tally(*sql, "changed back");
    for (std::size_t i = 0; i < ids.size(); i += 2) sql->execute("DELETE FROM sessions WHERE id = ?", {ids[i]});
    check_tally(*sql, "half deleted");

    // A database at schema 11 with sessions: the migration fills the tally from them.
    sql->exec_script("DELETE FROM overview_kinds; DELETE FROM overview_times; UPDATE paywasm_schema SET version = 11;");
    CHECK(read_overview_tally(*sql, 0).kinds.empty());
    migrate(*sql);
    check_tally(*sql, "filled by the migration");

    for (std::size_t i = 1; i < ids.size(); i += 2) sql->execute("DELETE FROM sessions WHERE id = ?", {ids[i]});
    check_tally(*sql, "all deleted");
}
