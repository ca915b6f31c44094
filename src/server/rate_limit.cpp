#include "server/rate_limit.hpp"

#include <algorithm>
#include <cmath>

namespace paywasm::server {

std::int64_t RateLimiter::take(const std::string& key, std::int64_t now_ms) {
    if (rate_ <= 0) return 0;
    const double per_token_ms = static_cast<double>(per_ms_) / rate_;
    std::lock_guard<std::mutex> lock(mutex_);
    if (buckets_.size() > 4096) {
        // Forget the full ones: a bucket that refilled holds nothing a new one would not.
        for (auto it = buckets_.begin(); it != buckets_.end();) {
            const double refilled = it->second.tokens + static_cast<double>(now_ms - it->second.at) / per_token_ms;
            it = refilled >= burst_ ? buckets_.erase(it) : std::next(it);
        }
    }
    auto [it, fresh] = buckets_.try_emplace(key, Bucket{burst_, now_ms});
    Bucket& b = it->second;
    if (!fresh) {
        b.tokens = std::min(burst_, b.tokens + static_cast<double>(std::max<std::int64_t>(0, now_ms - b.at)) / per_token_ms);
        b.at = now_ms;
    }
    if (b.tokens >= 1) {
        b.tokens -= 1;
        return 0;
    }
    return static_cast<std::int64_t>(std::ceil((1 - b.tokens) * per_token_ms));
}

}  // namespace paywasm::server
