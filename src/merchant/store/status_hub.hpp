// The status hub: which SSE streams a session's change wakes, what they send without reading the
// session again, and the stream caps.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "rules/config.hpp"
#include "server/event_stream.hpp"

namespace merchant {

using paywasm::server::EventStream;

// A session's status as a change pushed it (SessionStore::Applied::pushed), on the instance that made
// the change: what a stream sends without reading the session again. Other instances get no status:
// a NOTIFY carries the session's wake tag only (wake_tag()), and their streams read the row.
struct PushedStatus {
    std::int64_t version = 0;
    bool final = false;
    std::string json;  // status_json()
};
// Wakes the SSE streams of a session when its status changed (here or, through PostgreSQL
// NOTIFY, on another instance), and keeps the stream caps. Thread-safe.
class StatusHub {
public:
    // A slot for a stream of `session_id` opened by `client`: true and counted, or false with the
    // cap that refused it in `refused` ("total", "session", "client"). release() gives it back.
    bool reserve(const std::string& session_id, const std::string& client, const Config& caps, std::string& refused);
    void release(const std::string& session_id, const std::string& client);
    // A stream calls watch() before its first read of the session and unwatch() when it ends.
    void watch(const std::string& session_id, const std::shared_ptr<EventStream>& stream);
    void unwatch(const std::string& session_id, const EventStream* stream);
    // Wakes the streams of `session_id` ("": every stream, after a reconnect or at shutdown).
    // `pushed`: the session's new status, kept for its streams (the newest version wins); without
    // it a stream reads the session again.
    void notify(const std::string& session_id, const std::optional<PushedStatus>& pushed = std::nullopt);
    // Between instances (PostgreSQL NOTIFY, which any role that can connect may LISTEN to and send):
    // a change is announced by wake_tag(session id) alone, 32 hex digits that give away neither the
    // id (the shopper's credential) nor a status. notify_tag() wakes the streams of the watched
    // session with that tag, as notify() without `pushed`: they read the session's row, so a forged
    // notification shows nothing the database does not hold. "" wakes every stream.
    static std::string wake_tag(const std::string& session_id);
    void notify_tag(const std::string& tag);
    // What a stream of `session_id` finds after a wake: the newest pushed status, and a count that
    // moves with every notify() that carried none (the stream must read the session then).
    struct Latest {
        std::optional<PushedStatus> pushed;
        std::uint64_t unpushed = 0;
    };
    Latest latest(const std::string& session_id) const;
    void shutdown();                             // wakes every stream; stopping() turns true
    bool stopping() const { return stopping_; }
    int open() const;                            // streams reserved now

private:
    mutable std::mutex mutex_;
    std::map<std::string, std::vector<std::shared_ptr<EventStream>>> watchers_;
    std::map<std::string, Latest> latest_;  // of watched sessions only
    std::map<std::string, std::string> tags_;  // wake_tag -> session id, of watched sessions only
    std::uint64_t unpushed_all_ = 0;        // notify("") calls, added to every session's count
    std::map<std::string, int> per_session_, per_client_;
    int total_ = 0;
    std::atomic<bool> stopping_{false};
};

}  // namespace merchant
