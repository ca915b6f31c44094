#!/usr/bin/env python3
"""A shop beside paywasm-merchant, in Python's standard library only: what docs/merchant.md tells a
merchant to do, in one file.

    GET  /                       the catalogue
    GET  /buy/<sku>              a new order of one item: its session is created with the gateway
                                 (POST /v1/sessions, the app secret), then 303 to its payment page
    GET  /orders/<offerId>/pay   the payment page: <paywasm-checkout session-url=...>, under the CSP
                                 of docs/merchant.md step 3
    GET  /orders/<offerId>       the order page: paid or not, as the verified events said
    POST /paywasm-events         events forwarded by the gateway (--app-callback): step 4, the
                                 signature over the raw body, the timestamp, the body's id once, the
                                 ship rule
    GET  /shopper-token          the shopper's token for the widget (a real shop has it from the
                                 shopper's sign-in with the payment service; the sandbox has one)
    GET  /paywasm/<file>         the widget's files (`make dist` writes them to dist/)
    GET  /static/<file>          this shop's own script and stylesheet

Orders and processed event ids are kept in SQLite (--db). Secrets come from the environment only:
PAYWASM_APP_SECRET (the gateway's app API bearer), PAYWASM_EVENT_SECRET (the key events are signed
with) and, for the sandbox, PAYWASM_SHOPPER_TOKEN. See README.md beside this file.
"""
import argparse
import contextlib
import hashlib
import hmac
import html
import json
import os
import secrets
import sqlite3
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The catalogue: prices live on the server. Each price is exact text; the session's cart gets it as
# a JSON number, and the order's total is computed here with Decimal.
CATALOGUE = {
    "beans": {"name": "Espresso beans, 1 kg", "price": "24.50"},  # a total ending in 0 cents: "24.50" and 24.5 are one amount
    "dripper": {"name": "Ceramic pour-over dripper", "price": "18.95"},
    "filters": {"name": "Paper filters, 100", "price": "4.99"},
}
CURRENCY = "USD"
# The customer, as a real shop would have it from its own checkout form. A session that offers the
# QR method needs the customer's name and e-mail (docs/merchant.md, app API).
CUSTOMER = {"firstname": "Grace", "lastname": "Hopper", "email": "grace@example.com", "country": "US"}

MIME = {".js": "text/javascript; charset=utf-8", ".mjs": "text/javascript; charset=utf-8",
        ".wasm": "application/wasm", ".json": "application/json", ".css": "text/css; charset=utf-8",
        ".ts": "text/plain; charset=utf-8"}


# ---- docs/merchant.md step 4: the signature check (copied from there) -----------------------------

def verify_paywasm_event(raw: bytes, header: str, secret: str, tolerance: int = 300) -> bool:
    p = dict(kv.strip().split("=", 1) for kv in header.split(",") if "=" in kv)
    if "t" not in p or "v1" not in p or not p["t"].isdigit():
        return False
    want = hmac.new(secret.encode(), p["t"].encode() + b"." + raw, hashlib.sha256).hexdigest()
    return hmac.compare_digest(want, p["v1"]) and abs(time.time() - int(p["t"])) <= tolerance


# ---- the shop's records ------------------------------------------------------------------------------

SCHEMA = """
CREATE TABLE IF NOT EXISTS orders (
  offer_id TEXT PRIMARY KEY,      -- our order id, the session's offerId
  session_id TEXT NOT NULL,
  total TEXT NOT NULL,            -- what we computed, exact decimal text
  currency TEXT NOT NULL,
  created_at REAL NOT NULL,
  paid_at REAL,                   -- set once, by the event that shipped it
  paid_event_id TEXT,
  transaction_id TEXT
);
CREATE TABLE IF NOT EXISTS events (
  id TEXT PRIMARY KEY,            -- the signed body's id: each is processed once
  type TEXT NOT NULL,
  offer_id TEXT,
  shipped INTEGER NOT NULL,       -- 1 when this event shipped its order
  received_at REAL NOT NULL
);
"""


class Store:
    """SQLite, one connection per call (the server is threaded); writes in one transaction each."""

    def __init__(self, path):
        self.path = path
        with contextlib.closing(self._connect()) as db:
            db.executescript(SCHEMA)

    def _connect(self):
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        db.row_factory = sqlite3.Row
        return db

    def add_order(self, offer_id, session_id, total, currency):
        with contextlib.closing(self._connect()) as db:
            db.execute("INSERT INTO orders (offer_id, session_id, total, currency, created_at) VALUES (?, ?, ?, ?, ?)",
                       (offer_id, session_id, str(total), currency, time.time()))

    def order(self, offer_id):
        with contextlib.closing(self._connect()) as db:
            return db.execute("SELECT * FROM orders WHERE offer_id = ?", (offer_id,)).fetchone()

    def process_event(self, event):
        """Applies one verified event, once per id. Returns "duplicate", "shipped" or "recorded"."""
        db = self._connect()
        try:
            db.execute("BEGIN IMMEDIATE")
            if db.execute("SELECT 1 FROM events WHERE id = ?", (event["id"],)).fetchone():
                db.execute("ROLLBACK")
                return "duplicate"
            offer_id = event.get("offerId")
            order = db.execute("SELECT * FROM orders WHERE offer_id = ?", (offer_id,)).fetchone() \
                if isinstance(offer_id, str) else None
            ship = ships(event, order)
            if ship:
                db.execute("UPDATE orders SET paid_at = ?, paid_event_id = ?, transaction_id = ? WHERE offer_id = ?",
                           (time.time(), event["id"], event.get("transactionId"), offer_id))
            db.execute("INSERT INTO events (id, type, offer_id, shipped, received_at) VALUES (?, ?, ?, ?, ?)",
                       (event["id"], str(event.get("type")), offer_id if isinstance(offer_id, str) else None,
                        1 if ship else 0, time.time()))
            db.execute("COMMIT")
            return "shipped" if ship else "recorded"
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        finally:
            db.close()


def ships(event, order):
    """The ship rule of docs/merchant.md step 4: a checkout.succeeded event, for an order of ours that
    is not paid yet, whose orderTotal is the total we created the session with."""
    if event.get("type") != "checkout.succeeded" or order is None or order["paid_at"] is not None:
        return False
    total = event.get("orderTotal")
    if not isinstance(total, dict) or not isinstance(total.get("amount"), str):
        return False
    try:
        amount = Decimal(total["amount"])
    except ArithmeticError:
        return False
    return amount == Decimal(order["total"]) and total.get("currency") == order["currency"]


# ---- the gateway's app API -------------------------------------------------------------------------

class Gateway:
    def __init__(self, base, app_secret):
        self.base = base.rstrip("/")
        self.app_secret = app_secret
        self._service_origin = None

    def _call(self, method, path, body=None, app=True):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if app:
            req.add_header("Authorization", "Bearer " + self.app_secret)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as res:
                return res.status, json.loads(res.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def create_session(self, offer_id, cart, methods):
        return self._call("POST", "/v1/sessions", {"offerId": offer_id, "currency": CURRENCY, "cart": cart,
                                                    "shippingAddress": CUSTOMER, "methods": methods})

    def service_origin(self, session_id):
        """The payment service's origin as the browser reaches it: the checkout view's serviceUrl
        (the gateway's --public-service-url, else --service-url). The same for every session."""
        if self._service_origin is None:
            status, view = self._call("GET", f"/v1/checkout/{urllib.parse.quote(session_id)}", app=False)
            if status != 200:
                raise RuntimeError(f"checkout view: HTTP {status}")
            self._service_origin = origin_of(view["serviceUrl"])
        return self._service_origin


def origin_of(url):
    u = urllib.parse.urlsplit(url)
    return f"{u.scheme}://{u.netloc}"


# ---- pages ----------------------------------------------------------------------------------------------

def page(title, body):
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><link rel=\"stylesheet\" href=\"/static/shop.css\"></head>"
            f"<body><header><a href=\"/\">Python coffee shop</a></header><main>{body}</main></body></html>")


class Shop:
    def __init__(self, args):
        self.args = args
        self.app_secret = os.environ.get("PAYWASM_APP_SECRET", "")
        self.event_secret = os.environ.get("PAYWASM_EVENT_SECRET", "")
        self.shopper_token = os.environ.get("PAYWASM_SHOPPER_TOKEN", "")
        self.gateway = Gateway(args.gateway, self.app_secret)
        self.gateway_public = (args.gateway_public or args.gateway).rstrip("/")
        self.dist = Path(args.dist).resolve()
        self.store = Store(args.db)
        self.methods = ["exchange", "qr"] + (["bank"] if args.bank_account_id else [])

    # The page's Content-Security-Policy, as docs/merchant.md step 3 gives it: connect-src names this
    # origin, the payment service (the browser sends the payment and /users/me there) and the gateway
    # (the checkout view, the QR code, the status stream).
    def csp(self, service_origin):
        return ("default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; "
                f"connect-src 'self' {service_origin} {origin_of(self.gateway_public)}; img-src 'self'; "
                "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")

    def integrity(self, name):
        try:
            return json.loads((self.dist / "integrity.json").read_text())[name]
        except (OSError, ValueError, KeyError):
            return None

    def new_order(self, sku):
        item = CATALOGUE[sku]
        offer_id = "order-" + secrets.token_hex(6)
        cart = [{"id": sku, "name": item["name"], "price": float(item["price"]), "quantity": 1}]
        total = Decimal(item["price"])
        status, session = self.gateway.create_session(offer_id, cart, self.methods)
        if status not in (200, 201):
            raise RuntimeError(f"POST /v1/sessions: HTTP {status}: {session}")
        # The gateway computed the total from the cart; it must be ours.
        if Decimal(session["amount"]) != total or session["currency"] != CURRENCY:
            raise RuntimeError(f"the session's total {session['amount']} {session['currency']} is not ours ({total})")
        self.store.add_order(offer_id, session["id"], total, CURRENCY)
        return offer_id

    def payment_page(self, order):
        session_url = f"{self.gateway_public}/v1/checkout/{order['session_id']}"
        sri = self.integrity("paywasm.js")
        if sri is None:
            raise RuntimeError(f"{self.dist}/integrity.json has no paywasm.js: run `make dist`")
        bank = ""
        if self.args.bank_account_id:
            bank = (f' account-id="{html.escape(self.args.bank_account_id)}"'
                    f' stock-id="{html.escape(self.args.bank_stock_id)}"')
        offer = html.escape(order["offer_id"])
        body = (f"<h1>Pay order <code>{offer}</code></h1>"
                f"<p>Total: {html.escape(order['total'])} {html.escape(order['currency'])}</p>"
                f'<script src="/paywasm/paywasm.js" integrity="{html.escape(sri)}" crossorigin="anonymous"></script>'
                f'<paywasm-checkout session-url="{html.escape(session_url)}"{bank} data-order-page="/orders/{offer}">'
                "</paywasm-checkout>"
                '<script src="/static/checkout.js"></script>')
        return page(f"Pay order {order['offer_id']}", body), self.csp(self.gateway.service_origin(order["session_id"]))

    def order_page(self, order):
        offer = html.escape(order["offer_id"])
        if order["paid_at"] is not None:
            state = (f'<p class="paid" id="state">Paid. Transaction <code>{html.escape(order["transaction_id"] or "")}</code>;'
                     " we are packing your order.</p>")
            refresh = ""
        else:
            state = ('<p id="state">Waiting for the payment. This page refreshes by itself; '
                     f'<a href="/orders/{offer}/pay">back to the payment</a>.</p>')
            refresh = '<meta http-equiv="refresh" content="2">'
        return page(f"Order {order['offer_id']}", f"{refresh}<h1>Order <code>{offer}</code></h1>"
                    f"<p>Total: {html.escape(order['total'])} {html.escape(order['currency'])}</p>{state}")

    def catalogue_page(self):
        items = "".join(f'<li>{html.escape(i["name"])}: {i["price"]} {CURRENCY} <a href="/buy/{sku}">Buy</a></li>'
                        for sku, i in CATALOGUE.items())
        return page("Python coffee shop", f"<h1>Coffee</h1><ul>{items}</ul>")


# ---- HTTP ---------------------------------------------------------------------------------------------------

class Handler(BaseHTTPRequestHandler):
    shop: Shop = None
    server_version = "python-shop"

    def log_message(self, fmt, *args):
        if self.shop.args.verbose:
            sys.stderr.write("python-shop: " + (fmt % args) + "\n")

    def send(self, status, body=b"", content_type="text/plain; charset=utf-8", headers=None):
        if isinstance(body, str):
            body = body.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def send_html(self, text, csp=None):
        # Pages without the widget get the same policy with nothing to connect to.
        policy = csp or ("default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; "
                         "frame-ancestors 'none'")
        self.send(200, text, "text/html; charset=utf-8", {"Content-Security-Policy": policy, "X-Frame-Options": "DENY"})

    def send_file(self, base, rel):
        path = (base / rel).resolve()
        if base not in path.parents or not path.is_file():
            return self.send(404, "not found")
        self.send(200, path.read_bytes(), MIME.get(path.suffix, "application/octet-stream"))

    def do_GET(self):
        try:
            self.route_get(urllib.parse.urlsplit(self.path).path)
        except Exception as e:  # noqa: BLE001 - one answer for any failure, logged
            sys.stderr.write(f"python-shop: GET {self.path}: {e}\n")
            self.send(500, "something went wrong")

    def route_get(self, path):
        shop = self.shop
        parts = [urllib.parse.unquote(p) for p in path.split("/")[1:]]
        if path == "/":
            return self.send_html(shop.catalogue_page())
        if len(parts) == 2 and parts[0] == "buy" and parts[1] in CATALOGUE:
            offer_id = shop.new_order(parts[1])
            return self.send(303, "", headers={"Location": f"/orders/{offer_id}/pay"})
        if len(parts) in (2, 3) and parts[0] == "orders" and (len(parts) == 2 or parts[2] == "pay"):
            order = shop.store.order(parts[1])
            if order is None:
                return self.send(404, "no such order")
            if len(parts) == 3 and order["paid_at"] is None:
                text, csp = shop.payment_page(order)
                return self.send_html(text, csp)
            return self.send_html(shop.order_page(order))
        if path == "/shopper-token":
            return self.send(200, shop.shopper_token)
        if len(parts) == 2 and parts[0] == "paywasm":
            return self.send_file(shop.dist, parts[1])
        if len(parts) == 2 and parts[0] == "static":
            return self.send_file(HERE / "static", parts[1])
        return self.send(404, "not found")

    def do_POST(self):
        if urllib.parse.urlsplit(self.path).path != "/paywasm-events":
            return self.send(404, "not found")
        length = int(self.headers.get("Content-Length") or 0)
        if length > 1024 * 1024:
            return self.send(413, "too large")
        raw = self.rfile.read(length)  # the exact bytes: the signature covers them
        if not verify_paywasm_event(raw, self.headers.get("Paywasm-Signature", ""), self.shop.event_secret):
            return self.send(400, "bad signature")
        try:
            event = json.loads(raw)
            if not isinstance(event, dict) or not isinstance(event.get("id"), str):
                raise ValueError("no id")
        except ValueError:
            return self.send(400, "not an event")
        # Never deduplicate on the Paywasm-Event-Id header: the id inside the signed body is the one.
        outcome = self.shop.store.process_event(event)
        if outcome == "shipped":
            print(f"python-shop: order {event['offerId']} paid ({event['orderTotal']['amount']} "
                  f"{event['orderTotal']['currency']}, transaction {event.get('transactionId')}): ship it", flush=True)
        self.send(204)


def main():
    ap = argparse.ArgumentParser(description="An example shop beside paywasm-merchant (standard library only).")
    ap.add_argument("--listen", default="127.0.0.1:8000", help="HOST:PORT (port 0 picks a free one)")
    ap.add_argument("--gateway", required=True, help="paywasm-merchant's URL as this server reaches it")
    ap.add_argument("--gateway-public", help="paywasm-merchant's URL as the shopper's browser reaches it (default --gateway)")
    ap.add_argument("--dist", required=True, help="the widget's files (`make dist` writes dist/)")
    ap.add_argument("--db", default="shop.db", help="SQLite file of orders and processed events")
    ap.add_argument("--bank-account-id", help="offer bank payments into this account id at the service")
    ap.add_argument("--bank-stock-id", help="the shopper's connected bank account id (a real shop has it per shopper)")
    ap.add_argument("--verbose", action="store_true", help="access log on stderr")
    args = ap.parse_args()
    if bool(args.bank_account_id) != bool(args.bank_stock_id):
        ap.error("--bank-account-id and --bank-stock-id go together")
    for name in ("PAYWASM_APP_SECRET", "PAYWASM_EVENT_SECRET"):
        if len(os.environ.get(name, "")) < 16:
            ap.error(f"set {name} (at least 16 characters; the gateway's own value)")
    Handler.shop = Shop(args)
    host, _, port = args.listen.rpartition(":")
    server = ThreadingHTTPServer((host, int(port)), Handler)
    print(f"python-shop: listening on http://{host}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
