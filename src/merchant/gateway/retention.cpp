// Retention (--retain-days) and the rate limits' full buckets: a background thread that prunes what
// the gateway no longer needs, every --prune-interval, in small batches so that webhooks and the app
// API never wait long on the database (Upkeep::prune, Upkeep::prune_buckets).
#include <chrono>
#include <cstdio>

#include "gateway/gateway.hpp"
#include "server/util.hpp"
#include "paywasm/text.hpp"

namespace merchant {

void Gateway::start_pruner() {
    pruner_ = std::thread([this] {
        std::unique_lock<std::mutex> lock(prune_mutex_);
        while (!prune_stop_) {
            lock.unlock();
            std::int64_t removed = 0;
            try {
                store.upkeep.prune_buckets();
                attention_pass();
                // Batches of 200 rows' owners, a pause between them; until nothing is left.
                for (std::int64_t n = config.retain_ms > 0 ? 1 : 0; n > 0 && !prune_stop_;) {
                    const Upkeep::Pruned pruned = store.upkeep.prune(now_ms() - config.retain_ms, 200);
                    n = pruned.removed;
                    removed += n;
                    retention_kept = pruned.kept;
                    if (n > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
                }
                ++retention_passes;
            } catch (const std::exception& e) {
                std::fprintf(stderr, "paywasm-merchant: retention: %s\n", paywasm::escape_untrusted(e.what(), 500).c_str());
            }
            if (removed > 0) {
                std::fprintf(stderr, "paywasm-merchant: retention: %lld rows older than %lld days removed\n",
                             static_cast<long long>(removed), static_cast<long long>(config.retain_ms / 86400000));
            }
            lock.lock();
            prune_cv_.wait_for(lock, std::chrono::milliseconds(config.prune_interval_ms), [this] { return prune_stop_; });
        }
    });
}

void Gateway::stop_pruner() {
    {
        std::lock_guard<std::mutex> lock(prune_mutex_);
        prune_stop_ = true;
    }
    prune_cv_.notify_all();
    if (pruner_.joinable()) pruner_.join();
}

}  // namespace merchant
