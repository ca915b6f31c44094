#include "server/outbox.hpp"

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>

#include "client/url.hpp"
#include "server/util.hpp"
#include "paywasm/text.hpp"

namespace paywasm::server {

void Outbox::start() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = false;
    }
    for (int i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { work(); });
}

void Outbox::wake() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        woken_ = true;
    }
    cv_.notify_all();
}

void Outbox::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) {
        if (t.joinable()) t.join();
    }
    workers_.clear();
}

// One worker: claim, deliver, record; wait for wake() (or idle_ms) when nothing is due. Each
// worker keeps one kept-alive client per origin it delivered to.
void Outbox::work() {
    std::map<std::string, std::unique_ptr<client::Poster>> clients;
    for (;;) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (stopping_) return;
        }
        std::optional<OutboxStore::Item> item;
        const std::int64_t claimed_at = now_ms();
        try {
            item = store_.claim(claimed_at);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "%s: %s\n", options_.name.c_str(), paywasm::escape_untrusted(e.what(), 500).c_str());
        }
        if (!item) {
            std::unique_lock<std::mutex> lock(mutex_);
            cv_.wait_for(lock, std::chrono::milliseconds(options_.idle_ms), [this] { return stopping_ || woken_; });
            woken_ = false;
            continue;
        }
        OutboxStore::Attempt attempt;
        attempt.started = now_ms();
        const auto url = client::split_url(item->url);
        if (!item->refuse.empty()) {
            attempt.error = item->refuse;
        } else if (options_.deliver) {
            try {
                options_.deliver(*item, attempt);
            } catch (const std::exception& e) {
                attempt.error = e.what();
            }
        } else if (!url || url->user_info) {
            attempt.error = "not an http(s) URL";
        } else {
            auto client = clients.find(url->origin);
            if (client == clients.end()) {
                if (clients.size() >= 8) clients.clear();  // URLs changed: drop the old connections
                client = clients.emplace(url->origin, std::make_unique<client::Poster>(url->origin, options_.timeouts)).first;
            }
            const auto result = client->second->post(url->path, item->headers, item->body, "application/json");
            attempt.http_status = result.status;
            if (!result.status) attempt.error = "no answer: " + result.error;
            else if (*result.status < 200 || *result.status > 299) attempt.error = "HTTP " + std::to_string(*result.status);
        }
        attempt.finished = now_ms();
        if (!attempt.error.empty()) attempt.next_attempt_at = attempt.finished + options_.backoff_ms(item->attempts + 1);
        record(*item, attempt, claimed_at);
    }
}

// Records an attempt's outcome. The store may be away (a database restarting): the outcome is kept
// and recorded again every second until record_retry_ms after the claim, so that an item delivered
// while the store was away is not sent a second time once its lease ends. Past that (or on stop())
// the lease decides: the item may be delivered again (at least once).
void Outbox::record(const OutboxStore::Item& item, const OutboxStore::Attempt& attempt, std::int64_t claimed_at) {
    for (int tries = 0;; ++tries) {
        try {
            if (attempt.error.empty()) {
                store_.delivered(item, attempt);
            } else {
                store_.failed(item, attempt);
                if (options_.verbose && tries == 0)
                    std::fprintf(stderr, "%s: %s: %s\n", options_.name.c_str(), item.id.c_str(), paywasm::escape_untrusted(attempt.error, 500).c_str());
            }
            return;
        } catch (const std::exception& e) {
            const bool last = now_ms() + 1000 > claimed_at + options_.record_retry_ms;
            std::fprintf(stderr, "%s: %s: recording the %s: %s%s\n", options_.name.c_str(), item.id.c_str(),
                         attempt.error.empty() ? "delivery" : "failure", paywasm::escape_untrusted(e.what(), 500).c_str(),
                         last ? " (given up: it may be sent again when its lease ends)" : " (trying again)");
            if (last) return;
        }
        std::unique_lock<std::mutex> lock(mutex_);
        if (cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stopping_; })) return;
    }
}

}  // namespace paywasm::server
