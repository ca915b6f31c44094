// What the seller needs to ship an order, read once from the session's checkout (issue 45): the
// shopper's name and e-mail, the shipping address as one line, the products with their quantities,
// and the payment link that opened it. The app API's lists and order (shipTo), the CSV and the
// console's pages all write these, so they never disagree. Pure: no database, no clock.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "paywasm/json.hpp"
#include "rules/session.hpp"

namespace merchant {

struct ShipTo {
    std::string name, email;  // the shipping address's first and last name (else the QR customer's), e-mail
    std::string address;      // "1 Main St, 22201 Arlington, US": the address lines in one (empty: none given)
    struct Item {
        std::string name, quantity;
    };
    std::vector<Item> items;  // the cart's products, in its order
    std::optional<std::string> link_id;
    // "Blue mug × 2; Tea × 1"
    std::string products() const;
};

// Read with the core's JSON reader only (a full Checkout decode per row would double the CSV's time);
// a checkout that does not read gives an empty ShipTo (with the link).
ShipTo ship_to(const Session& s);

// {"name", "email", "address", "products": [{"name", "quantity"}], "linkId"}: empty texts as null.
void write_ship_to(paywasm::JsonWriter& w, const ShipTo& t);

}  // namespace merchant
