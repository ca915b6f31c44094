// The store's upkeep (store.hpp): retention, the rate limits' buckets, the key fingerprints of the
// last start, and the database's round trip (store_upkeep.cpp).
#pragma once

#include <cstdint>
#include <string>

namespace paywasm::server {
class Sql;
}

namespace merchant {

struct StoreCore;

class Upkeep {
public:
    Upkeep(StoreCore& core, paywasm::server::Sql& sql) : core_(core), sql_(&sql) {}

    // Retention (--retain-days): deletes, in one transaction, at most `batch` sessions last changed
    // before `cutoff` that are done with (expired, and final or with no money of the shopper's in
    // them) with everything about them (webhook events, transactions, QR codes: the shopper's
    // name, e-mail and address are in those), and as many delivered outbox rows, unmatched webhook
    // events, debits and audit log entries older than `cutoff`. An undelivered event and a session
    // still holding money in flight, or an attempt with no verified outcome and no resolution, are
    // never deleted, and never stop the others from going (the rule is in the query). `removed`:
    // how many rows went (0: nothing left to prune); `kept`: expired sessions older than `cutoff` kept.
    struct Pruned {
        std::int64_t removed = 0, kept = 0;
    };
    Pruned prune(std::int64_t cutoff, int batch);

    // The rate limits, shared by every instance on the database: a token bucket per `key` holding
    // `per_minute` tokens, refilled at `per_minute` a minute. Takes one at `now`: 0 when there was
    // one, else the milliseconds until there will be (Retry-After). per_minute 0: no limit, no query.
    // Every instance counts on the database's clock (Sql::clock_ms): one instance whose clock runs
    // ahead cannot stamp a bucket in the future and leave the others without a refill.
    std::int64_t take_token(const std::string& key, int per_minute);
    // Deletes the buckets full again (untouched for a minute) and the login failures older than a
    // day; returns how many.
    std::int64_t prune_buckets();

    // At start: refuses (std::runtime_error saying which) the same key given twice, and the two keys
    // exactly swapped against what this database was last served with; then records both
    // fingerprints. A key that changed to a new one (a rotation) is accepted. On a first start
    // there is nothing to compare a swap with: docs/merchant.md says which file is which.
    void check_keys(const std::string& merchant_fp, const std::string& webhook_fp, std::int64_t now);

    // One trivial query: throws when the database does not answer (/readyz, /metrics).
    void ping();

private:
    StoreCore& core_;
    paywasm::server::Sql* const sql_;  // the Store's
};

}  // namespace merchant
