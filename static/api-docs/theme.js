// joe-links' addition to Swagger UI at /api/docs/ (docs/api.md#openapi-and-swagger-ui), run every
// time the UI renders: its dark-mode toggle is an icon-only button with no name, the top bar's
// document field and the servers list have no label, code examples scroll but take no keyboard
// focus, and each operation's summary button holds a deep link (a control
// inside a control; the address follows the open operation anyway, deepLinking is on).
(function () {
  'use strict';
  function label() {
    var buttons = document.querySelectorAll('.dark-mode-toggle > button');
    var dark = document.documentElement.classList.contains('dark-mode');
    for (var i = 0; i < buttons.length; i++) {
      var b = buttons[i];
      if (b.getAttribute('aria-label') !== 'Dark mode') b.setAttribute('aria-label', 'Dark mode');
      if (b.getAttribute('aria-pressed') !== String(dark)) b.setAttribute('aria-pressed', String(dark));
    }
  }
  function repair() {
    label();
    var field = document.getElementById('download-url-input');
    if (field && !field.hasAttribute('aria-label')) field.setAttribute('aria-label', 'OpenAPI document URL');
    var servers = document.getElementById('servers');
    if (servers && !servers.hasAttribute('aria-label')) servers.setAttribute('aria-label', 'Server');
    var code = document.querySelectorAll('.highlight-code > pre:not([tabindex])');
    for (var j = 0; j < code.length; j++) code[j].setAttribute('tabindex', '0');
    var nested = document.querySelectorAll('.opblock-summary-control a[href]');
    for (var i = 0; i < nested.length; i++) nested[i].removeAttribute('href');
  }
  new MutationObserver(repair).observe(document.documentElement, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ['class'],
  });
  repair();
})();
