// src/server/server.hpp — the HTTP/1.1 server of every native program (the sandbox, the gateway):
// one event loop (Boost.Asio, C++20 coroutines) holds every connection, handlers run on a pool of
// worker threads, streams (event_stream.hpp) stay on the loop. A connection costs no thread, so
// thousands of idle, slow or streaming clients cannot take the workers from anyone else.
//
// Framing is strict (framing.hpp): a refused head is answered 400 and the connection closed. A
// client gets `idle_timeout` between requests and `header_timeout` from a head's first byte to its
// end (a slow-loris connection is closed then), a body over `max_body` is answered 413 (unread and
// the connection closed when it is announced beyond drain_limit()), and past `max_connections`
// (or `max_connections_per_address` from one peer) a new connection is answered 503 and closed.
// Empty lines before a request line count against `header_timeout` from the first one: a client
// sending CRLF after CRLF is closed then, as a slow head is. The listening socket takes the system's largest
// backlog and never SO_REUSEPORT: a port in use is refused.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "server/framing.hpp"
#include "server/router.hpp"

namespace paywasm::server {

struct ServerOptions {
    std::string host = "127.0.0.1";
    int port = 0;                                    // 0: any free port
    HeadLimits head;
    std::size_t max_body = 256 * 1024;               // bytes; more: 413
    std::chrono::milliseconds idle_timeout{5000};    // a kept-alive connection waiting for a request
    std::chrono::milliseconds header_timeout{10000}; // a head's first byte to its empty line
    std::chrono::milliseconds body_timeout{30000};   // the whole body
    std::chrono::milliseconds write_timeout{30000};  // one answer, or one stream write
    std::chrono::milliseconds drain_timeout{10000};  // drain(): the longest wait for answers under way
    std::size_t max_connections = 16000;             // lowered to what the open-file limit allows
    // Connections one peer address may hold at once (a trusted proxy's are not counted: it carries
    // many clients); more are answered 503 and closed, so that one address cannot take them all.
    std::size_t max_connections_per_address = 1024;
    int workers = 16;                                // threads running handlers
    bool access_log = false;                         // "METHOD path status" on stderr
    // Peers whose X-Forwarded-For is believed (your reverse proxies), as IP addresses. A request
    // from one of them has, as Request::remote_addr and EventStream::client(), the rightmost
    // address of X-Forwarded-For that is not itself a trusted proxy (what the outermost proxy of
    // yours saw: client_address.hpp); from any other peer the header is ignored. Empty: the peer's
    // address always.
    std::vector<std::string> trusted_proxies;
};

// Over this a body is not even read (and dropped): the answer is 413 and the connection closed.
constexpr std::size_t drain_limit(std::size_t max_body) { return max_body + 16 * 1024 * 1024; }
// A chunked body's bound on what is not chunk data: one chunk line (size and extensions), the
// extensions of all its chunks together, and its trailer section, each at most this many bytes (the
// head's own limit); more is answered 400 and the connection closed.
constexpr std::size_t chunk_line_limit(const HeadLimits& head) { return head.max_bytes; }

class Server {
public:
    // Binds and listens now; throws std::runtime_error naming the address when it cannot (in use by
    // any process, no such address). Raises the process's open-file limit to what max_connections
    // needs and says on stderr when it cannot (max_connections is lowered then).
    Server(ServerOptions options, const Router& router);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    int port() const;
    // Serves on the calling thread until drain() finished.
    void run();
    // Any thread, any time (also before run()): accepts nothing more, lets the requests under way be
    // answered, closes idle connections and ends streams (EventStream::open() turns false); run()
    // returns once every connection is closed, or after drain_timeout.
    void drain();

    // Figures for metrics: connections open now, streams open now, heads refused (400) so far.
    std::size_t open_connections() const;
    std::size_t open_streams() const;
    std::size_t refused_heads() const;
    // Bytes read from clients so far: as requests (a refused one stops at its bound: head.max_bytes,
    // chunk_line_limit or max_body), and read only to be dropped after an answer that closes the
    // connection (at most drain_limit(max_body) per connection, for 2 s).
    std::uint64_t bytes_read() const;
    std::uint64_t bytes_dropped() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

// "http://HOST:PORT", an IPv6 host in brackets.
std::string http_origin(const std::string& host, int port);
// A path as the access log shows it: at most 200 characters, a checkout session id ("/cs_...") cut
// to its first 6 characters (it is the shopper's capability).
std::string loggable_path(const std::string& path);

}  // namespace paywasm::server
