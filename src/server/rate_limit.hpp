// src/server/rate_limit.hpp — a token bucket per key (an app secret, a session, a client address),
// in memory, per process: `rate` requests per `per_ms` on average, bursts up to `burst`. With
// several instances each holds its own buckets, so the shop-wide limit is the sum of theirs.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace paywasm::server {

class RateLimiter {
public:
    // rate 0: no limit. burst >= 1.
    RateLimiter(double rate, std::int64_t per_ms, double burst) : rate_(rate), per_ms_(per_ms), burst_(burst) {}

    // Takes one token of `key`'s bucket at `now_ms`: 0 when there was one, else how many
    // milliseconds until one will be (for Retry-After). Buckets idle long enough to be full are
    // forgotten (at most a few thousand keys are held).
    std::int64_t take(const std::string& key, std::int64_t now_ms);

private:
    struct Bucket {
        double tokens;
        std::int64_t at;
    };
    double rate_;
    std::int64_t per_ms_;
    double burst_;
    std::mutex mutex_;
    std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace paywasm::server
