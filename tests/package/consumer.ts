// A TypeScript app using the npm package as a shop's front end would, type-checked (tsc --noEmit,
// strict) against the types installed from the tarball by tests/package/run.sh. Nothing here runs.
import PayWasm, { load, mount, PayWasmError, version, locales } from 'paywasm';
import type {
  CartItem, CheckoutController, CheckoutOptions, PayWasmCheckoutElement, PayWasmCore, PayWasmErrorCode, StatusDetail,
} from 'paywasm';
// The classic script's export: it exports nothing; its effect is the globals below.
import 'paywasm/script';

const cart: CartItem[] = [{ id: 'sku-1', name: 'T-shirt', price: 12.5, quantity: 2 }];
const options: CheckoutOptions = {
  baseUrl: 'https://api.example', merchantId: 'm-1', publicKey: '-----BEGIN PUBLIC KEY-----…', currency: 'USD',
  offerId: 'order-1001', cart, wasmUrl: '/assets/paywasm.wasm',
  getShopperToken: async () => (await fetch('/session/shopper-token')).text(),
};

export async function checkout(target: HTMLElement): Promise<string> {
  const core: PayWasmCore = await load({ wasmUrl: '/assets/paywasm.wasm' });
  const total: string = core.cartTotal(cart);
  const ctl: CheckoutController = mount(target, options);
  const off: () => void = ctl.on('complete', (detail: StatusDetail) => {
    location.assign(`/thanks/${String(detail.transaction.id)}`);
  });
  ctl.on('error', ({ error }) => {
    const code: PayWasmErrorCode = error.code;
    if (error instanceof PayWasmError && error.mayHaveGoneThrough) console.warn(code, error.offerId);
  });
  off();
  const element: PayWasmCheckoutElement = ctl.element;
  element.addEventListener('paywasm-status', (ev) => console.log(ev.detail.status, ev.detail.method));
  // What a partial payment still owes, in the currency the shopper pays in (null when unknown).
  ctl.on('status', ({ status, remaining }) => {
    const left: string | null = status.taken === 'some' && remaining ? `${remaining.amount} ${remaining.currency}` : null;
    console.log(left, status.tone, status.next);
  });
  const owed: string = core.amountsOwed({ code: 101, method: 'qr', amount: '0.001', currency: 'BTC', receivedAmount: '0.0004' }).remaining.amount;
  return `${version} ${locales.join(',')} ${total} ${owed} ${element.timeout.toFixed(0)}`;
}

// The default export is the same API; the globals come from the types' `declare global`.
export const same: boolean = PayWasm.load === load && window.PayWasm.mount === mount && PayWasm.PayWasmError === PayWasmError;
export const created: PayWasmCheckoutElement = document.createElement('paywasm-checkout');
created.currency = 'EUR';

// The types are real, not `any`: each of these must be an error.
// @ts-expect-error an unknown error code
export const badCode: PayWasmErrorCode = 'nope';
// @ts-expect-error price is a number
export const badItem: CartItem = { id: 'x', name: 'x', price: '1', quantity: 1 };
// @ts-expect-error 'partly' is not a MoneyTaken
export const badTaken: StatusDetail['status']['taken'] = 'partly';
// @ts-expect-error no such event
mount('#checkout').on('paid', () => {});
