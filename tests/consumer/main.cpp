// Uses only the installed public headers: makes a key, prepares an exchange payment, reads it back.
// Prints "consumer: ok ..." and exits 0, or says what failed and exits 1.
#include <cstdio>
#include <string>

#include <paywasm/checkout.hpp>
#include <paywasm/codec.hpp>
#include <paywasm/json.hpp>

int main() {
    try {
        const paywasm::PrivateKey merchant = paywasm::PrivateKey::generate(2048);
        const std::string pem = merchant.public_key().to_pem();
        const auto order = paywasm::from_json<paywasm::ExchangePayment>(
            R"({"clientId":"m-1","assets":"BTC","cart":[{"id":"1","name":"Mug","price":9.5,"quantity":2}],)"
            R"("shippingAddress":{},"offerId":"o-1","savepassword":false,"code2fa":"","merchantStoreCurrency":"EUR"})");
        const paywasm::HttpRequest request = paywasm::prepare_exchange_payment(
            order, "kraken", {pem, merchant.public_key().fingerprint()}, "shopper-token");
        const paywasm::JsonDocument body = paywasm::parse_json(request.body);
        const std::string payload = paywasm::decrypt(merchant, body.root().member("data").text());
        const auto back = paywasm::from_json<paywasm::ExchangePayment>(payload);
        if (request.url("https://api.example/api") != "https://api.example/api/exchanges/payments/kraken" ||
            back.native_amount->to_string() != "19" || *back.cart[0].local_currency != "EUR") {
            std::fprintf(stderr, "consumer: unexpected request or payload: %s\n", payload.c_str());
            return 1;
        }
        std::printf("consumer: ok, %s %s, payload %zu bytes\n", request.method.c_str(), request.path.c_str(),
                    payload.size());
        return 0;
    } catch (const paywasm::Error& e) {
        std::fprintf(stderr, "consumer: error[%s]: %s\n", std::string(paywasm::to_string(e.code())).c_str(), e.what());
        return 1;
    }
}
