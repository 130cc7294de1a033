// Progressive enhancement for server-rendered pages. No inline scripts exist
// (the Content-Security-Policy forbids them); behaviour hangs off data-* hooks.
(function () {
  'use strict';

  function currentTheme() {
    return document.documentElement.getAttribute('data-theme') === 'joe-dark' ? 'joe-dark' : 'joe-light';
  }

  function applyTheme(theme) {
    document.documentElement.setAttribute('data-theme', theme);
  }

  // One click flips the theme at once, then persists it; rapid clicks stay
  // consistent because each post carries the theme that is now showing.
  document.addEventListener('click', function (ev) {
    var btn = ev.target instanceof Element ? ev.target.closest('[data-theme-toggle]') : null;
    if (!btn) return;
    ev.preventDefault();
    var next = currentTheme() === 'joe-dark' ? 'joe-light' : 'joe-dark';
    applyTheme(next);
    var body = new URLSearchParams({ theme: next });
    fetch('/dashboard/theme', { method: 'POST', body: body, credentials: 'same-origin' }).catch(function () {});
  });

  document.addEventListener('themeChanged', function (ev) {
    var t = ev.detail && ev.detail.theme;
    if (t === 'joe-light' || t === 'joe-dark') applyTheme(t);
  });
})();
