// The console's point of sale (console_pos.cpp): the keypad types into the amount field, and a
// sale's screen follows the sale's state (GET its data-follow URL, JSON {state, text, final}) once a
// second; at a final state it loads the page again (the server draws the result and "New sale").
// The console's only script: served from its own origin ('self'), no inline code, no storage.
'use strict';
(() => {
  const amount = document.getElementById('amount');
  const keypad = document.querySelector('.keypad');
  if (amount && keypad) {
    keypad.hidden = false;
    keypad.addEventListener('click', (e) => {
      const key = e.target.closest('button[data-key]');
      if (!key) return;
      const k = key.dataset.key;
      if (k === 'back') amount.value = amount.value.slice(0, -1);
      else if (k === '.' && amount.value.includes('.')) return;
      else if (/\.\d\d$/.test(amount.value)) return;  // two decimals at most
      else amount.value = (amount.value === '0' && k !== '.' ? '' : amount.value) + k;
    });
  }
  const state = document.querySelector('[data-follow]');
  if (!state) return;
  const url = state.dataset.follow;
  let shown = state.dataset.state;
  const tick = async () => {
    try {
      const r = await fetch(url, { credentials: 'same-origin', cache: 'no-store', headers: { accept: 'application/json' } });
      if (r.ok) {
        const s = await r.json();
        if (s.final) { location.reload(); return; }
        if (s.state !== shown) { shown = s.state; state.textContent = s.text; state.className = `sale-state state-${s.state}`; }
      }
    } catch (e) { /* offline a moment: the next tick tries again */ }
    setTimeout(tick, 1000);
  };
  setTimeout(tick, 1000);
})();
