#include "server/signals.hpp"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <thread>

namespace paywasm::server {

namespace {
sigset_t stop_set() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return set;
}
}  // namespace

void block_stop_signals() {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    const sigset_t set = stop_set();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void serve_until_signal(Server& server, const std::function<void()>& on_signal) {
    std::atomic<bool> done{false};
    std::thread waiter([&] {
        const sigset_t set = stop_set();
        int sig = 0;
        sigwait(&set, &sig);
        if (done) return;
        if (on_signal) on_signal();
        server.drain();
    });
    server.run();
    done = true;
    pthread_kill(waiter.native_handle(), SIGTERM);  // wakes the waiter if no signal came
    waiter.join();
}

}  // namespace paywasm::server
