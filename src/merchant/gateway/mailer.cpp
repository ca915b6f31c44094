// Mail to the merchant (gateway.hpp's Mailer): the mail outbox's rows (store_mail.cpp) on the shared
// outbox worker (src/server/outbox.hpp), each sent through the operator's SMTP relay by libcurl:
// smtp:// with STARTTLS required (CURLUSESSL_ALL), or smtps://; the relay's certificate checked
// (--smtp-ca-file, else the system's CAs); AUTH with the credentials file's user and password.
// A relay that refuses or is down fails the attempt: the row is retried with back-off (at most 10
// minutes apart), never dropped; a row is leased while one worker sends it and recorded as sent
// after the relay's 250, so two instances never send it twice (a relay that took the message and
// then lost the connection before its answer is the one case a mail may come twice).
#include <curl/curl.h>

#include <algorithm>
#include <cstring>
#include <mutex>

#include "gateway/gateway.hpp"
#include "rules/notify.hpp"
#include "server/outbox.hpp"
#include "server/util.hpp"

namespace merchant {

namespace {

constexpr std::int64_t kMailLeaseMs = 120000;  // above the send's own timeout (60 s)

// Sends `message` to `to` through the relay; "" when the relay accepted it, else what went wrong
// (libcurl's words: the relay's refusal, a TLS or connection error).
std::string smtp_send(const Config& c, const std::string& to, const std::string& message) {
    static std::once_flag init;
    std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    CURL* curl = curl_easy_init();
    if (!curl) return "libcurl could not start";
    struct Reader {
        const std::string& text;
        std::size_t at = 0;
    } reader{message};
    const auto read = +[](char* out, std::size_t size, std::size_t n, void* p) -> std::size_t {
        auto* r = static_cast<Reader*>(p);
        const std::size_t take = std::min(size * n, r->text.size() - r->at);
        std::memcpy(out, r->text.data() + r->at, take);
        r->at += take;
        return take;
    };
    curl_slist* rcpt = curl_slist_append(nullptr, ("<" + to + ">").c_str());
    char error[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(curl, CURLOPT_URL, c.smtp_url.c_str());
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
    curl_easy_setopt(curl, CURLOPT_USE_SSL, static_cast<long>(CURLUSESSL_ALL));
    if (!c.smtp_ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, c.smtp_ca_file.c_str());
    if (!c.smtp_user.empty()) {
        curl_easy_setopt(curl, CURLOPT_USERNAME, c.smtp_user.c_str());
        curl_easy_setopt(curl, CURLOPT_PASSWORD, c.smtp_password.c_str());
    }
    curl_easy_setopt(curl, CURLOPT_MAIL_FROM, ("<" + c.mail_from + ">").c_str());
    curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, rcpt);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, read);
    curl_easy_setopt(curl, CURLOPT_READDATA, &reader);
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 60L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    const CURLcode rc = curl_easy_perform(curl);
    curl_slist_free_all(rcpt);
    curl_easy_cleanup(curl);
    if (rc == CURLE_OK) return {};
    return std::string(curl_easy_strerror(rc)) + (error[0] ? std::string(": ") + error : std::string());
}

}  // namespace

struct Gateway::Mailer final : paywasm::server::OutboxStore {
    Mailer(Gateway& gw_, paywasm::server::OutboxOptions options) : gw(gw_), outbox(*this, std::move(options)) {}
    ~Mailer() override { outbox.stop(); }

    std::optional<Item> claim(std::int64_t now) override {
        auto m = gw.store.mail.claim_mail(now, kMailLeaseMs);
        if (!m) return std::nullopt;
        Item item;
        item.id = m->id;
        item.url = m->recipient;
        item.attempts = m->attempts;
        item.body = mail_message(Mail{"", m->subject, m->body}, gw.config.mail_from, m->recipient, m->created_at,
                                 paywasm::server::random_token("mail") + "@paywasm-merchant");
        return item;
    }
    void delivered(const Item& item, const Attempt& attempt) override { gw.store.mail.mail_sent(item.id, attempt.finished); }
    void failed(const Item& item, const Attempt& attempt) override {
        gw.store.mail.mail_failed(item.id, attempt.next_attempt_at, attempt.error);
    }

    Gateway& gw;
    paywasm::server::Outbox outbox;
};

void Gateway::start_mailer() {
    if (config.smtp_url.empty()) return;
    store.mail.enable(config.shop_name);
    paywasm::server::OutboxOptions o;
    o.name = "paywasm-merchant: mail";
    o.workers = 1;
    o.verbose = true;  // a relay's refusal is what the operator must see
    o.record_retry_ms = kMailLeaseMs - 30000;
    o.backoff_ms = retry_backoff();
    o.deliver = [this](const paywasm::server::OutboxStore::Item& item, paywasm::server::OutboxStore::Attempt& attempt) {
        attempt.error = smtp_send(config, item.url, item.body);
    };
    mailer_ = std::make_shared<Mailer>(*this, std::move(o));
    mailer_->outbox.start();
}

void Gateway::stop_mailer() {
    if (mailer_) mailer_->outbox.stop();
}

}  // namespace merchant
