#include "server/signals.hpp"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <thread>

namespace paywasm::server {

namespace {
sigset_t stop_set(bool hangup) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (hangup) sigaddset(&set, SIGHUP);
    return set;
}
}  // namespace

void block_stop_signals(bool hangup) {
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    const sigset_t set = stop_set(hangup);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void serve_until_signal(Server& server, const std::function<void()>& on_signal, const std::function<void()>& on_hangup) {
    std::atomic<bool> done{false};
    std::thread waiter([&] {
        const sigset_t set = stop_set(static_cast<bool>(on_hangup));
        int sig = 0;
        while (sigwait(&set, &sig) == 0 && sig == SIGHUP && !done) on_hangup();
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
