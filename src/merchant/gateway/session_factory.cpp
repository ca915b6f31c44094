// open_session() (session_factory.hpp): one checkout session made and stored.
#include "gateway/session_factory.hpp"

#include "paywasm/codec.hpp"
#include "paywasm/crypto.hpp"
#include "paywasm/order.hpp"
#include "paywasm/status.hpp"
#include "paywasm/validate.hpp"
#include "server/util.hpp"

namespace merchant {

Session open_session(Gateway& gw, const paywasm::Checkout& checkout, Session draft, std::int64_t ttl_ms, bool& created) {
    Session s = std::move(draft);
    s.id = random_token("cs_");
    s.offer_id = checkout.offer_id;
    s.checkout_json = paywasm::to_json(checkout);
    s.amount = paywasm::amount_text({paywasm::cart_total(checkout.cart), checkout.currency});  // "27.50"
    s.currency = checkout.currency;
    s.created_at = now_ms();
    s.expires_at = s.created_at + ttl_ms;
    s.status.state = paywasm::kNoStatusState;
    return gw.store.sessions.create_session(s, paywasm::sha256_hex(s.checkout_json), created);
}

}  // namespace merchant
