// The console's point of sale (console_pos.cpp): a seller at a stall types an amount, the customer
// scans the sale's code and pays on their phone. A sale is a payment link for one payment (the
// hosted pages' whole path: the customer's name and e-mail, the QR code, the receipt; the usage
// limit of 1 under the link's lock, so a second customer cannot pay it again), in no list of links,
// tagged with the console user who charged it; its order is an order like any other (the orders,
// the CSV, the overview, the app's events), tagged the same (Session::sold_by).
#pragma once

#include <cstdint>
#include <string>

#include "gateway/links.hpp"

namespace merchant {

// A new sale of `amount` (a decimal in --pos-currency, within the currency's minor units: the core's
// cart rules; HttpError 400 naming "amount") for the note `note` (0 to 200 characters, the order's
// one line; "Sale" when empty; 400 naming "note"), charged by the console user `actor`, offering
// --methods, taking payments for --link-session-ttl. Audited (sale_created). HttpError 409
// hosted_pages_off without --widget-dir.
Link create_sale(Gateway& gw, const std::string& amount, const std::string& note, const Actor& actor);

// A sale's state as the seller's screen shows it: the best of its orders' states (order_state.hpp:
// paid, then partial, then a payment under way), "waiting" while no customer has paid or started and
// it still takes payments, "expired" once it takes none and nothing is under way; the amount, and
// whether it is over (paid, partial, expired).
struct SaleState {
    std::string state, amount, currency;
    std::string received;  // partial: what arrived, "" when the status said nothing
    bool final = false;
};
// Sale `id` (HttpError 404 when it is no sale) at `now`.
SaleState sale_state(Gateway& gw, const std::string& id, std::int64_t now);
// The URL the customer scans for sale `id` (its link's), HttpError 404 when it is no sale: one read of
// the link, none of its sessions.
std::string sale_url(Gateway& gw, const std::string& id);

}  // namespace merchant
