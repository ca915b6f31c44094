// Sample JSON documents shared by the unit tests. They are string constants (not files) because
// the same tests run natively and as WASM under node, where no test may touch the file system.
//
// Requests are given in their exact canonical bytes (what to_json writes and JSON.stringify gives
// for the same object). Responses are given as the service might send them: pretty-printed, with
// nulls, and with members the spec does not name, at several levels.
#pragma once

#include <string_view>

namespace paywasm::samples {

// ---- Requests (canonical bytes) ----------------------------------------------------------------

// POST /exchanges/payments/{exchange}: the plaintext of `data`, the documented sample shape
// (773 bytes: four 2048-bit OAEP-SHA-1 blocks). Total 89.99 + 2*24.5 + 3*12.1 = 175.29.
constexpr std::string_view kExchangePayment =
    R"({"clientId":"5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48","assets":"BTC","cart":[)"
    R"({"id":"1001","name":"Wool sweater","price":89.99,"quantity":1,"localAmount":89.99,"localCurrency":"USD"},)"
    R"({"id":"2042","name":"Card holder","price":24.5,"quantity":2,"localAmount":49,"localCurrency":"USD"},)"
    R"({"id":"4410","name":"Café crème \"250 g\"","price":12.1,"quantity":3,"localAmount":36.3,"localCurrency":"USD"}],)"
    R"("shippingAddress":{"firstname":"Ada","lastname":"Lovelace","phoneNo":"+14155550132",)"
    R"("address1":"1200 Market St","address2":"Apt 5B","state":"CA","city":"San Francisco",)"
    R"("zipcode":"94102","country":"US","landmark":"Near the library","email":"ada@example.com"},)"
    R"("offerId":"ORD-2026-000187","nativeAmount":"175.29","savepassword":false,"code2fa":"123456",)"
    R"("merchantStoreCurrency":"USD"})";

// POST /purchases (deprecated): the plaintext of `data`. amount = 2*19.99 + 99.5 = 139.48.
constexpr std::string_view kBankPayment =
    R"({"clientId":"5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48","amount":139.48,"accountId":"acct_7Hq2LmN4",)"
    R"("cart":[{"id":"SKU-5150","name":"Canvas tote","price":19.99,"quantity":2,"localAmount":39.98,"localCurrency":"USD"},)"
    R"({"id":"SKU-6021","name":"Desk lamp","price":99.5,"quantity":1,"localAmount":99.5,"localCurrency":"USD"}],)"
    R"("stockId":"bank-acc-9c1e55","offerId":"ORD-2026-000188","merchantStoreCurrency":"USD",)"
    R"("hostedPageId":"hp_3kF9wQ","shippingAddress":{"firstname":"Grace","lastname":"Hopper",)"
    R"("address1":"77 Massachusetts Ave","state":"MA","city":"Cambridge","zipcode":"02139","country":"US"}})";

// POST /purchase/qr/generate (deprecated): QR-form cart with a subscription line.
constexpr std::string_view kQrGenerateRequest =
    R"({"amount":"59.97","currency":"USD","cryptoCurrency":"ETH","orderId":"ORD-2026-000190",)"
    R"("cart":[{"id":"PLAN-PRO","name":"Pro plan","price":19.99,"quantity":1,"isSubscription":true,)"
    R"("frequency":"monthly","subscriptionPeriod":"12m","merchantSubscriptionId":"msub-0042"},)"
    R"({"id":"ADDON-7","name":"Extra seat","price":19.99,"quantity":2}],)"
    R"("customerInfo":{"name":"Ada Lovelace","email":"ada@example.com","phone":"+14155550132"},)"
    R"("customParameter":{"returnMethod":"POST","params":[{"name":"cartRef","value":"c-991"}]}})";

constexpr std::string_view kSubscriptionDebitRequest =
    R"({"merchantAuth":"bWVyY2hhbnQtYXV0aA==","merchantId":"5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48",)"
    R"("orderId":"SUB-ORD-0007","items":[{"subscriptionId":"sub_01HV7Q","amount":19.99,"currency":"USD"}]})";

constexpr std::string_view kSubscriptionCancelRequest =
    R"({"merchantId":"5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48","merchantAuth":"bWVyY2hhbnQtYXV0aA==",)"
    R"("subscriptionId":"sub_01HV7Q"})";

// ---- Responses (as sent) -------------------------------------------------------------------------

// A Transaction with every documented field, nulls where the service sends them, and unknown
// members at the top level and inside meta, meta.hash, check items, statusRefund, merchant,
// shopData, customer, currencyInfo and txMetadata.
constexpr std::string_view kTransactionFull = R"json({
  "id": "3f6c1b2a-9d8e-4f7a-b5c4-1e2d3c4b5a69",
  "status": 0,
  "nativeAmount": "180.24",
  "nativeCurrency": "USD",
  "amount": "0.00271834",
  "receivedAmount": "0.00000000",
  "currency": "BTC",
  "type": 2,
  "description": "Order ORD-2026-000187",
  "check": [
    {
      "id": "SKU-1001", "num": 1, "name": "Merino wool sweater",
      "price": 89.99, "quantity": 1, "localAmount": 89.99,
      "statusRefund": {"pending": 0, "success": 0, "rejected": 0},
      "amountFinal": 89.99,
      "sku": "MWS-M-NAVY"
    },
    {
      "id": "SKU-2042", "num": 2, "name": "Leather card holder",
      "price": 24.50, "quantity": 2, "localAmount": 49.00,
      "statusRefund": {"pending": 1, "success": 0, "rejected": 0, "updatedBy": "system"},
      "amountFinal": 49
    }
  ],
  "subscriptionIds": [],
  "subscriptionOrder": false,
  "meta": {
    "hash": {
      "value": ["4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"],
      "network": "bitcoin",
      "confirmations": 3
    },
    "offerId": "ORD-2026-000187",
    "receiverAddress": "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh",
    "exchange": "kraken"
  },
  "stockId": null,
  "userId": "b7e4c2d1-6a5f-4e3d-9c8b-7a6f5e4d3c2b",
  "merchantId": "5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48",
  "settlementId": "0c9d8e7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f",
  "statusRefund": 0,
  "localAmount": "180.24",
  "localCurrency": "USD",
  "referenceKraken": "OQCLML-BW3P3-BUCMWZ",
  "merchantPayableAmount": "177.54",
  "errorMessage": null,
  "settlementStatus": 0,
  "txMetaId": "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
  "partnerId": null,
  "createdBy": "b7e4c2d1-6a5f-4e3d-9c8b-7a6f5e4d3c2b",
  "createdAt": "2026-03-14T09:26:53.589Z",
  "updatedAt": "2026-03-14T09:27:05.112Z",
  "merchant": {
    "shopData": {
      "url": "https://shop.example.com",
      "logo": "https://shop.example.com/logo.svg",
      "companyName": "Example Goods \u0026 Co.",
      "description": "Knitwear, leather and gifts",
      "supportEmail": "help@shop.example.com"
    },
    "id": "5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48"
  },
  "customer": {"email": "ada@example.com", "fullname": "Ada Lovelace", "id": "b7e4c2d1-6a5f-4e3d-9c8b-7a6f5e4d3c2b"},
  "currencyInfo": {"isFiat": false, "decimals": 8},
  "stock": null,
  "partner": {"name": "Kraken", "fees": {"percent": 0.26}},
  "txMetadata": {
    "id": "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",
    "shippingAddress": {
      "firstname": "Ada", "lastname": "Lovelace", "phoneNo": "+1 415 555 0132",
      "address1": "1200 Market Street", "address2": "Apt 5B", "state": "CA",
      "city": "San Francisco", "zipcode": "94102", "country": "US",
      "landmark": "Opposite the library", "email": "ada@example.com"
    },
    "nativeConversionRate": "66305.12",
    "ipCountry": "US"
  },
  "receivedAmountFinal": 0,
  "receivedAmountCal": 0.00271834,
  "riskScore": 12,
  "fees": {"network": "0.00001", "service": "1.80"}
})json";

// What to_json writes for kTransactionFull: spec order, nulls of optional strings left out
// (stock stays null: it is a RawJson), numbers canonical, extras after the known members.
constexpr std::string_view kTransactionFullCanonical =
    R"({"id":"3f6c1b2a-9d8e-4f7a-b5c4-1e2d3c4b5a69","status":0,"nativeAmount":"180.24",)"
    R"("nativeCurrency":"USD","amount":"0.00271834","receivedAmount":"0","currency":"BTC","type":2,)"
    R"("description":"Order ORD-2026-000187","check":[{"id":"SKU-1001","num":1,)"
    R"("name":"Merino wool sweater","price":89.99,"quantity":1,"localAmount":89.99,)"
    R"("statusRefund":{"pending":0,"success":0,"rejected":0},"amountFinal":89.99,"sku":"MWS-M-NAVY"},)"
    R"({"id":"SKU-2042","num":2,"name":"Leather card holder","price":24.5,"quantity":2,"localAmount":49,)"
    R"("statusRefund":{"pending":1,"success":0,"rejected":0,"updatedBy":"system"},"amountFinal":49}],)"
    R"("subscriptionIds":[],"subscriptionOrder":false,"meta":{"hash":{"value":)"
    R"(["4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b"],"network":"bitcoin",)"
    R"("confirmations":3},"offerId":"ORD-2026-000187",)"
    R"("receiverAddress":"bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh","exchange":"kraken"},)"
    R"("userId":"b7e4c2d1-6a5f-4e3d-9c8b-7a6f5e4d3c2b","merchantId":"5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48",)"
    R"("settlementId":"0c9d8e7f-6a5b-4c3d-2e1f-0a9b8c7d6e5f","statusRefund":0,"localAmount":"180.24",)"
    R"("localCurrency":"USD","referenceKraken":"OQCLML-BW3P3-BUCMWZ","merchantPayableAmount":"177.54",)"
    R"("settlementStatus":0,"txMetaId":"9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",)"
    R"("createdBy":"b7e4c2d1-6a5f-4e3d-9c8b-7a6f5e4d3c2b","createdAt":"2026-03-14T09:26:53.589Z",)"
    R"("updatedAt":"2026-03-14T09:27:05.112Z","merchant":{"shopData":{"url":"https://shop.example.com",)"
    R"("logo":"https://shop.example.com/logo.svg","companyName":"Example Goods & Co.",)"
    R"("description":"Knitwear, leather and gifts","supportEmail":"help@shop.example.com"},)"
    R"("id":"5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48"},"customer":{"email":"ada@example.com",)"
    R"("fullname":"Ada Lovelace","id":"b7e4c2d1-6a5f-4e3d-9c8b-7a6f5e4d3c2b"},)"
    R"("currencyInfo":{"isFiat":false,"decimals":8},"stock":null,"partner":{"name":"Kraken",)"
    R"("fees":{"percent":0.26}},"txMetadata":{"id":"9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b",)"
    R"("shippingAddress":{"firstname":"Ada","lastname":"Lovelace","phoneNo":"+1 415 555 0132",)"
    R"("address1":"1200 Market Street","address2":"Apt 5B","state":"CA","city":"San Francisco",)"
    R"("zipcode":"94102","country":"US","landmark":"Opposite the library","email":"ada@example.com"},)"
    R"("nativeConversionRate":"66305.12","ipCountry":"US"},"receivedAmountFinal":0,)"
    R"("receivedAmountCal":0.00271834,"riskScore":12,"fees":{"network":"0.00001","service":"1.80"}})";

// An exchange payment answered with an immediate status word, a Stripe-like reference and the
// least the service must send.
constexpr std::string_view kTransactionStatusWord =
    R"({"id":"7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","status":"processing","referenceStripe":null,)"
    R"("nativeAmount":"25.00","nativeCurrency":"USD"})";

constexpr std::string_view kQrGenerateResponse = R"json({
  "ok": true,
  "result": {
    "totalAmount": "59.97",
    "currency": "USD",
    "crytoCurrency": "ETH",
    "id": "8b1d6f2e-3c4a-4b5d-9e6f-7a8b9c0d1e2f",
    "meta": {
      "offerId": "ORD-2026-000190",
      "receiverAddress": "0x52908400098527886E0F7030069857D2E4169EE7",
      "qrString": "ethereum:0x52908400098527886E0F7030069857D2E4169EE7?amount=0.0183&value=18300000000000000",
      "network": "ethereum"
    },
    "expiresAt": "2026-03-14T10:26:53.589Z"
  },
  "requestId": "req-5521"
})json";

constexpr std::string_view kUsersMeResponse = R"json({
  "ok": true,
  "result": {
    "id": "b7e4c2d1-6a5f-4e3d-9c8b-7a6f5e4d3c2b",
    "email": "ada@example.com",
    "username": "ada",
    "fullname": "Ada Lovelace",
    "avatar": null,
    "profile": {
      "zip": "94102", "city": "San Francisco", "phone": "4155550132", "state": "CA",
      "address": "1200 Market Street", "country": "US", "lastName": "Lovelace",
      "firstName": "Ada", "dateOfBirth": "12-10-1985", "phoneCountry": 1, "gender": "f"
    },
    "status": 1,
    "type": 2,
    "kybCryptoStatus": 0,
    "kybBankStatus": 0,
    "shopData": {},
    "withdrawalAddresses": [{"asset": "BTC", "address": "bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh"}],
    "ssoStatus": false,
    "enableCancelSubscription": true,
    "verification": null,
    "graphSettings": [],
    "is2faEnabled": true,
    "enableBankPayment": false,
    "verificationStatus": {"level": 2, "checkedAt": "2026-01-02T03:04:05Z"},
    "lastLoginAt": "2026-03-14T09:20:00.000Z"
  }
})json";

// Debit answer: amounts as a string and as a number, rateDivisor both ways too.
constexpr std::string_view kSubscriptionDebitResult = R"json({
  "status": 200,
  "result": {
    "data": [
      {
        "transactionId": "1d2c3b4a-5f6e-4d7c-8b9a-0f1e2d3c4b5a",
        "amount": "19.99", "currency": "USD", "rateDivisor": 1,
        "orderId": "SUB-ORD-0007", "status": 0,
        "userId": "b7e4c2d1-6a5f-4e3d-9c8b-7a6f5e4d3c2b",
        "merchantId": "5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48",
        "subscriptionId": "sub_01HV7Q"
      },
      {
        "transactionId": "2e3d4c5b-6a7f-4e8d-9cab-1f2e3d4c5b6a",
        "amount": 9.5, "currency": "USD", "rateDivisor": "66305.12",
        "orderId": "SUB-ORD-0007", "status": 1, "subscriptionId": "sub_01HV7R",
        "exchange": "kraken"
      }
    ],
    "errors": [{"subscriptionId": "sub_01HV7S", "message": "Insufficient Balance"}],
    "processed": 2
  },
  "traceId": "t-778"
})json";

constexpr std::string_view kSubscriptionCancelResult =
    R"({"status":200,"result":{"success":true,"cancelledAt":"2026-03-14T09:30:00Z"},"traceId":"t-779"})";

}  // namespace paywasm::samples
