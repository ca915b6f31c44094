// src/server/event_stream.hpp — a server-sent-events answer on the server's event loop: the
// program's stream coroutine (Response::stream) writes events and waits between them without a
// thread of its own; blocking work (the database) goes to a thread pool of the program's through
// on_pool() (the gateway's stream reads), never onto the loop.
#pragma once

#include <utility>  // before Boost.Asio: Boost 1.74's awaitable.hpp uses std::exchange

#include <atomic>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace paywasm::server {

// Runs `f` on `pool` and resumes the calling coroutine on its own executor with f's result (or its
// exception).
template <class F>
boost::asio::awaitable<std::invoke_result_t<F>> on_pool(boost::asio::thread_pool& pool, F f) {
    using R = std::invoke_result_t<F>;
    auto ex = co_await boost::asio::this_coro::executor;
    std::exception_ptr error;
    std::optional<std::conditional_t<std::is_void_v<R>, bool, R>> result;
    co_await boost::asio::async_initiate<const boost::asio::use_awaitable_t<>, void()>(
        [&, ex](auto handler) {
            boost::asio::post(pool, [&, ex, handler = std::move(handler)]() mutable {
                try {
                    if constexpr (std::is_void_v<R>) {
                        f();
                        result.emplace(true);
                    } else {
                        result.emplace(f());
                    }
                } catch (...) {
                    error = std::current_exception();
                }
                boost::asio::post(ex, std::move(handler));
            });
        },
        boost::asio::use_awaitable);
    if (error) std::rethrow_exception(error);
    if constexpr (!std::is_void_v<R>) co_return std::move(*result);
}

class EventStream : public std::enable_shared_from_this<EventStream> {
public:
    virtual ~EventStream() = default;

    // ---- on the loop (inside the stream coroutine) ----
    // Sends `text` (whole SSE lines: "data: ...\n\n", ": ping\n\n", "retry: 2000\n\n"); false when it
    // could not (the client is gone, or it did not read within the write timeout).
    virtual boost::asio::awaitable<bool> write(std::string text) = 0;
    // Returns after wake() (true), after `timeout` (false), or as soon as open() turns false (true).
    virtual boost::asio::awaitable<bool> wait(std::chrono::milliseconds timeout) = 0;
    // False once the client closed its side or the server drains: the coroutine should return, and
    // the answer ends without its last chunk (the client sees it cut, not finished).
    virtual bool open() const = 0;
    // ---- any thread ----
    // Ends the current wait() early, or the next one if none is under way.
    virtual void wake() = 0;
    // The client's address ("127.0.0.1"), for caps per client.
    virtual const std::string& client() const = 0;
};

// What Response::stream holds: the coroutine that writes the stream.
struct StreamBody {
    std::function<boost::asio::awaitable<void>(std::shared_ptr<EventStream>)> run;
    // The answer's Content-Type: an event stream, or another text written in pieces (the gateway's
    // CSV export: write() takes any text, each piece one chunk of a chunked answer).
    std::string content_type = "text/event-stream";
};
inline std::shared_ptr<StreamBody> make_stream(std::function<boost::asio::awaitable<void>(std::shared_ptr<EventStream>)> run) {
    return std::make_shared<StreamBody>(StreamBody{std::move(run)});
}

}  // namespace paywasm::server
