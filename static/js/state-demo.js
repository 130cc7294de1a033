// The /_/state demo app: its state lives in the URL fragment as
// PAYLOAD_PREFIX + base64url(gzip(JSON)), and "Shorten link" posts that
// fragment to /api/links. No inline scripts exist (the CSP forbids them).
(function () {
  'use strict';

  var root = document.querySelector('[data-state-demo]');
  if (!root) return;
  var prefix = root.getAttribute('data-prefix') || '#state=v1.';
  var note = root.querySelector('[data-state-note]');
  var count = root.querySelector('[data-state-count]');
  var result = root.querySelector('[data-state-result]');
  var link = root.querySelector('[data-state-link]');
  var errorBox = root.querySelector('[data-state-error]');
  var shortenButton = root.querySelector('[data-state-shorten]');
  var MAX_NOTE = 2000;

  var state = { note: '', count: 0 };

  function render() {
    note.value = state.note;
    count.textContent = String(state.count);
  }

  function showError(message) {
    errorBox.textContent = message;
    errorBox.classList.toggle('hidden', !message);
  }

  function bytesToBase64url(bytes) {
    var binary = '';
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function base64urlToBytes(text) {
    var b64 = text.replace(/-/g, '+').replace(/_/g, '/');
    while (b64.length % 4) b64 += '=';
    var binary = atob(b64);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  async function encodeState(s) {
    var json = new TextEncoder().encode(JSON.stringify(s));
    var stream = new Blob([json]).stream().pipeThrough(new CompressionStream('gzip'));
    var bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    return prefix + bytesToBase64url(bytes);
  }

  async function decodeState(fragment) {
    var stream = new Blob([base64urlToBytes(fragment.slice(prefix.length))]).stream().pipeThrough(new DecompressionStream('gzip'));
    return JSON.parse(await new Response(stream).text());
  }

  // The service checks only the container; the app validates its own fields.
  function validState(v) {
    return v !== null && typeof v === 'object' && typeof v.note === 'string' && v.note.length <= MAX_NOTE && Number.isSafeInteger(v.count);
  }

  var pendingHash = null;
  function stateChanged() {
    render();
    result.classList.add('hidden');
    // Keep the long form in the address bar, so reloading or copying it keeps the state too.
    var mine = (pendingHash = encodeState(state));
    mine
      .then(function (fragment) {
        if (pendingHash === mine) history.replaceState(null, '', fragment);
      })
      .catch(function () {});
  }

  note.addEventListener('input', function () {
    state.note = note.value.slice(0, MAX_NOTE);
    stateChanged();
  });
  root.querySelector('[data-state-inc]').addEventListener('click', function () {
    state.count += 1;
    stateChanged();
  });
  root.querySelector('[data-state-dec]').addEventListener('click', function () {
    state.count -= 1;
    stateChanged();
  });

  shortenButton.addEventListener('click', async function () {
    showError('');
    shortenButton.disabled = true;
    try {
      var response = await fetch('/api/links', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: await encodeState(state),
        credentials: 'same-origin',
      });
      var body = await response.json().catch(function () {
        return {};
      });
      if (!response.ok || typeof body.url !== 'string') {
        var retry = response.headers.get('retry-after');
        showError('Could not shorten: ' + (body.error || 'HTTP ' + response.status) + (retry ? ' (try again in ' + retry + ' s)' : ''));
        return;
      }
      link.href = body.url;
      link.textContent = body.url;
      result.classList.remove('hidden');
    } catch (e) {
      showError('Could not shorten: ' + (e && e.message ? e.message : 'network error'));
    } finally {
      shortenButton.disabled = false;
    }
  });

  async function restore() {
    if (!location.hash.startsWith(prefix)) return;
    try {
      var restored = await decodeState(location.hash);
      if (!validState(restored)) throw new Error('unexpected fields');
      state = { note: restored.note, count: restored.count };
      render();
    } catch (e) {
      showError('The state in this address could not be read.');
    }
  }

  render();
  restore().finally(function () {
    root.setAttribute('data-state-ready', 'true');
  });
})();
