// The payment page's one script (the CSP allows no inline script). The element already has its
// session-url from the server; this gives it the shopper's token and goes to the order page once
// the payment succeeded. The order page shows "paid" only when the shop's server has the verified
// checkout.succeeded event: the browser's word is not proof of payment.
const checkout = document.querySelector('paywasm-checkout');
checkout.getShopperToken = async () => (await fetch('/shopper-token')).text();  // asked for when needed; never stored
checkout.addEventListener('paywasm-complete', () => location.assign(checkout.dataset.orderPage));
// A payment whose outcome is unclear (a timeout, a dropped connection): the widget stays locked and
// names the order; the order page says whether it was paid (docs/merchant.md, "Try it on the sandbox").
checkout.addEventListener('paywasm-error', (e) => {
  if (e.detail.error.mayHaveGoneThrough) console.info(`order ${e.detail.error.offerId}: unclear outcome, see ${checkout.dataset.orderPage}`);
});
