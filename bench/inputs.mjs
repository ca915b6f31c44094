// The inputs every implementation gets, the same in one run: a fresh 2048-bit RSA key (e = 65537),
// the exchange payment plaintext (the documented sample's shape, ~770 bytes: four OAEP-SHA-1
// blocks), the same payload with a cart that makes it ~3 KB, a one-block merchantAuth, and a
// 75-character payment URI.
import crypto from 'node:crypto';

// The plaintext of `data` for POST /exchanges/payments/{exchange}: what the widget encrypts.
function exchangeOrder(cart) {
  const cents = cart.reduce((sum, it) => sum + Math.round(it.price * 100) * it.quantity, 0);
  return {
    clientId: '5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48',
    assets: 'BTC',
    cart,
    shippingAddress: {
      firstname: 'Ada', lastname: 'Lovelace', phoneNo: '+14155550132', address1: '1200 Market St',
      address2: 'Apt 5B', state: 'CA', city: 'San Francisco', zipcode: '94102', country: 'US',
      landmark: 'Near the library', email: 'ada@example.com',
    },
    offerId: 'ORD-2026-000187',
    nativeAmount: (cents / 100).toFixed(2),
    savepassword: false,
    code2fa: '123456',
    merchantStoreCurrency: 'USD',
  };
}

const line = (id, name, price, quantity) => ({
  id, name, price, quantity, localAmount: Math.round(price * quantity * 100) / 100, localCurrency: 'USD',
});

const SAMPLE_CART = [
  line('1001', 'Wool sweater', 89.99, 1),
  line('2042', 'Card holder', 24.5, 2),
  line('4410', 'Café crème "250 g"', 12.1, 3),
];

// Lines added until the payload passes 3,000 bytes (deterministic: the same bytes every run).
function bigCart() {
  const cart = [...SAMPLE_CART];
  const names = ['Linen shirt', 'Ceramic mug', 'Notebook A5', 'Wool socks', 'Desk lamp', 'Tea tin'];
  for (let i = 0; ; i++) {
    const payload = JSON.stringify(exchangeOrder(cart));
    if (Buffer.byteLength(payload) >= 3000) return cart;
    cart.push(line(String(5000 + i), `${names[i % names.length]} #${i + 1}`, 4.25 + i, 1 + (i % 3)));
  }
}

// A wallet payment URI of exactly 75 characters (bech32 address, amount, label).
export const QR_TEXT = 'bitcoin:bc1qxy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh?amount=0.00272&label=ORD';

export function makeInputs() {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 65537 });
  const payloads = {
    sample: JSON.stringify(exchangeOrder(SAMPLE_CART)),
    cart3k: JSON.stringify(exchangeOrder(bigCart())),
    // One block: what merchantAuth encrypts (subscription debit and cancel).
    merchantAuth: JSON.stringify({ merchantId: '5f2b7c1e-8a4d-4c3b-9e61-2d7f0a9b3c48' }),
  };
  if (QR_TEXT.length !== 75) throw new Error(`QR text is ${QR_TEXT.length} characters, not 75`);
  // The slowest public key the core accepts (kMaxKeyBits, the largest odd e): 8192 bits, e = 2^32 - 1.
  // Only its public half matters for encryption time, so the modulus is random odd bytes with the top
  // bit set (no private key exists; the output is checked for shape, not decrypted).
  const n = crypto.randomBytes(1024);
  n[0] |= 0x80;
  n[1023] |= 1;
  const worstKey = crypto.createPublicKey({ key: { kty: 'RSA', n: n.toString('base64url'), e: Buffer.from([0xff, 0xff, 0xff, 0xff]).toString('base64url') }, format: 'jwk' });
  return {
    worstKeyPem: worstKey.export({ type: 'spki', format: 'pem' }),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    payloads,
    payloadBytes: Object.fromEntries(Object.entries(payloads).map(([k, v]) => [k, Buffer.byteLength(v)])),
    qrText: QR_TEXT,
  };
}
