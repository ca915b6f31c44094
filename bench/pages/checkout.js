// The merchant side of the main-thread run: mount() with the bench inputs; the driver clicks pay.
// performance marks bench-mount / bench-ready / bench-status bound the measured window.
(function () {
  'use strict';
  window.benchMount = async function (apiOrigin) {
    const inputs = await (await fetch('/inputs.json')).json();
    const order = JSON.parse(inputs.payloads.sample);
    return new Promise((resolve, reject) => {
      performance.mark('bench-mount');
      const checkout = PayWasm.mount('#shop', {
        baseUrl: apiOrigin, merchantId: order.clientId, publicKey: inputs.publicKeyPem, currency: 'USD',
        offerId: order.offerId, methods: 'exchange', exchanges: 'kraken', cart: order.cart,
        shippingAddress: order.shippingAddress, getShopperToken: async () => 'bench-shopper-token',
      });
      checkout.on('ready', () => { performance.mark('bench-ready'); resolve(); });
      checkout.on('error', (d) => {
        window.__benchError = `paywasm-error ${d.error.code}: ${d.error.message}`;
        reject(new Error(window.__benchError));
      });
      checkout.on('status', (d) => {
        performance.mark('bench-status');
        window.__benchStatus = d.status.kind;
      });
    });
  };
})();
