// Word to the merchant by e-mail (notify.hpp): the mail each event makes.
#include "rules/notify.hpp"

#include <algorithm>
#include <ctime>

#include "paywasm/crypto.hpp"
#include "paywasm/json.hpp"
#include "server/http.hpp"

namespace merchant {

namespace {

std::string_view member_text(const paywasm::JsonValue& o, std::string_view name) {
    const auto v = o.member(name);
    return v.valid() && v.is_string() ? v.text() : std::string_view();
}

// "12.50 USD" from {"amount", "currency"}, or "" when the member is missing.
std::string money_of(const paywasm::JsonValue& o, std::string_view name) {
    const auto m = o.member(name);
    if (!m.valid() || !m.is_object()) return {};
    const auto amount = member_text(m, "amount"), currency = member_text(m, "currency");
    if (amount.empty() || currency.empty()) return {};
    return std::string(amount) + " " + std::string(currency);
}

// Printable, one line, at most `max` bytes: what goes into a header or a line of the text.
std::string one_line(std::string_view text, std::size_t max = 200) {
    std::string out;
    for (const char ch : text) {
        if (out.size() >= max) break;
        const auto c = static_cast<unsigned char>(ch);
        out += (c < 0x20 || c == 0x7f) ? ' ' : ch;
    }
    return out;
}

std::string subject_of(std::string_view what, std::string_view offer, std::string_view shop) {
    std::string s = shop.empty() ? std::string() : one_line(shop, 60) + ": ";
    s += what;
    if (!offer.empty()) s += " (order " + one_line(offer, 80) + ")";
    return s;
}

// " by console:ada" when the event names who did it.
std::string by(const paywasm::JsonValue& ev) {
    const auto actor = member_text(ev, "actor");
    return actor.empty() ? std::string() : " by " + one_line(actor, 80);
}

// The order's lines every mail has: the order, the session, the amounts the event carries.
std::string order_lines(const paywasm::JsonValue& ev) {
    std::string t;
    if (const auto offer = member_text(ev, "offerId"); !offer.empty()) t += "Order: " + one_line(offer) + "\n";
    if (const auto session = member_text(ev, "sessionId"); !session.empty()) t += "Session: " + one_line(session) + "\n";
    for (const auto& [name, label] : {std::pair{"orderTotal", "Order total"}, {"expected", "Asked"}, {"received", "Arrived"},
                                      {"remaining", "Missing"}}) {
        if (const auto m = money_of(ev, name); !m.empty()) t += std::string(label) + ": " + one_line(m) + "\n";
    }
    if (const auto tx = member_text(ev, "transactionId"); !tx.empty()) t += "Transaction: " + one_line(tx) + "\n";
    if (const auto state = member_text(ev, "orderState"); !state.empty()) t += "Order state: " + one_line(state) + "\n";
    return t;
}

// A header value as RFC 2047 wants it: ASCII as is, else one encoded-word of its UTF-8 bytes
// (relays without SMTPUTF8 would mangle raw bytes). Long subjects give one long encoded-word:
// readers take it (RFC 2047 asks for 75 characters; none of ours reaches 300 bytes).
std::string header_text(const std::string& value) {
    const bool ascii = std::all_of(value.begin(), value.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    return ascii ? value : "=?UTF-8?B?" + paywasm::base64_encode(value) + "?=";
}

}  // namespace

std::optional<std::vector<std::string>> parse_notify_kinds(std::string_view csv) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos <= csv.size()) {
        std::size_t end = csv.find(',', pos);
        if (end == std::string_view::npos) end = csv.size();
        const std::string kind(csv.substr(pos, end - pos));
        bool known = false;
        for (const char* k : kNotifyKinds) known = known || kind == k;
        if (!known) return std::nullopt;
        bool seen = false;
        for (const auto& k : out) seen = seen || k == kind;
        if (!seen) out.push_back(kind);
        pos = end + 1;
    }
    if (out.empty()) return std::nullopt;
    return out;
}

std::optional<Mail> mail_for_event(std::string_view event_json, std::string_view shop) {
    const auto doc = paywasm::server::read_json(event_json);
    if (!doc || !doc->root().is_object()) return std::nullopt;
    const auto ev = doc->root();
    const auto type = member_text(ev, "type");
    const auto offer = member_text(ev, "offerId");
    Mail m;
    if (type == "checkout.succeeded" || type == "checkout.paid_elsewhere" || type == "checkout.underpayment_accepted") {
        m.kind = "paid";
        m.subject = subject_of("Payment received", offer, shop);
        m.text = type == "checkout.succeeded" ? "The payment service confirmed this order's payment (a verified webhook).\n"
                 : type == "checkout.paid_elsewhere"
                     ? "This order was resolved as paid (checked in the service's portal)" + by(ev) + ".\n"
                     : "The underpayment of this order was accepted as enough" + by(ev) + ".\n";
        m.text += "You may ship it.\n\n";
    } else if (type == "checkout.partially_paid") {
        m.kind = "partial";
        m.subject = subject_of("Partly paid", offer, shop);
        m.text = "Part of this order's amount arrived. Do not ship yet: the customer may send the rest, or you\n"
                 "may accept what arrived (the console's order page).\n\n";
    } else if (type == "checkout.attention_needed") {
        m.kind = "attention";
        m.subject = subject_of("Needs attention", offer, shop);
        m.text = "A payment attempt of this order has no verified outcome in time. Look its transaction up in the\n"
                 "service's portal, then resolve it in the console (Needs attention).\n\n";
    } else {
        return std::nullopt;
    }
    m.text += order_lines(ev);
    return m;
}

Mail refused_mail(std::string_view event_json, std::int64_t attempts, std::string_view error, std::string_view shop) {
    Mail m;
    m.kind = "refused";
    std::string_view type, offer;
    const auto doc = paywasm::server::read_json(event_json);
    if (doc && doc->root().is_object()) {
        type = member_text(doc->root(), "type");
        offer = member_text(doc->root(), "offerId");
    }
    m.subject = subject_of("Your app refused an event", offer, shop);
    m.text = "Your shop's app refused (or did not answer) the event " + one_line(type) + " " + std::to_string(attempts) +
             " times; the last answer: " + one_line(error) + ".\nThe gateway keeps retrying it. Until your app takes it, "
             "the order it names may not be shipped or updated: see the console's Events page.\n\n";
    if (doc && doc->root().is_object()) m.text += order_lines(doc->root());
    return m;
}

std::string mail_message(const Mail& mail, std::string_view from, std::string_view to, std::int64_t epoch_ms,
                         std::string_view message_id) {
    char date[64];
    const std::time_t t = static_cast<std::time_t>(epoch_ms / 1000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S +0000", &tm);
    std::string m = "Date: " + std::string(date) + "\r\nFrom: " + one_line(from) + "\r\nTo: " + one_line(to) +
                    "\r\nSubject: " + header_text(one_line(mail.subject, 300)) + "\r\nMessage-ID: <" + one_line(message_id) +
                    ">\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n";
    for (const char c : mail.text) {
        if (c == '\n') m += "\r\n";
        else if (c != '\r') m += c;
    }
    return m;
}

}  // namespace merchant
