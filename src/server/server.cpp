#include "server/server.hpp"

#include <utility>  // before Boost.Asio (Boost 1.74's awaitable.hpp uses std::exchange)

#include <sys/resource.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>

#include "server/client_address.hpp"
#include "server/event_stream.hpp"
#include "server/response_head.hpp"
#include "paywasm/text.hpp"

namespace paywasm::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using asio::awaitable;
using asio::use_awaitable;
using Clock = std::chrono::steady_clock;

namespace {

// The open-file limit raised to `needed` (at most the hard limit); returns what is allowed.
std::size_t raise_open_files(std::size_t needed) {
    rlimit lim{};
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return needed;
    if (lim.rlim_cur != RLIM_INFINITY && lim.rlim_cur < needed) {
        lim.rlim_cur = (lim.rlim_max == RLIM_INFINITY || lim.rlim_max >= needed) ? needed : lim.rlim_max;
        setrlimit(RLIMIT_NOFILE, &lim);
        getrlimit(RLIMIT_NOFILE, &lim);
    }
    return lim.rlim_cur == RLIM_INFINITY ? needed : static_cast<std::size_t>(lim.rlim_cur);
}

}  // namespace

struct Connection;

// ---- the stream answer --------------------------------------------------------------------------

class StreamImpl final : public EventStream {
public:
    StreamImpl(Server::Impl& server, Connection& c);
    awaitable<bool> write(std::string text) override;
    awaitable<bool> wait(std::chrono::milliseconds timeout) override;
    bool open() const override;
    void wake() override;
    const std::string& client() const override;
    void gone() {
        gone_ = true;
        timer_.cancel();
    }
    char sink[16];  // what the client sends after its request (read only to learn that it did)

private:
    Server::Impl& server_;
    Connection& c_;
    asio::steady_timer timer_;
    std::atomic<bool> woken_{false};
    bool gone_ = false;
};

// ---- one connection -----------------------------------------------------------------------------

struct Connection {
    explicit Connection(tcp::socket s) : stream(std::move(s)) {
        beast::error_code ec;
        const auto peer = stream.socket().remote_endpoint(ec);
        if (!ec) {
            remote_addr = canonical_address(peer.address().to_string());  // an IPv4 peer of a dual-stack socket as IPv4
            remote_port = peer.port();
        }
        stream.socket().set_option(tcp::no_delay(true), ec);
    }
    beast::tcp_stream stream;
    beast::flat_buffer buffer;
    std::string remote_addr;
    std::string client_addr;       // the current request's client (client_address); the stream's
    int remote_port = 0;
    bool idle = true;              // waiting for a request's first byte (drain closes it)
    bool counted = false;          // in Server::Impl::per_address
    StreamImpl* streaming = nullptr;
};

struct Server::Impl {
    Impl(ServerOptions o, const Router& r)
        : options(std::move(o)), router(r), loop(1), workers(static_cast<std::size_t>(std::max(1, options.workers))),
          acceptor(loop), drain_timer(loop) {}

    ServerOptions options;
    const Router& router;
    asio::io_context loop;
    asio::thread_pool workers;
    tcp::acceptor acceptor;
    asio::steady_timer drain_timer;
    int port = 0;
    bool draining = false;                     // loop only
    std::set<std::shared_ptr<Connection>> connections;  // loop only
    std::map<std::string, std::size_t> per_address;     // loop only: open connections by peer (no trusted proxy)
    std::atomic<std::size_t> open_connections{0}, open_streams{0}, refused_heads{0};
    // Bytes read from clients: as requests (heads and bodies, also a body read only to be dropped),
    // and after an answer that closes, by lingering_close (read and dropped, at most drain_limit each).
    std::atomic<std::uint64_t> bytes_read{0}, bytes_dropped{0};

    awaitable<void> accept_loop();
    awaitable<void> session(std::shared_ptr<Connection> c);
    // What a request's answer leaves the connection to do: serve the next request (again), run a
    // stream (its response head and body), or close.
    struct Turn {
        bool again = false;
        std::string head;
        std::shared_ptr<StreamBody> stream;
    };
    awaitable<std::size_t> read_head(Connection& c);
    awaitable<Turn> serve_one(Connection& c, std::size_t head_len);
    awaitable<bool> read_more(Connection& c, std::size_t chunk = 1024);
    awaitable<beast::error_code> read_chunked(Connection& c, const std::string& head, std::string& body);
    awaitable<void> refuse(Connection& c, int status, std::string_view message);
    awaitable<void> lingering_close(Connection& c);
    awaitable<bool> send(Connection& c, std::string text);
    awaitable<void> run_stream(Connection& c, std::string head, std::shared_ptr<StreamBody> body);
    void start_drain();
    void finish_if_drained();
    void log(const Request& req, int status) const {
        if (options.access_log) std::fprintf(stderr, "%s %s %d\n", paywasm::escape_untrusted(req.method, 32).c_str(), loggable_path(req.path).c_str(), status);
    }
};

StreamImpl::StreamImpl(Server::Impl& server, Connection& c) : server_(server), c_(c), timer_(server.loop) {}

awaitable<bool> StreamImpl::write(std::string text) {
    if (gone_ || text.empty()) co_return !gone_;
    char size[24];
    const int n = std::snprintf(size, sizeof size, "%zx\r\n", text.size());
    text.insert(0, size, static_cast<std::size_t>(n));
    text += "\r\n";
    const bool ok = co_await server_.send(c_, std::move(text));
    if (!ok) gone_ = true;
    co_return ok;
}

awaitable<bool> StreamImpl::wait(std::chrono::milliseconds timeout) {
    if (!open() || woken_.exchange(false)) co_return true;
    timer_.expires_after(timeout);
    beast::error_code ec;
    co_await timer_.async_wait(asio::redirect_error(use_awaitable, ec));
    // A wake() that came after the timer's completion was queued (its cancel found nothing to
    // cancel) still counts: clearing the flag there lost it, and the stream slept on to its next
    // heartbeat with a pushed status unsent.
    const bool woken = woken_.exchange(false);
    co_return woken || ec == asio::error::operation_aborted || !open();
}

bool StreamImpl::open() const { return !gone_ && !server_.draining; }

void StreamImpl::wake() {
    woken_ = true;
    // The stream outlives this post: run_stream keeps it until its coroutine returned, and the
    // shared_ptr taken here keeps the timer until the cancel ran.
    asio::post(server_.loop, [self = std::static_pointer_cast<StreamImpl>(shared_from_this())] { self->timer_.cancel(); });
}

const std::string& StreamImpl::client() const { return c_.client_addr; }

// ---- the loop -----------------------------------------------------------------------------------

awaitable<void> Server::Impl::accept_loop() {
    for (;;) {
        beast::error_code ec;
        tcp::socket socket = co_await acceptor.async_accept(asio::redirect_error(use_awaitable, ec));
        if (draining || !acceptor.is_open()) co_return;
        if (ec) {
            // Out of descriptors (or another transient error): give the others a moment to close.
            asio::steady_timer pause(loop, std::chrono::milliseconds(50));
            co_await pause.async_wait(asio::redirect_error(use_awaitable, ec));
            continue;
        }
        auto c = std::make_shared<Connection>(std::move(socket));
        const bool counted = std::find(options.trusted_proxies.begin(), options.trusted_proxies.end(), c->remote_addr) ==
                             options.trusted_proxies.end();
        if (connections.size() >= options.max_connections ||
            (counted && per_address[c->remote_addr] >= options.max_connections_per_address)) {
            if (counted && per_address[c->remote_addr] == 0) per_address.erase(c->remote_addr);
            static const std::string kFull =
                error_answer(503, "too_many_connections", "too many open connections", {{"Retry-After", "2"}});
            c->stream.socket().non_blocking(true, ec);
            c->stream.socket().write_some(asio::buffer(kFull), ec);
            c->stream.socket().close(ec);
            continue;
        }
        if (counted) ++per_address[c->remote_addr];
        c->counted = counted;
        asio::co_spawn(loop, session(std::move(c)), asio::detached);
    }
}

awaitable<void> Server::Impl::session(std::shared_ptr<Connection> c) {
    connections.insert(c);
    open_connections = connections.size();
    // Its requests, read_head() then serve_one() each. A stream is run from here, once the request's
    // coroutine frame (its Request, Response and texts) is gone: an idle stream holds only its own.
    try {
        for (;;) {
            const std::size_t head_len = co_await read_head(*c);
            if (head_len == 0) break;
            Turn turn = co_await serve_one(*c, head_len);
            if (turn.stream) co_await run_stream(*c, std::move(turn.head), std::move(turn.stream));
            if (!turn.again) break;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "server: connection: %s\n", paywasm::escape_untrusted(e.what(), 500).c_str());
    }
    beast::error_code ec;
    c->stream.socket().shutdown(tcp::socket::shutdown_both, ec);
    c->stream.socket().close(ec);
    connections.erase(c);
    if (c->counted && --per_address[c->remote_addr] == 0) per_address.erase(c->remote_addr);
    open_connections = connections.size();
    finish_if_drained();
}

// Reads what arrived into the buffer (at most `chunk` bytes); false on EOF, error or deadline. Heads
// are read 1 KiB at a time: thousands of waiting clients each keep what they sent, not 4 KiB.
awaitable<bool> Server::Impl::read_more(Connection& c, std::size_t chunk) {
    beast::error_code ec;
    const std::size_t n = co_await c.stream.async_read_some(c.buffer.prepare(chunk), asio::redirect_error(use_awaitable, ec));
    c.buffer.commit(n);
    bytes_read += n;
    co_return !ec;
}

awaitable<bool> Server::Impl::send(Connection& c, std::string text) {
    beast::error_code ec;
    c.stream.expires_after(options.write_timeout);
    co_await asio::async_write(c.stream, asio::buffer(text), asio::redirect_error(use_awaitable, ec));
    c.stream.expires_never();
    co_return !ec;
}

// Half-closes, then reads and drops what the client still sends (at most drain_limit bytes, 2 s),
// so that the answer is not lost to a reset while the client is still writing.
awaitable<void> Server::Impl::lingering_close(Connection& c) {
    beast::error_code ec;
    c.stream.socket().shutdown(tcp::socket::shutdown_send, ec);
    c.stream.expires_after(std::chrono::seconds(2));
    std::size_t dropped = 0;
    while (!ec && dropped < drain_limit(options.max_body)) {
        c.buffer.clear();
        const std::size_t n = co_await c.stream.async_read_some(c.buffer.prepare(16384), asio::redirect_error(use_awaitable, ec));
        dropped += n;
        bytes_dropped += n;
    }
}

awaitable<void> Server::Impl::refuse(Connection& c, int status, std::string_view message) {
    // Named locals, not temporaries inside the co_await of a condition: GCC 12 miscompiles those
    // (the loop thread spun in here).
    std::string text = error_answer(status, status == 413 ? "payload_too_large" : "bad_request", message);
    const bool sent = co_await send(c, std::move(text));
    if (sent) co_await lingering_close(c);
}

// A chunked body, through Beast's parser (its own frame: only chunked requests pay for it). Trailer
// fields are not kept: nothing reads them. Beast 1.74 holds a whole chunk line (size and
// extensions) or the whole trailer section in the read buffer before it parses it, and its body
// limit counts chunk data only: here the parser reads through a buffer of chunk_line_limit() bytes
// (a longer chunk line or trailer section: http::error::buffer_overflow), and the extensions of all
// chunks together may take at most chunk_line_limit() bytes (more: bad_chunk_extension). Memory
// per chunked request is then the body limit plus a few KiB, whatever the client sends.
awaitable<beast::error_code> Server::Impl::read_chunked(Connection& c, const std::string& head, std::string& body) {
    std::size_t extensions = 0;
    const std::size_t limit = chunk_line_limit(options.head);
    // Beast keeps a reference to the callback: it is declared before the parser, outliving it.
    auto count_extensions = [&extensions, limit](std::uint64_t, beast::string_view ext, beast::error_code& ec) {
        extensions += ext.size();
        if (extensions > limit) ec = http::error::bad_chunk_extension;
    };
    http::request_parser<http::string_body> parser;
    parser.eager(true);
    parser.header_limit(static_cast<std::uint32_t>(options.head.max_bytes));
    parser.body_limit(options.max_body);
    parser.on_chunk_header(count_extensions);
    beast::error_code ec;
    parser.put(asio::buffer(head), ec);
    if (ec && ec != http::error::need_more) co_return ec;
    // What arrived with the head goes to the parser first; the rest through the bounded buffer.
    while (c.buffer.size() > 0 && !parser.is_done()) {
        ec = {};
        const std::size_t used = parser.put(c.buffer.data(), ec);
        c.buffer.consume(used);
        if (ec == http::error::need_more || (!ec && used == 0)) break;
        if (ec) co_return ec;
    }
    if (c.buffer.size() > limit) co_return http::error::buffer_overflow;
    beast::flat_buffer bounded(limit);
    bounded.commit(asio::buffer_copy(bounded.prepare(c.buffer.size()), c.buffer.data()));
    c.buffer.clear();
    ec = {};
    if (!parser.is_done()) {
        c.stream.expires_after(options.body_timeout);
        bytes_read += co_await http::async_read(c.stream, bounded, parser, asio::redirect_error(use_awaitable, ec));
    }
    // A pipelined request after the body stays for the next turn.
    c.buffer.commit(asio::buffer_copy(c.buffer.prepare(bounded.size()), bounded.data()));
    if (!ec) body = std::move(parser.get().body());
    co_return ec;
}

// The next request's head, complete in c.buffer: its length, or 0 when the connection closes (EOF,
// a deadline, the server draining, or a head over the limit, refused 400 here). A coroutine of its
// own: a connection waiting for a head (kept alive, or a slow client) holds this small frame only.
awaitable<std::size_t> Server::Impl::read_head(Connection& c) {
    // ---- the head: idle_timeout for its first byte, header_timeout for the rest ----
    c.idle = true;
    bool head_started = false;  // an empty line came: the header deadline runs from it, once
    for (;;) {
        while (c.buffer.size() >= 2 && static_cast<const char*>(c.buffer.data().data())[0] == '\r' &&
               static_cast<const char*>(c.buffer.data().data())[1] == '\n') {
            c.buffer.consume(2);  // an empty line before a request line is ignored (RFC 9112 2.2)
            if (!head_started) c.stream.expires_after(options.header_timeout);
            head_started = true;
        }
        if (c.buffer.size() > 0) break;
        if (draining) co_return 0;
        if (!head_started) {
            c.buffer.shrink_to_fit();
            c.stream.expires_after(options.idle_timeout);
        }
        if (!co_await read_more(c)) co_return 0;
    }
    c.idle = false;
    if (!head_started) c.stream.expires_after(options.header_timeout);
    std::size_t head_len = 0;
    for (;;) {
        const std::string_view seen(static_cast<const char*>(c.buffer.data().data()), c.buffer.size());
        head_len = head_length(seen);
        if (head_len > 0) break;
        if (seen.size() > options.head.max_bytes) {
            co_await refuse(c, 400, "the request head is larger than " + std::to_string(options.head.max_bytes) + " bytes");
            co_return 0;
        }
        if (!co_await read_more(c)) co_return 0;  // EOF, or the header deadline: closed without an answer
    }
    co_return head_len;
}

awaitable<Server::Impl::Turn> Server::Impl::serve_one(Connection& c, std::size_t head_len) {
    {
        std::string head(static_cast<const char*>(c.buffer.data().data()), head_len);
        auto parsed = parse_head(head, options.head);
        if (auto* bad = std::get_if<FramingError>(&parsed)) {
            ++refused_heads;
            if (options.access_log) std::fprintf(stderr, "- - 400 (%s)\n", paywasm::escape_untrusted(bad->reason, 300).c_str());
            co_await refuse(c, 400, bad->reason);
            co_return Turn{};
        }
        RequestHead& h = std::get<RequestHead>(parsed);
        c.buffer.consume(head_len);

        Request req;
        req.method = std::move(h.method);
        req.target = std::move(h.target);
        req.version = h.version;
        req.headers = std::move(h.headers);
        c.client_addr = client_address(c.remote_addr, req.headers, options.trusted_proxies);
        req.remote_addr = c.client_addr;
        req.remote_port = c.remote_port;
        const auto q = req.target.find('?');
        req.path = req.target.substr(0, q);
        if (q != std::string::npos) req.query = req.target.substr(q + 1);

        // ---- the body ----
        const std::string too_large =
            "the body is larger than the limit of " + std::to_string(options.max_body) + " bytes";
        const bool expects_continue = same_name(req.get_header_value("Expect"), "100-continue");
        if (h.body == RequestHead::Body::length && h.content_length > options.max_body) {
            if (h.content_length > drain_limit(options.max_body) || expects_continue) {
                log(req, 413);
                co_await refuse(c, 413, too_large);
                co_return Turn{};
            }
            // Within the drain limit: read and drop it, so the connection stays in step.
            c.stream.expires_after(options.body_timeout);
            std::uint64_t left = h.content_length;
            while (left > 0) {
                if (c.buffer.size() == 0 && !co_await read_more(c, 16384)) co_return Turn{};
                const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(left, c.buffer.size()));
                c.buffer.consume(take);
                left -= take;
            }
            log(req, 413);
            co_await refuse(c, 413, too_large);
            co_return Turn{};
        }
        if (expects_continue && req.version == 11 && h.body != RequestHead::Body::none) {  // 1.0 knows no 1xx
            std::string interim = response_head(100, {}, {});
            if (!co_await send(c, std::move(interim))) co_return Turn{};
        }
        if (h.body == RequestHead::Body::length) {
            c.stream.expires_after(options.body_timeout);
            while (c.buffer.size() < h.content_length) {
                if (!co_await read_more(c, 16384)) co_return Turn{};
            }
            req.body.assign(static_cast<const char*>(c.buffer.data().data()), static_cast<std::size_t>(h.content_length));
            c.buffer.consume(static_cast<std::size_t>(h.content_length));
        } else if (h.body == RequestHead::Body::chunked) {
            const beast::error_code ec = co_await read_chunked(c, head, req.body);
            if (ec == http::error::body_limit) {
                log(req, 413);
                co_await refuse(c, 413, too_large);
                co_return Turn{};
            }
            if (ec == http::error::buffer_overflow || ec == http::error::bad_chunk_extension) {
                log(req, 400);
                co_await refuse(c, 400, "a chunk line, the chunk extensions or the trailer section are longer than " +
                                            std::to_string(chunk_line_limit(options.head)) + " bytes");
                co_return Turn{};
            }
            if (ec) {
                co_await refuse(c, 400, "a malformed chunked body: " + ec.message());
                co_return Turn{};
            }
        }
        c.stream.expires_never();
        std::string().swap(head);

        // ---- the answer ----
        Response res;
        co_await on_pool(workers, [&] { router.handle(req, res); });
        if (res.drop) {
            log(req, 0);
            co_return Turn{};
        }
        const std::string connection = req.get_header_value("Connection");
        bool keep = req.version == 11 ? !same_name(connection, "close") : same_name(connection, "keep-alive");
        keep = keep && !res.close && !draining;

        if (res.stream) {  // the last answer on this connection: session() runs it
            log(req, res.status);
            co_return Turn{false, response_head(res.status, res.headers, {res.stream->content_type, std::nullopt, true, "close", std::nullopt}),
                           std::move(res.stream)};
        }
        const bool no_body = res.status == 204 || res.status == 304 || (res.status >= 100 && res.status < 200);
        HeadFraming framing;
        if (!no_body) framing.content_length = res.body.size();
        if (!keep) {
            framing.connection = "close";
        } else {
            // Clients (undici, browsers) close an idle connection before this, so that a request is
            // never sent on one the server is closing.
            if (req.version == 10) framing.connection = "keep-alive";
            framing.keep_alive_seconds = std::max<long long>(1, options.idle_timeout.count() / 1000);
        }
        std::string text = response_head(res.status, res.headers, framing);
        if (!no_body && req.method != "HEAD") text += res.body;
        const bool sent = co_await send(c, std::move(text));
        log(req, res.status);
        if (!sent) co_return Turn{};
        if (!keep) {
            co_await lingering_close(c);
            co_return Turn{};
        }
    }
    co_return Turn{true, {}, {}};
}

awaitable<void> Server::Impl::run_stream(Connection& c, std::string head, std::shared_ptr<StreamBody> body) {
    if (!co_await send(c, std::move(head))) co_return;
    c.buffer.clear();
    c.buffer.shrink_to_fit();

    auto stream = std::make_shared<StreamImpl>(*this, c);
    c.streaming = stream.get();
    ++open_streams;
    // The client's side: anything it sends, or its close, ends the stream (a stream is the last answer).
    // `c` lives until session() returns, which is after this coroutine and the watcher's read
    // (cancelled by the close there) ended: the watcher holds the session's connection set entry.
    // (An aliasing pointer that owns nothing finds it: the set orders by address.)
    const auto entry = connections.find(std::shared_ptr<Connection>(std::shared_ptr<Connection>(), &c));
    std::shared_ptr<Connection> hold = entry != connections.end() ? *entry : nullptr;
    // A plain handler, not a coroutine: one waits on every open stream, so it is kept small.
    c.stream.socket().async_read_some(asio::buffer(stream->sink),
                                      [stream, hold](beast::error_code, std::size_t) { stream->gone(); });
    try {
        co_await body->run(stream);
        // The last chunk only when the stream ended by itself: one the server's drain or the client's
        // close ended is cut, and its client must see it so (a CSV export cut by a stop is not a
        // shorter export that looks whole).
        if (stream->open()) co_await send(c, "0\r\n\r\n");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "server: stream: %s\n", paywasm::escape_untrusted(e.what(), 500).c_str());
    }
    --open_streams;
    c.streaming = nullptr;
}

void Server::Impl::start_drain() {
    if (draining) return;
    draining = true;
    beast::error_code ec;
    acceptor.close(ec);
    for (const auto& c : connections) {
        if (c->streaming) c->streaming->wake();
        else if (c->idle) c->stream.socket().cancel(ec);
    }
    drain_timer.expires_after(options.drain_timeout);
    drain_timer.async_wait([this](beast::error_code e) {
        if (!e) loop.stop();
    });
    finish_if_drained();
}

void Server::Impl::finish_if_drained() {
    if (draining && connections.empty()) {
        drain_timer.cancel();
        loop.stop();
    }
}

// ---- Server ---------------------------------------------------------------------------------------

Server::Server(ServerOptions options, const Router& router) : impl_(std::make_unique<Impl>(std::move(options), router)) {
    Impl& s = *impl_;
    const std::size_t wanted = s.options.max_connections + 256;  // + the database, logs, outbound calls
    const std::size_t allowed = raise_open_files(wanted);
    if (allowed < wanted) {
        s.options.max_connections = allowed > 512 ? allowed - 256 : allowed / 2;
        std::fprintf(stderr, "server: the open-file limit is %zu (wanted %zu): at most %zu connections\n", allowed, wanted,
                     s.options.max_connections);
    }
    beast::error_code ec;
    const auto address = asio::ip::make_address(s.options.host == "localhost" ? "127.0.0.1" : s.options.host, ec);
    if (ec) throw std::runtime_error("cannot bind " + s.options.host + ": not an IP address");
    const tcp::endpoint endpoint(address, static_cast<unsigned short>(s.options.port));
    s.acceptor.open(endpoint.protocol(), ec);
    if (!ec) s.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);  // never SO_REUSEPORT
    if (!ec) s.acceptor.bind(endpoint, ec);
    if (!ec) s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
        throw std::runtime_error("cannot bind " + s.options.host + ":" + std::to_string(s.options.port) +
                                 (s.options.port ? " (in use? choose another port)" : "") + ": " + ec.message());
    }
    s.port = s.acceptor.local_endpoint().port();
    asio::co_spawn(s.loop, s.accept_loop(), asio::detached);
}

Server::~Server() {
    impl_->workers.join();
}

int Server::port() const { return impl_->port; }

void Server::run() {
    impl_->loop.run();
}

void Server::drain() {
    asio::post(impl_->loop, [this] { impl_->start_drain(); });
}

std::size_t Server::open_connections() const { return impl_->open_connections; }
std::size_t Server::open_streams() const { return impl_->open_streams; }
std::size_t Server::refused_heads() const { return impl_->refused_heads; }
std::uint64_t Server::bytes_read() const { return impl_->bytes_read; }
std::uint64_t Server::bytes_dropped() const { return impl_->bytes_dropped; }

}  // namespace paywasm::server
