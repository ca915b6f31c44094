// The status hub (status_hub.hpp): which SSE streams a session's change wakes, and the stream caps.
#include <algorithm>

#include "store/status_hub.hpp"

#include "paywasm/crypto.hpp"

namespace merchant {

bool StatusHub::reserve(const std::string& session_id, const std::string& client, const Config& caps, std::string& refused) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (total_ >= caps.max_streams) refused = "total";
    else if (per_session_[session_id] >= caps.max_streams_per_session) refused = "session";
    else if (per_client_[client] >= caps.max_streams_per_client) refused = "client";
    if (!refused.empty()) {
        if (per_session_[session_id] == 0) per_session_.erase(session_id);
        if (per_client_[client] == 0) per_client_.erase(client);
        return false;
    }
    ++total_;
    ++per_session_[session_id];
    ++per_client_[client];
    return true;
}

void StatusHub::release(const std::string& session_id, const std::string& client) {
    std::lock_guard<std::mutex> lock(mutex_);
    --total_;
    if (--per_session_[session_id] <= 0) per_session_.erase(session_id);
    if (--per_client_[client] <= 0) per_client_.erase(client);
}

int StatusHub::open() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return total_;
}

void StatusHub::watch(const std::string& session_id, const std::shared_ptr<EventStream>& stream) {
    const std::string tag = wake_tag(session_id);
    std::lock_guard<std::mutex> lock(mutex_);
    watchers_[session_id].push_back(stream);
    tags_[tag] = session_id;
}

void StatusHub::unwatch(const std::string& session_id, const EventStream* stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = watchers_.find(session_id);
    if (it == watchers_.end()) return;
    auto& list = it->second;
    list.erase(std::remove_if(list.begin(), list.end(), [&](const auto& s) { return s.get() == stream; }), list.end());
    if (list.empty()) {
        watchers_.erase(it);
        latest_.erase(session_id);
        tags_.erase(wake_tag(session_id));
    }
}

void StatusHub::notify(const std::string& session_id, const std::optional<PushedStatus>& pushed) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (session_id.empty()) {
        ++unpushed_all_;
        for (auto& [id, list] : watchers_) {
            for (auto& s : list) s->wake();
        }
        return;
    }
    auto it = watchers_.find(session_id);
    if (it == watchers_.end()) return;  // nobody is watching it
    Latest& latest = latest_[session_id];
    if (!pushed) ++latest.unpushed;
    else if (!latest.pushed || pushed->version > latest.pushed->version) latest.pushed = pushed;
    for (auto& s : it->second) s->wake();
}

std::string StatusHub::wake_tag(const std::string& session_id) {
    return paywasm::sha256_hex("paywasm-wake:" + session_id).substr(0, 32);
}

void StatusHub::notify_tag(const std::string& tag) {
    std::string session_id;
    if (!tag.empty()) {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto it = tags_.find(tag);
        if (it == tags_.end()) return;  // nobody here watches it (or not a tag at all)
        session_id = it->second;
    }
    notify(session_id);
}

StatusHub::Latest StatusHub::latest(const std::string& session_id) const {
    std::lock_guard<std::mutex> lock(mutex_);
    Latest out;
    if (auto it = latest_.find(session_id); it != latest_.end()) out = it->second;
    out.unpushed += unpushed_all_;
    return out;
}

void StatusHub::shutdown() {
    stopping_ = true;
    notify("");
}

}  // namespace merchant
