// The host page hands the shopper token over through a callback (it could refresh it here).
document.addEventListener('DOMContentLoaded', function () {
  document.querySelector('paywasm-checkout').getShopperToken = function () {
    return Promise.resolve('tag-token-42');
  };
});
