// The mail each event makes (src/merchant/rules/notify.hpp): pure, no relay.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "rules/notify.hpp"

using namespace merchant;

TEST_CASE("a verified payment makes a 'paid' mail with the order's amounts and currency") {
    const auto m = mail_for_event(R"({"type":"checkout.succeeded","offerId":"order-7","sessionId":"cs_1",
        "orderTotal":{"amount":"64.00","currency":"USD"},"transactionId":"tx-1","orderState":"paid"})", "Tea Shop");
    REQUIRE(m);
    CHECK(m->kind == "paid");
    CHECK(m->subject == "Tea Shop: Payment received (order order-7)");
    CHECK(m->text.find("Order total: 64.00 USD\n") != std::string::npos);
    CHECK(m->text.find("Transaction: tx-1\n") != std::string::npos);
}

TEST_CASE("events of no kind make no mail; unknown kinds are refused") {
    CHECK_FALSE(mail_for_event(R"({"type":"checkout.pending","offerId":"o"})", ""));
    CHECK_FALSE(mail_for_event("not json", ""));
    CHECK(parse_notify_kinds("paid,partial,paid") == std::vector<std::string>{"paid", "partial"});
    CHECK_FALSE(parse_notify_kinds("paid,shipped"));
    CHECK_FALSE(parse_notify_kinds(""));
}

TEST_CASE("a hostile offerId or sender cannot add a header or a line to the message") {
    const auto m = mail_for_event(R"({"type":"checkout.partially_paid","offerId":"x\r\nBcc: all@evil.example"})", "");
    REQUIRE(m);
    const std::string msg = mail_message(*m, "from@shop.example\r\nBcc: a@b", "to@shop.example", 0, "id@x");
    CHECK(msg.find("\r\nBcc:") == std::string::npos);
    CHECK(msg.find("\nBcc:") == std::string::npos);
    CHECK(msg.find("Subject: Partly paid (order x  Bcc: all@evil.example)\r\n") != std::string::npos);
    CHECK(msg.find("Date: Thu, 01 Jan 1970 00:00:00 +0000\r\n") == 0);
}

TEST_CASE("a subject with non-ASCII text is one RFC 2047 encoded-word; ASCII stays as is") {
    const auto m = mail_for_event(R"({"type":"checkout.succeeded","offerId":"o-1"})", "Café Zoë");
    REQUIRE(m);
    const std::string msg = mail_message(*m, "a@b.example", "c@d.example", 0, "id@x");
    // base64 of "Café Zoë: Payment received (order o-1)", as Python's base64.b64encode gives it
    CHECK(msg.find("Subject: =?UTF-8?B?Q2Fmw6kgWm/DqzogUGF5bWVudCByZWNlaXZlZCAob3JkZXIgby0xKQ==?=\r\n") != std::string::npos);
    const auto plain = mail_for_event(R"({"type":"checkout.succeeded","offerId":"o-1"})", "Tea");
    CHECK(mail_message(*plain, "a@b.example", "c@d.example", 0, "id@x").find("Subject: Tea: Payment received (order o-1)\r\n") !=
          std::string::npos);
}
